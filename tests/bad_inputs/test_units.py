"""Unit tests of the hardening fixes that the CLI catalog reaches only indirectly."""

from __future__ import annotations

import json
import os

import pytest

from badinputs import fusion
from sk.binfmt import ar
from sk.base import jsonload
from sk.base.errors import MAX_VALUE_CHARS, SkError


def _member(name: bytes, size: bytes) -> bytes:
    return (name.ljust(16) + b"0".ljust(12) + b"0".ljust(6) + b"0".ljust(6) + b"100644".ljust(8) + size.ljust(10)
            + b"`\n")


@pytest.mark.parametrize("data,match", [
    (b"!<arch>\n" + _member(b"a.o/", b"-60") + b"x" * 100, "member size"),  # used to loop forever
    (b"!<arch>\n" + _member(b"a.o/", b"1_0") + b"x" * 100, "member size"),
    (b"!<arch>\n" + _member(b"a.o/", b"80") + b"x" * 10, "cut short"),
    (b"!<arch>\n" + _member(b"/99", b"2") + b"xx", "long name"),
])
def test_ar_read_members_rejects_corrupt_archives(tmp_path, data, match):
    path = tmp_path / "lib.a"
    path.write_bytes(data)
    with pytest.raises(SkError, match=match):
        ar.read_members(str(path))


@pytest.mark.parametrize("name,size,match", [
    (b"#1/zz", b"4", "BSD long-name length"),
    (b"#1/8", b"4", "BSD long-name length"),
    (b"a.o/", b"+4", "member size"),
])
def test_ar_members_rejects_bad_headers(name, size, match):
    with pytest.raises(SkError, match=match):
        ar.members(b"!<arch>\n" + _member(name, size) + b"abcd", "lib.a")


def test_jsonload_duplicate_key_points_at_the_second_one():
    text = '{"op_list": [\n  {"a": 1, "b": 2},\n  {"a": 1, "b": 2, "a": 3}\n]}'
    with pytest.raises(json.JSONDecodeError) as err:
        jsonload.loads(text)
    assert "'a' appears twice" in err.value.msg
    assert (err.value.lineno, err.value.colno) == (3, 20)


def test_jsonload_depth_and_plain_documents():
    with pytest.raises(json.JSONDecodeError, match="nested deeper than"):
        jsonload.loads("[" * 50000 + "]" * 50000)
    doc = {"k": [{"k": 1}, {"k": "\"{[,:"}], "x": {"k": None}}
    assert jsonload.loads(json.dumps(doc)) == doc


def test_long_values_and_places_are_clipped_in_messages():
    text = SkError("bad", where="w" * 5000, value="v" * 5000, allowed="fix it").paragraph()
    assert len(text) < 2 * MAX_VALUE_CHARS + 300
    assert "characters in all" in text and text.endswith("Fix it.")


def test_one_kernel_used_by_two_ops_is_not_a_symbol_clash(tmp_path):
    from sk.engine.plan import build_plan
    from sk.engine.subop import load_kernel_infos

    ki = fusion(tmp_path, ops=[("a", {}, {}), ("b", {}, {}), ("a", {}, {})])
    plan = build_plan(load_kernel_infos(ki))
    assert [op["kernel_name"] for op in plan.ops] == ["a__kernel0", "b__kernel0", "a__kernel0"]


def test_two_streams_may_list_a_receiver_before_its_sender(tmp_path):
    """Upstream's two-stream golden does it; only a cycle is a deadlock."""
    from sk.engine.plan import build_plan
    from sk.engine.subop import load_kernel_infos

    ki = fusion(tmp_path, options="stream-fusion=1", ops=[
        ("a", {}, {"send_event_list": [100]}), ("b", {}, {"stream_id": 1, "recv_event_list": [100, 101]}),
        ("c", {}, {"send_event_list": [101]}), ("d", {}, {"stream_id": 1})])
    assert build_plan(load_kernel_infos(ki)).mode == "two_stream"
    assert os.path.exists(ki)
