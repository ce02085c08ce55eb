"""Object reading: symbols, .text size, archives, and the error paths."""

import pytest

from sk import elf
from sk.errors import SkError
from sk.tests.objfactory import make_archive, make_object


def test_object_symbols_and_text_size(tmp_path):
    path = make_object(tmp_path / "k.o", ["k_middle", "other"], text_size=10224)
    info = elf.read_object(path)
    assert info.name == "k.o"
    assert info.defined_functions == ("k_middle", "other")
    assert info.defines("k_middle") and not info.defines("missing")
    assert info.text_size == 10224


def test_undefined_symbols(tmp_path):
    src = tmp_path / "u.s"
    src.write_text(".text\n.globl f\n.type f, @function\nf:\ncall g\n")
    import subprocess
    subprocess.run(["as", "--64", "-o", str(tmp_path / "u.o"), str(src)], check=True)
    info = elf.read_object(str(tmp_path / "u.o"))
    assert info.undefined == ("g",) and info.defined_functions == ("f",)


def test_archive_members_including_long_names(tmp_path):
    a = make_object(tmp_path / "is_inf.o", ["is_inf__kernel0_middle"])
    b = make_object(tmp_path / "a_rather_long_member_name_split1.o", ["x_split1"], text_size=2032)
    ar = make_archive(tmp_path / "lib.a", [a, b])
    objs = elf.read_objects(ar)
    assert sorted(objs) == ["a_rather_long_member_name_split1.o", "is_inf.o"]
    assert objs["a_rather_long_member_name_split1.o"].defined_functions == ("x_split1",)
    assert objs["a_rather_long_member_name_split1.o"].text_size == 2032


def test_read_objects_on_plain_object(tmp_path):
    path = make_object(tmp_path / "k.o", ["k"])
    assert list(elf.read_objects(path)) == ["k.o"]


def test_not_elf(tmp_path):
    p = tmp_path / "x.o"
    p.write_text("hello")
    with pytest.raises(SkError, match="not an ELF object"):
        elf.read_object(str(p))


def test_truncated(tmp_path):
    data = open(make_object(tmp_path / "k.o", ["k"]), "rb").read()
    p = tmp_path / "cut.o"
    p.write_bytes(data[:200])
    with pytest.raises(SkError, match="truncated or corrupt"):
        elf.read_object(str(p))


def test_wrong_class(tmp_path):
    data = bytearray(open(make_object(tmp_path / "k.o", ["k"]), "rb").read())
    data[4] = 1
    p = tmp_path / "k32.o"
    p.write_bytes(bytes(data))
    with pytest.raises(SkError, match="wrong ELF class"):
        elf.read_object(str(p))


def test_missing_file_names_only_basename(tmp_path):
    with pytest.raises(SkError) as exc:
        elf.read_object(str(tmp_path / "nope.o"), where="op_list[0].bin_path")
    assert "nope.o" in str(exc.value) and str(tmp_path) not in str(exc.value)


def test_truncated_archive(tmp_path):
    a = make_object(tmp_path / "k.o", ["k"])
    data = open(make_archive(tmp_path / "lib.a", [a]), "rb").read()
    with pytest.raises(SkError, match="truncated ar archive"):
        elf.parse_archive(data[:-100], "lib.a")


def test_archive_given_where_object_expected(tmp_path):
    ar = make_archive(tmp_path / "lib.a", [make_object(tmp_path / "k.o", ["k"])])
    with pytest.raises(SkError, match="found an ar archive"):
        elf.read_object(ar)
