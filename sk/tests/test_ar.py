"""sk/binfmt/ar.py: GNU and BSD names, symbol indexes, the duplicate-name rule, and member_names (headers
only) giving exactly what read_members() gives: the same names or the same SkError."""

import os
import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sk.binfmt import ar
from sk.base.errors import SkError


def _outcome(read, path):
    """The member names read gives, or ("error", paragraph) for an SkError."""
    try:
        result = read(path)
    except SkError as err:
        return ("error", err.paragraph())
    return [name for name, _ in result] if read is ar.read_members else result


def _same(path):
    names = _outcome(ar.member_names, path)
    assert names == _outcome(ar.read_members, path)
    return names


def _member(name: bytes, size: bytes) -> bytes:
    return (name.ljust(16) + b"0".ljust(12) + b"0".ljust(6) + b"0".ljust(6) + b"100644".ljust(8) + size.ljust(10)
            + b"`\n")


OURS = [("split_copy_with_a_long_name.o", b"\x7fELF" + b"x" * 101), ("a.o", b"odd"),
        ("another_long_member_name.o", b"y" * 64), ("b.o", b"")]


def test_our_archives_long_and_short_names_odd_sizes(tmp_path):
    path = tmp_path / "ours.a"
    path.write_bytes(ar.pack(OURS))
    assert _same(str(path)) == [name for name, _ in OURS]


def test_headers_past_the_first_read_are_read_too(tmp_path):
    big = [(f"member_number_{i}_of_many.o", bytes([i]) * (ar._HEAD_BYTES // 3 + i)) for i in range(7)]
    path = tmp_path / "big.a"
    path.write_bytes(ar.pack(big))
    assert os.path.getsize(path) > 2 * ar._HEAD_BYTES
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
    assert ar.member_names(str(path), strict=False) is None
    with pytest.raises(SkError, match="not an ar archive"):
        ar.member_names(str(path))
    with pytest.raises(SkError, match="cannot read sub-kernel archive"):
        ar.member_names(str(tmp_path / "missing.a"), strict=False)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_mutated_archives_give_the_same_names_or_error(tmp_path_factory, data):
    raw = bytearray(ar.pack(OURS))
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(raw) - 1))
        raw[at] = data.draw(st.sampled_from(b"0123456789 /-`\n\x00ax"))
    cut = data.draw(st.integers(0, len(raw)))
    path = tmp_path_factory.mktemp("fuzz") / "f.a"
    path.write_bytes(bytes(raw[:cut]))
    _same(str(path))


def _objects(tmp_path, names):
    """Small real objects, each with its own bytes."""
    if not shutil.which("gcc"):
        pytest.skip("needs gcc on PATH")
    paths = []
    for i, name in enumerate(names):
        src = tmp_path / f"src{i}.c"
        src.write_text(f"int f_{i}(void) {{ return {i}; }}\n")
        (tmp_path / f"v{i}").mkdir(exist_ok=True)
        path = tmp_path / f"v{i}" / name
        subprocess.run(["gcc", "-c", str(src), "-o", str(path)], check=True)
        paths.append(path)
    return paths


def test_gnu_long_names_give_each_members_bytes(tmp_path):
    objs = _objects(tmp_path, ["is_inf.o", "a_rather_long_member_name_split1.o"])
    lib = tmp_path / "lib.a"
    subprocess.run(["ar", "rcs", str(lib), *map(str, objs)], check=True)
    assert ar.read_members(str(lib)) == [(p.name, p.read_bytes()) for p in objs]


@pytest.mark.parametrize("names", [["a.o", "a_member_name_longer_than_sixteen.o"],
                                   ["with space.o", "exactly_16_chars.o", "b.o"]])
def test_bsd_archives_names_symbol_index_and_bytes(tmp_path, names):
    """BSD names (#1/N, the name stored before the data, NUL-padded) and the BSD symbol index __.SYMDEF."""
    if not shutil.which("llvm-ar"):
        pytest.skip("needs llvm-ar (for --format=bsd) on PATH")
    objs = _objects(tmp_path, names)
    lib = tmp_path / "bsd.a"
    subprocess.run(["llvm-ar", "rcs", "--format=bsd", str(lib), *map(str, objs)], check=True)
    raw = lib.read_bytes()
    assert b"#1/" in raw and b"__.SYMDEF" in raw  # really the BSD layout, index included
    assert ar.read_members(str(lib)) == [(p.name, p.read_bytes()) for p in objs]
    assert _same(str(lib)) == names


def test_bsd_name_past_the_first_read(tmp_path):
    """member_names reads a BSD name stored beyond the first _HEAD_BYTES with its own read."""
    members = [("pad.o", b"p" * (ar._HEAD_BYTES + 10))]
    raw = ar.pack(members) + _member(b"#1/24", b"30") + b"a_bsd_named_member_xx.o\0" + b"123456"
    path = tmp_path / "mixed.a"
    path.write_bytes(raw)
    assert _same(str(path)) == ["pad.o", "a_bsd_named_member_xx.o"]
    assert ar.read_members(str(path))[1] == ("a_bsd_named_member_xx.o", b"123456")


def test_duplicate_names_are_all_listed_and_looked_up_first(tmp_path):
    """ar keeps both `a.o`s; whole-archive readers see both, a lookup by name gets the first (ld's and `ar p`'s)."""
    first, second = _objects(tmp_path, ["a.o", "a.o"])
    lib = tmp_path / "dup.a"
    subprocess.run(["ar", "q", str(lib), str(first)], check=True)
    subprocess.run(["ar", "q", str(lib), str(second)], check=True)
    members = ar.read_members(str(lib))
    assert [m for m, _ in members] == ar.member_names(str(lib)) == ["a.o", "a.o"]
    assert ar.by_name(members) == {"a.o": first.read_bytes()}
    printed = subprocess.run(["ar", "p", str(lib), "a.o"], check=True, capture_output=True).stdout
    assert printed.startswith(first.read_bytes())  # GNU ar prints every match, the first first


def test_pack_refuses_duplicates():
    with pytest.raises(ValueError, match="duplicate"):
        ar.pack([("a.o", b"1"), ("a.o", b"2")])


@pytest.mark.parametrize("data,match", [
    (b"!<arch>\n" + _member(b"a.o/", b"-60") + b"x" * 100, "member size"),
    (b"!<arch>\n" + _member(b"a.o/", b"") + b"x" * 100, "member size"),
    (b"!<arch>\n" + _member(b"a.o/", b"80") + b"x" * 10, "member data cut short"),
    (b"!<arch>\n" + _member(b"a.o/", b"2") + b"xx" + b"trailing", "member header cut short"),
    (b"!<arch>\n" + _member(b"/99", b"2") + b"xx", "long name"),
    (b"!<arch>\n" + _member(b"#1/zz", b"4") + b"abcd", "BSD long-name length"),
    (b"!<arch>\n" + _member(b"#1/8", b"4") + b"abcd", "BSD long-name length"),
    (b"!<arch>\n" + _member(b"a.o/", b"2")[:-2] + b"``" + b"xx", "member header"),
    (b"\x7fELF not an archive", "not an ar archive"),
])
def test_corrupt_archives_name_the_file_and_the_byte(data, match):
    with pytest.raises(SkError, match=match) as err:
        ar.members(data, "lib.a", "op_list[0].bin_path")
    assert str(err.value).startswith("op_list[0].bin_path: lib.a")
