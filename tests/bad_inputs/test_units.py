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


# ---------------------------------------------------------------- issue 24: ranges, limits, input files

def _load_with(tmp_path, which, mutate):
    from badinputs import edit_json
    from sk.engine.subop import load_kernel_infos

    ki = fusion(tmp_path / "in", ops=[("a", {}, {"send_event_list": [5]}), ("b", {}, {"recv_event_list": [5]})],
                options="stream-fusion=1")
    edit_json(ki if which == "ki" else str(tmp_path / "in" / f"{which}.json"), mutate)
    return load_kernel_infos(ki)


@pytest.mark.parametrize("which,field,at_edge,past", [
    ("a", "blockDim", 2 ** 32 - 1, 2 ** 32),
    ("a", "debugBufSize", 2 ** 64 - 1, 2 ** 64),
    ("ki", "send_event_list", 2 ** 31 - 1, 2 ** 31),
    ("ki", "stream_id", 2 ** 31 - 1, 2 ** 31),
])
def test_numbers_at_their_types_edge_load_and_one_past_is_refused_naming_the_field(tmp_path, which, field,
                                                                                    at_edge, past):
    def setter(value):
        def mutate(doc):
            if which != "ki":
                doc[field] = value
            elif field == "send_event_list":
                doc["op_list"][0]["send_event_list"] = [value]
                doc["op_list"][1]["recv_event_list"] = [value]
            else:
                doc["op_list"][1][field] = value
        return mutate

    infos = _load_with(tmp_path / "edge", which, setter(at_edge))
    assert infos.ops
    with pytest.raises(SkError) as err:
        _load_with(tmp_path / "past", which, setter(past))
    assert field in err.value.where and "out of range" in err.value.what and str(past) in err.value.paragraph()


def test_a_tiling_key_at_the_uint64_edge_loads_and_one_past_is_refused(tmp_path):
    from sk.engine.subop import load_kernel_infos
    from badinputs import edit_json

    def table(key):
        return lambda doc: doc["sub_operator_kernel_name"].update(dynamic_func_names={key: {
            "kernel_type": "KERNEL_TYPE_AIC_ONLY", "AiCore": "a__kernel0_middle"}})

    for key, ok in ((str(2 ** 64 - 1), True), ("000" + str(2 ** 64 - 1), True), (str(2 ** 64), False),
                    ("9" * 5000, False)):
        root = tmp_path / key[:30]
        ki = fusion(root, ops=[("a", {}, {"task_type": "dynamic"})])
        edit_json(str(root / "a.json"), table(key))
        if ok:
            assert load_kernel_infos(ki).ops[0].dynamic_keys[0].tiling_key == 2 ** 64 - 1
        else:
            with pytest.raises(SkError, match="tiling key is out of range"):
                load_kernel_infos(ki)


def test_the_stated_nesting_limit_is_the_enforced_one_and_huge_numbers_are_syntax_errors():
    assert jsonload.loads("[" * jsonload.MAX_DEPTH + "]" * jsonload.MAX_DEPTH) == \
        json.loads("[" * jsonload.MAX_DEPTH + "]" * jsonload.MAX_DEPTH)
    for depth in (jsonload.MAX_DEPTH + 1, 900):
        with pytest.raises(json.JSONDecodeError, match=f"deeper than {jsonload.MAX_DEPTH}"):
            jsonload.loads('{"a": ' + "[" * depth + "]" * depth + "}")
    with pytest.raises(json.JSONDecodeError, match="too many digits"):
        jsonload.loads('{"a": ' + "1" * 5000 + "}")
    # Our own limit, the same on every Python (3.9 converts any length).
    assert jsonload.loads("[" + "1" * jsonload.MAX_NUMBER_CHARS + "]") == [int("1" * jsonload.MAX_NUMBER_CHARS)]
    for literal in ("1" * (jsonload.MAX_NUMBER_CHARS + 1), "0." + "5" * jsonload.MAX_NUMBER_CHARS):
        with pytest.raises(json.JSONDecodeError, match="too many digits") as err:
            jsonload.loads('{"a": 1,\n "b": ' + literal + "}")
        assert err.value.lineno == 2


def test_input_files_are_regular_files_under_a_cap(tmp_path):
    from sk.base import infile

    (tmp_path / "f").write_bytes(b"12345")
    assert infile.read_bytes(str(tmp_path / "f"), 5) == b"12345"
    with pytest.raises(infile.NotReadable, match="over the limit of 4 bytes"):
        infile.read_bytes(str(tmp_path / "f"), 4)
    os.mkfifo(tmp_path / "fifo")
    for path, kind in ((str(tmp_path / "fifo"), "FIFO"), ("/dev/zero", "character device"),
                       (str(tmp_path), "directory")):
        with pytest.raises(infile.NotReadable, match=kind):
            infile.read_bytes(path, 1 << 20)
    with pytest.raises(FileNotFoundError):
        infile.read_bytes(str(tmp_path / "missing"), 10)


def test_an_elf_without_its_section_name_table_is_refused_not_read_as_text_size_0(tmp_path):
    from badinputs import make_object
    from sk.binfmt import elf

    data = bytearray(open(make_object(tmp_path / "k.o", ["k"], 64), "rb").read())
    assert elf.parse(bytes(data), "k.o").text_size >= 64
    data[62:64] = (0x7FF0).to_bytes(2, "little")
    with pytest.raises(SkError, match="e_shstrndx 32752 names no section"):
        elf.parse(bytes(data), "k.o")
