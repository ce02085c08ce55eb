"""Object reading: symbols, .text size, archives, and the error paths."""

import dataclasses

import pytest

from sk.binfmt import elf
from sk.base.errors import SkError
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


def _pyelftools_reference(data):
    """What parse_object reported when it read objects through pyelftools (the slow, trusted path)."""
    import io

    from elftools.elf.elffile import ELFFile
    from elftools.elf.sections import SymbolTableSection

    funcs, defined, undefined, text = set(), set(), set(), 0
    for section in ELFFile(io.BytesIO(data)).iter_sections():
        if section.name == ".text" or section.name.startswith(".text."):
            text += section["sh_size"]
        if not isinstance(section, SymbolTableSection):
            continue
        for sym in section.iter_symbols():
            if not sym.name:
                continue
            if sym["st_shndx"] == "SHN_UNDEF":
                undefined.add(sym.name)
            elif sym["st_info"]["bind"] in ("STB_GLOBAL", "STB_WEAK"):
                defined.add(sym.name)
                if sym["st_info"]["type"] == "STT_FUNC":
                    funcs.add(sym.name)
    return tuple(sorted(funcs)), tuple(sorted(defined)), tuple(sorted(undefined - defined)), text


CXX_SAMPLE = """
#include <cstring>
extern int ext_counter;
int global_data = 3;
static int local_helper(int x) { return x * 7; }
inline int comdat_inline(int x) { return x + global_data; }
__attribute__((weak)) int weak_fn(int x) { return x - 1; }
template <int N> int tmpl(int x) { return x * N; }
extern "C" int undefined_call(int);
extern "C" int entry_a(char* p, int n) {
    std::memset(p, 0, n);
    return local_helper(n) + comdat_inline(n) + weak_fn(n) + tmpl<3>(n) + undefined_call(n) + ext_counter;
}
extern "C" __attribute__((section(".text.hot_path"))) int entry_b(int n) { return tmpl<5>(n); }
"""


@pytest.mark.parametrize("flags", [["-O0"], ["-O2", "-ffunction-sections"], ["-O2", "-fPIC", "-g"]])
def test_struct_reader_matches_pyelftools(tmp_path, flags):
    import shutil
    import subprocess

    if not shutil.which("g++"):
        pytest.skip("g++ not on PATH")
    src = tmp_path / "s.cpp"
    src.write_text(CXX_SAMPLE)
    obj = tmp_path / "s.o"
    subprocess.run(["g++", "-c", *flags, str(src), "-o", str(obj)], check=True)
    data = obj.read_bytes()
    info = elf.parse_object(data, "s.o")
    got = (info.defined_functions, info.defined_symbols, info.undefined, info.text_size)
    assert got == _pyelftools_reference(data)
    assert "entry_a" in info.defined_functions and "global_data" in info.defined_symbols
    assert "undefined_call" in info.undefined and "local_helper" not in str(got)


def test_struct_reader_matches_pyelftools_on_assembled_objects(tmp_path):
    data = open(make_object(tmp_path / "k.o", ["k_middle", "k_middle_split1"], text_size=777), "rb").read()
    info = elf.parse_object(data, "k.o")
    assert (info.defined_functions, info.defined_symbols, info.undefined, info.text_size) == \
        _pyelftools_reference(data)


def test_section_data_past_the_end(tmp_path):
    import struct

    data = bytearray(open(make_object(tmp_path / "k.o", ["k"]), "rb").read())
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum, _ = struct.unpack_from("<HHH", data, 0x3A)
    for k in range(shnum):  # point the symbol table's data beyond the file
        if struct.unpack_from("<I", data, shoff + k * shentsize + 4)[0] == 2:
            struct.pack_into("<Q", data, shoff + k * shentsize + 24, len(data) + 4096)
    with pytest.raises(SkError, match="truncated or corrupt"):
        elf.parse_object(bytes(data), "k.o")


def _symtab_header(data):
    """Offset of the SHT_SYMTAB section header and the symbol table's (offset, entry count)."""
    import struct

    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum, _ = struct.unpack_from("<HHH", data, 0x3A)
    for k in range(shnum):
        at = shoff + k * shentsize
        if struct.unpack_from("<I", data, at + 4)[0] == 2:
            offset, size = struct.unpack_from("<QQ", data, at + 24)
            return at, offset, size // 24
    raise AssertionError("no symbol table")


def _assembled_with_locals(tmp_path):
    src = tmp_path / "l.s"
    src.write_text(".text\nloc1:\nret\nloc2:\nret\n.globl f\n.type f, @function\nf:\ncall g\nret\n"
                   ".weak w\nw:\nret\n.data\n.globl d\nd: .long 1\n")
    import subprocess

    subprocess.run(["as", "--64", "-o", str(tmp_path / "l.o"), str(src)], check=True)
    return bytearray((tmp_path / "l.o").read_bytes())


def test_symbol_table_that_breaks_locals_first_is_read_whole(tmp_path):
    import struct

    data = _assembled_with_locals(tmp_path)
    header, _, count = _symtab_header(data)
    struct.pack_into("<I", data, header + 44, count)  # sh_info claims every entry is local
    info = elf.parse_object(bytes(data), "l.o")
    assert info.defined_symbols == ("d", "f", "w") and info.undefined == ("g",)
    assert (info.defined_functions, info.defined_symbols, info.undefined, info.text_size) == \
        _pyelftools_reference(bytes(data))


def test_undefined_local_below_sh_info_is_still_reported(tmp_path):
    import struct

    data = _assembled_with_locals(tmp_path)
    header, offset, count = _symtab_header(data)
    first_global = struct.unpack_from("<I", data, header + 44)[0]
    named_locals = [k for k in range(1, first_global) if struct.unpack_from("<I", data, offset + 24 * k)[0]]
    struct.pack_into("<H", data, offset + 24 * named_locals[0] + 6, 0)  # a named local becomes undefined
    info = elf.parse_object(bytes(data), "l.o")
    assert (info.defined_functions, info.defined_symbols, info.undefined, info.text_size) == \
        _pyelftools_reference(bytes(data))
    assert len(info.undefined) == 2


def _facts_archive(tmp_path):
    a = make_object(tmp_path / "k.o", ["k_middle", "helper"], text_size=4096)
    b = make_object(tmp_path / "k_split1.o", ["k_middle_split1"], text_size=4096)
    path = make_archive(tmp_path / "k.a", [a, b])
    with open(path, "rb") as f:
        return f.read()


def test_archive_facts_give_what_parsing_gives(tmp_path):
    data = _facts_archive(tmp_path)
    facts = elf.archive_facts(data, "k.a")
    assert list(facts["members"]) == ["k.o", "k_split1.o"]
    known = elf.objects_from_facts(facts, data)
    parsed = {m: elf.parse_object(body, m) for m, body in elf.parse_archive(data, "k.a").items()}
    # Everything but the undefined symbols, which gen does not use and the facts leave out.
    assert known == {m: dataclasses.replace(info, undefined=None) for m, info in parsed.items()}
    assert known["k.o"].defined_functions == ("helper", "k_middle") and known["k.o"].text_size == 4096


def test_archive_facts_are_json_round_trip_safe(tmp_path):
    import json

    data = _facts_archive(tmp_path)
    facts = json.loads(json.dumps(elf.archive_facts(data, "k.a")))
    assert elf.objects_from_facts(facts, data) == elf.objects_from_facts(elf.archive_facts(data, "k.a"), data)


@pytest.mark.parametrize("spoil", ["bytes", "format", "sha", "members", "member", "list", "size", "bool_size",
                                   "not_dict"])
def test_facts_that_do_not_describe_the_bytes_are_ignored(tmp_path, spoil):
    data = _facts_archive(tmp_path)
    facts = elf.archive_facts(data, "k.a")
    if spoil == "bytes":
        data = data[:-1] + bytes([data[-1] ^ 1])
    elif spoil == "format":
        facts["format"] = elf.FACTS_FORMAT + 1
    elif spoil == "sha":
        facts["sha256"] = "0" * 64
    elif spoil == "members":
        facts["members"] = ["k.o"]
    elif spoil == "member":
        facts["members"]["k.o"] = "k_middle"
    elif spoil == "list":
        facts["members"]["k.o"]["symbols"] = "k_middle"
    elif spoil == "size":
        facts["members"]["k.o"]["text_size"] = "4096"
    elif spoil == "bool_size":
        facts["members"]["k.o"]["text_size"] = True
    else:
        facts = "facts"
    assert elf.objects_from_facts(facts, data) is None
