"""arfile.member_names (headers only) gives exactly what members() gives: the same names or the same SkError."""

import os
import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sk.binfmt import arfile
from sk.base.errors import SkError


def _outcome(read, path):
    """The member names read gives, or ("error", paragraph) for an SkError."""
    try:
        result = read(path)
    except SkError as err:
        return ("error", err.paragraph())
    return [name for name, _ in result] if read is arfile.members else result


def _same(path):
    names = _outcome(arfile.member_names, path)
    assert names == _outcome(arfile.members, path)
    return names


def _member(name: bytes, size: bytes) -> bytes:
    return (name.ljust(16) + b"0".ljust(12) + b"0".ljust(6) + b"0".ljust(6) + b"100644".ljust(8) + size.ljust(10)
            + b"`\n")


OURS = [("split_copy_with_a_long_name.o", b"\x7fELF" + b"x" * 101), ("a.o", b"odd"),
        ("another_long_member_name.o", b"y" * 64), ("b.o", b"")]


def test_our_archives_long_and_short_names_odd_sizes(tmp_path):
    path = tmp_path / "ours.a"
    path.write_bytes(arfile.pack(OURS))
    assert _same(str(path)) == [name for name, _ in OURS]


def test_headers_past_the_first_read_are_read_too(tmp_path):
    big = [(f"member_number_{i}_of_many.o", bytes([i]) * (arfile._HEAD_BYTES // 3 + i)) for i in range(7)]
    path = tmp_path / "big.a"
    path.write_bytes(arfile.pack(big))
    assert os.path.getsize(path) > 2 * arfile._HEAD_BYTES
    assert _same(str(path)) == [name for name, _ in big]


def test_gnu_ar_archives_with_symbol_index_and_long_names(tmp_path):
    if not (shutil.which("ar") and shutil.which("gcc")):
        pytest.skip("needs ar and gcc on PATH")
    objs = []
    for name in ("short.o", "a_member_name_longer_than_fifteen.o"):
        src = tmp_path / (name[:-2] + ".c")
        src.write_text(f"int f_{len(name)}(void) {{ return {len(name)}; }}\n")
        subprocess.run(["gcc", "-c", str(src), "-o", str(tmp_path / name)], check=True)
        objs.append(str(tmp_path / name))
    for flags in ("rcs", "rcS", "rcsT"):  # with/without the symbol index "/"; thin archives are no ar
        lib = tmp_path / f"lib_{flags}.a"
        subprocess.run(["ar", flags, str(lib), *objs], check=True)
        names = _same(str(lib))
        if flags != "rcsT":
            assert names == ["short.o", "a_member_name_longer_than_fifteen.o"]


@pytest.mark.parametrize("data", [
    b"!<arch>\n" + _member(b"a.o/", b"-60") + b"x" * 100,
    b"!<arch>\n" + _member(b"a.o/", b"1_0") + b"x" * 100,
    b"!<arch>\n" + _member(b"a.o/", b"\x1c12") + b"x" * 100,  # str.strip() strips \x1c, bytes.strip() not
    b"!<arch>\n" + _member(b"a.o/", b"") + b"x" * 100,  # an empty size field is 0
    b"!<arch>\n" + _member(b"a.o/", b"80") + b"x" * 10,
    b"!<arch>\n" + _member(b"/99", b"2") + b"xx",
    b"!<arch>\n" + _member(b"a.o/", b"2")[:-2] + b"``" + b"xx",
    b"!<arch>\n" + _member("\u00e4.o/".encode(), b"2") + b"xx\n",
    b"!<arch>\n" + _member(b"a.o/", b"2") + b"xx" + b"trailing bytes",
    b"!<arch>\n",
    b"not an archive at all",
    b"",
])
def test_odd_and_corrupt_archives(tmp_path, data):
    path = tmp_path / "odd.a"
    path.write_bytes(data)
    _same(str(path))


def test_not_an_archive_is_none_unless_strict(tmp_path):
    path = tmp_path / "plain.o"
    path.write_bytes(b"\x7fELF plain object")
    assert arfile.member_names(str(path), strict=False) is None
    with pytest.raises(SkError, match="not an ar archive"):
        arfile.member_names(str(path))
    with pytest.raises(SkError, match="cannot read sub-kernel archive"):
        arfile.member_names(str(tmp_path / "missing.a"), strict=False)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_mutated_archives_give_the_same_names_or_error(tmp_path_factory, data):
    raw = bytearray(arfile.pack(OURS))
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(raw) - 1))
        raw[at] = data.draw(st.sampled_from(b"0123456789 /-`\n\x00ax"))
    cut = data.draw(st.integers(0, len(raw)))
    path = tmp_path_factory.mktemp("fuzz") / "f.a"
    path.write_bytes(bytes(raw[:cut]))
    _same(str(path))
