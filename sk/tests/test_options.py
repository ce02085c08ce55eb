"""Option strings: upstream grammar, allowed values, defaults, errors."""

import json

import pytest

from sk.base.errors import SkError
from sk.engine.options import KNOWN_OPTIONS, SkOptions, parse_options
from sk.tests.harness import run_sk


def test_empty_and_blank_mean_defaults():
    for text in ("", "   ", None, '""', "::"):
        opts = parse_options(text)
        assert opts == SkOptions()
        assert opts.explicit == frozenset()


def test_defaults_match_upstream():
    o = parse_options("")
    assert (o.func_align, o.preload_code, o.early_start, o.stream_fusion) == (512, "per-func", 1, 0)
    assert (o.debug_dcci_all, o.debug_sync_all, o.feed_sync_all, o.profiling) == (0, 0, 0, 0)
    assert (o.compile_options, o.strict_scope_check, o.split_mode) == ((), None, 4)
    assert (o.debug_aic_num, o.debug_aiv_num, o.sync_elision) == (0, 0, 0)
    assert o.dcci_before_kernel_start == o.dcci_after_kernel_end == o.dcci_disable_on_kernel == ()


def test_conformance_style_string_with_trailing_colon():
    o = parse_options("compile-options=-g:stream-fusion=1:profiling=1:feed-sync-all=1:")
    assert o.compile_options == ("-g",)
    assert (o.stream_fusion, o.profiling, o.feed_sync_all) == (1, 1, 1)
    assert o.explicit == {"compile-options", "stream-fusion", "profiling", "feed-sync-all"}


def test_real_world_string_and_trimming():
    o = parse_options(' "feed-sync-all=0 : stream-fusion=0:strict-scope-check=abort:preload-code=per-func:'
                      'early-start=1:split-mode=4" ')
    assert o.strict_scope_check == "abort"
    assert o.split_mode == 4 and o.early_start == 1 and o.preload_code == "per-func"


def test_part_without_equals_is_warned_and_skipped():
    o = parse_options("stream-fusion=1:oops:split-mode=2")
    assert o.stream_fusion == 1 and o.split_mode == 2
    assert len(o.warnings) == 1 and "oops" in o.warnings[0]


def test_list_values_split_on_commas():
    o = parse_options("compile-options=-g,-O2:dcci-before-kernel-start=GroupedMatmul, MoeGatingTopK")
    assert o.compile_options == ("-g", "-O2")
    assert o.dcci_before_kernel_start == ("GroupedMatmul", "MoeGatingTopK")


@pytest.mark.parametrize("text,field,value", [
    ("func-align=0", "func_align", 0),
    ("func-align=2", "func_align", 2),
    ("func-align=256", "func_align", 256),
    ("preload-code=max", "preload_code", "max"),
    ("preload-code=none", "preload_code", "none"),
    ("early-start=0", "early_start", 0),
    ("early-start=2", "early_start", 2),
    ("split-mode=1", "split_mode", 1),
    ("split-mode=64", "split_mode", 64),
    ("debug-aic-num=12", "debug_aic_num", 12),
    ("debug-aic-num=12:debug-aiv-num=24", "debug_aiv_num", 24),
    ("debug-aic-num=12:debug-aiv-num=12", "debug_aiv_num", 12),
    ("sync-elision=1", "sync_elision", 1),
    ("strict-scope-check=bypass", "strict_scope_check", "bypass"),
])
def test_valid_values(text, field, value):
    assert getattr(parse_options(text), field) == value


@pytest.mark.parametrize("text,culprit,bad,allowed", [
    ("func-align=1", "func-align", "'1'", "power of two"),
    ("func-align=384", "func-align", "'384'", "power of two"),
    ("func-align=-2", "func-align", "'-2'", "power of two"),
    ("preload-code=all", "preload-code", "'all'", "max, none, per-func"),
    ("early-start=3", "early-start", "'3'", "0, 1, 2"),
    ("stream-fusion=yes", "stream-fusion", "'yes'", "0, 1"),
    ("profiling=2", "profiling", "'2'", "0, 1"),
    ("split-mode=0", "split-mode", "'0'", "1 to 64"),
    ("split-mode=65", "split-mode", "'65'", "1 to 64"),
    ("debug-aiv-num=x", "debug-aiv-num", "'x'", ">= 0"),
    ("strict-scope-check=warn", "strict-scope-check", "'warn'", "bypass, abort"),
    ("debug-aic-num=4:debug-aiv-num=6", "debug-aiv-num", "4:6", "1:2"),
])
def test_bad_values_name_option_value_and_allowed(text, culprit, bad, allowed):
    with pytest.raises(SkError) as exc:
        parse_options(text)
    msg = exc.value.paragraph()
    assert culprit in msg and bad in msg and allowed in msg


def test_unknown_key_suggests_nearest():
    with pytest.raises(SkError) as exc:
        parse_options("stream-funsion=1")
    assert "did you mean 'stream-fusion'?" in exc.value.paragraph()


def test_unknown_key_without_near_match_lists_known():
    with pytest.raises(SkError) as exc:
        parse_options("zzz=1")
    msg = exc.value.paragraph()
    assert "did you mean" not in msg and "split-mode" in msg


@pytest.mark.parametrize("text", ["=1", "split-mode=", " = "])
def test_empty_key_or_value(text):
    with pytest.raises(SkError, match="missing a key or a value"):
        parse_options(text)


def test_duplicate_key():
    with pytest.raises(SkError, match="more than once"):
        parse_options("split-mode=2:split-mode=2")


def test_to_json_is_normalised_and_complete():
    data = parse_options("split-mode=2:compile-options=-g").to_json()
    assert set(data["options"]) == set(KNOWN_OPTIONS)
    assert data["options"]["compile-options"] == ["-g"]
    assert data["explicit"] == ["compile-options", "split-mode"]
    json.dumps(data)


def test_cli_prints_json():
    proc = run_sk("options", "stream-fusion=1")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["options"]["stream-fusion"] == 1


def test_cli_error_is_one_paragraph_exit_2():
    proc = run_sk("options", "stream-funsion=1")
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.count("\n") == 1 and "stream-fusion" in proc.stderr


def test_quotes_and_blank_list_entries_as_upstream_strips_them():
    # Upstream: option_string.strip('"'), then the non-blank parts of each list.
    for text in ('"split-mode=2', 'split-mode=2"', '""split-mode=2""', '"split-mode=2"', ' "split-mode=2" '):
        assert parse_options(text).split_mode == 2, text
    o = parse_options("compile-options=,:dcci-before-kernel-start= , :split-mode=2")
    assert o.compile_options == () and o.dcci_before_kernel_start == () and o.split_mode == 2
