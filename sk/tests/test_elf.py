"""sk/binfmt/elf.py through the ObjectInfo it feeds: symbols, section sizes, both ELF classes, the error paths,
and agreement with pyelftools (an independent reader, test-only) on compiled and tampered objects."""

import io
import os
import shutil
import struct
import subprocess

import pytest

from sk.base.errors import SkError
from sk.binfmt import elf, objfacts
from sk.tests.objfactory import make_archive, make_object


def _sub_kernel(path):
    """An object as the engine reads it (sk/engine/subop.py)."""
    return objfacts.read_object(str(path), name=os.path.basename(path), sub_kernel=True)


def _undefined(info):
    return tuple(sorted({s.name for s in info.undefined()}))


def test_object_symbols_and_text_size(tmp_path):
    info = _sub_kernel(make_object(tmp_path / "k.o", ["k_middle", "other"], text_size=10224))
    assert info.name == "k.o"
    assert info.defined_functions == ("k_middle", "other")
    assert info.defines("k_middle") and not info.defines("missing")
    assert info.text_size == 10224 and info.exec_size == 10224


def test_undefined_symbols(tmp_path):
    src = tmp_path / "u.s"
    src.write_text(".text\n.globl f\n.type f, @function\nf:\ncall g\n")
    subprocess.run(["as", "--64", "-o", str(tmp_path / "u.o"), str(src)], check=True)
    info = _sub_kernel(tmp_path / "u.o")
    assert _undefined(info) == ("g",) and info.defined_functions == ("f",)


def test_not_elf(tmp_path):
    p = tmp_path / "x.o"
    p.write_text("hello")
    with pytest.raises(SkError, match="not an ELF object"):
        _sub_kernel(p)


def test_truncated(tmp_path):
    data = open(make_object(tmp_path / "k.o", ["k"]), "rb").read()
    p = tmp_path / "cut.o"
    p.write_bytes(data[:200])
    with pytest.raises(SkError, match="truncated or corrupt"):
        _sub_kernel(p)


def test_wrong_class_for_a_sub_kernel(tmp_path):
    data = bytearray(open(make_object(tmp_path / "k.o", ["k"]), "rb").read())
    data[4] = 1
    p = tmp_path / "k32.o"
    p.write_bytes(bytes(data))
    with pytest.raises(SkError, match="wrong ELF class"):
        _sub_kernel(p)


def test_missing_file_names_only_basename(tmp_path):
    with pytest.raises(SkError) as exc:
        objfacts.read_file(str(tmp_path / "nope.o"), where="op_list[0].bin_path")
    assert "nope.o" in str(exc.value) and str(tmp_path) not in str(exc.value)


def test_archive_given_where_object_expected(tmp_path):
    lib = make_archive(tmp_path / "lib.a", [make_object(tmp_path / "k.o", ["k"])])
    with pytest.raises(SkError, match="found an ar archive"):
        _sub_kernel(lib)


def _pyelftools_reference(data):
    """(functions, global/weak symbols, undefined non-locals, first .text-named section's bytes, executable
    bytes) read by pyelftools."""
    from elftools.elf.elffile import ELFFile
    from elftools.elf.sections import SymbolTableSection

    funcs, defined, undefined, text, code = set(), set(), set(), None, 0
    for section in ELFFile(io.BytesIO(data)).iter_sections():
        if text is None and ".text" in section.name:
            text = section["sh_size"]
        if section["sh_type"] == "SHT_PROGBITS" and section["sh_flags"] & 0x4:
            code += section["sh_size"]
        if not isinstance(section, SymbolTableSection) or section["sh_type"] != "SHT_SYMTAB":
            continue
        for sym in section.iter_symbols():
            if not sym.name or sym["st_info"]["bind"] == "STB_LOCAL":
                continue
            if sym["st_shndx"] == "SHN_UNDEF":
                undefined.add(sym.name)
            elif sym["st_info"]["bind"] in ("STB_GLOBAL", "STB_WEAK"):
                defined.add(sym.name)
                if sym["st_info"]["type"] == "STT_FUNC":
                    funcs.add(sym.name)
    return tuple(sorted(funcs)), tuple(sorted(defined)), tuple(sorted(undefined)), text, code


def _ours(data, name="s.o"):
    info = objfacts.object_info(bytes(data), name)
    return info.defined_functions, info.defined_symbols, _undefined(info), info.text_size, info.exec_size


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


def _compile(tmp_path, source, flags, out="s.o"):
    if not shutil.which("g++"):
        pytest.skip("g++ not on PATH")
    src = tmp_path / "s.cpp"
    src.write_text(source)
    obj = tmp_path / out
    subprocess.run(["g++", *flags, str(src), "-o", str(obj)], check=True)
    return obj


@pytest.mark.parametrize("flags", [["-O0"], ["-O2", "-ffunction-sections"], ["-O2", "-fPIC", "-g"]])
def test_struct_reader_matches_pyelftools(tmp_path, flags):
    data = _compile(tmp_path, CXX_SAMPLE, ["-c", *flags]).read_bytes()
    got = _ours(data)
    assert got == _pyelftools_reference(data)
    funcs, defined, undefined, _, _ = got
    assert "entry_a" in funcs and "global_data" in defined
    assert "undefined_call" in undefined and "local_helper" not in str(got)


def test_struct_reader_matches_pyelftools_on_assembled_objects(tmp_path):
    data = open(make_object(tmp_path / "k.o", ["k_middle", "k_middle_split1"], text_size=777), "rb").read()
    assert _ours(data, "k.o") == _pyelftools_reference(data)


def test_section_data_past_the_end(tmp_path):
    data = bytearray(open(make_object(tmp_path / "k.o", ["k"]), "rb").read())
    header, _, _ = _symtab_header(data)
    struct.pack_into("<Q", data, header + 24, len(data) + 4096)  # the symbol table's data beyond the file
    with pytest.raises(SkError, match="truncated or corrupt"):
        objfacts.object_info(bytes(data), "k.o")


def test_string_offset_outside_its_table_is_a_clear_error_when_symbols_are_read(tmp_path):
    data = _assembled_with_locals(tmp_path)
    header, offset, count = _symtab_header(data)
    struct.pack_into("<I", data, offset + 24 * (count - 1), 1 << 30)  # the last (global) symbol's name
    info = objfacts.object_info(bytes(data), "l.o", "op_list[0].bin_path")
    for read in (lambda: info.defined_symbols, info.defined_globals):
        with pytest.raises(SkError, match="op_list.0..bin_path: truncated or corrupt ELF object .string offset"):
            read()


def _symtab_header(data):
    """Offset of the SHT_SYMTAB section header and the symbol table's (offset, entry count)."""
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum, _ = struct.unpack_from("<HHH", data, 0x3A)
    for k in range(shnum):
        at = shoff + k * shentsize
        if struct.unpack_from("<I", data, at + 4)[0] == 2:
            offset, size = struct.unpack_from("<QQ", data, at + 24)
            return at, offset, size // 24
    raise AssertionError("no symbol table")


def _assembled_with_locals(tmp_path, *flags):
    src = tmp_path / "l.s"
    src.write_text(".text\nloc1:\nret\nloc2:\nret\n.globl f\n.type f, @function\nf:\ncall g\nret\n"
                   ".weak w\nw:\nret\n.data\n.globl d\nd: .long 1\n")
    out = tmp_path / ("l32.o" if "--32" in flags else "l.o")
    subprocess.run(["as", *(flags or ["--64"]), "-o", str(out), str(src)], check=True)
    return bytearray(out.read_bytes())


def test_symbol_table_that_breaks_locals_first_is_read_whole(tmp_path):
    data = _assembled_with_locals(tmp_path)
    header, _, count = _symtab_header(data)
    struct.pack_into("<I", data, header + 44, count)  # sh_info claims every entry is local
    info = objfacts.object_info(bytes(data), "l.o")
    assert info.defined_symbols == ("d", "f", "w") and _undefined(info) == ("g",)
    assert [s.name for s in info.defined_globals()] == ["f", "w", "d"]
    assert _ours(data, "l.o") == _pyelftools_reference(bytes(data))


def test_undefined_local_is_not_reported(tmp_path):
    """A link resolves only non-local symbols; a local made undefined is nobody's to provide."""
    data = _assembled_with_locals(tmp_path)
    header, offset, count = _symtab_header(data)
    first_global = struct.unpack_from("<I", data, header + 44)[0]
    named_locals = [k for k in range(1, first_global) if struct.unpack_from("<I", data, offset + 24 * k)[0]]
    struct.pack_into("<H", data, offset + 24 * named_locals[0] + 6, 0)  # a named local becomes undefined
    assert _ours(data, "l.o") == _pyelftools_reference(bytes(data))
    assert _undefined(objfacts.object_info(bytes(data), "l.o")) == ("g",)


@pytest.mark.parametrize("flags", [["--64"], ["--32"]])
def test_elf64_and_elf32_for_the_link(tmp_path, flags):
    info = objfacts.object_info(bytes(_assembled_with_locals(tmp_path, *flags)), "l.o")
    assert [s.name for s in info.defined_globals()] == ["f", "w", "d"]
    assert [(s.name, s.bind) for s in info.undefined()] == [("g", "GLOBAL")]
    assert info.exec_size == 9  # ret, ret, call (5 bytes), ret, ret
    assert {"loc1", "loc2"} <= {s.name for s in info.symbols if not s.is_global}
    assert info.group_count == 0


SRC = """
static int local_fn(int x) { return x * 3; }
inline int comdat_fn(int x) { return x + 1; }
__attribute__((weak)) int weak_fn(int x) { return x - 1; }
int data_obj = 7;
extern int missing_data;
extern "C" int missing_fn(int);
extern "C" int entry(int x) { return local_fn(x) + comdat_fn(x) + weak_fn(x) + missing_fn(x) + missing_data; }
"""


@pytest.mark.parametrize("shared", [False, True])
def test_filtered_views_match_the_full_table(tmp_path, shared):
    path = _compile(tmp_path, SRC, ["-O1", "-fPIC", "-shared" if shared else "-c"], "s.so" if shared else "s.o")
    info = objfacts.read_object(str(path))
    full = info.symbols
    assert full and all(isinstance(s, elf.Symbol) for s in full)
    want_defined = [s for s in full if s.is_global and s.defined and s.type not in ("FILE", "SECTION")]
    want_undefined = [s for s in full if s.is_global and not s.defined and s.name]
    assert info.defined_globals() == want_defined
    assert info.undefined() == want_undefined
    names = {s.name for s in info.defined_globals()}
    assert {"entry", "data_obj", "_Z7weak_fni"} <= names
    assert {"missing_fn", "missing_data"} <= {s.name for s in info.undefined()}
    assert objfacts.provided_symbols(str(path)) == names


def test_locals_stay_in_the_full_table(tmp_path):
    info = objfacts.read_object(str(_compile(tmp_path, SRC, ["-O0", "-c"])))  # -O0 keeps local_fn out of line
    locals_ = [s for s in info.symbols if not s.is_global]
    assert any(s.type == "FILE" for s in locals_)
    assert "_ZL8local_fni" in {s.name for s in locals_}
    assert not any(s.name == "_ZL8local_fni" for s in info.defined_globals())


def test_comdat_groups_are_counted(tmp_path):
    info = objfacts.read_object(str(_compile(tmp_path, SRC, ["-O0", "-c"])))  # comdat_fn out of line: a group
    assert info.group_count >= 1


def test_not_elf_and_truncated_are_user_errors(tmp_path):
    data = bytes(_assembled_with_locals(tmp_path))
    for bad, match in ((b"hello world", "not an ELF object"), (data[:40], "truncated or corrupt"),
                       (data[:len(data) // 2], "truncated or corrupt")):
        with pytest.raises(SkError, match=match):
            objfacts.read_object("bad.o", data=bad).defined_globals()


UNIQUE_SRC = """
inline thread_local int g_task_id;
struct Counter { static int next() { static int n; return ++n; } };
int use() { g_task_id = Counter::next(); return g_task_id; }
"""


def test_unique_symbols_become_global_and_nothing_else_changes(tmp_path):
    obj = _compile(tmp_path, UNIQUE_SRC, ["-c", "-O2", "-fPIC"])
    data = obj.read_bytes()
    before = objfacts.object_info(data, "s.o").symbols
    unique = {s.name for s in before if s.bind == "UNIQUE"}
    if not unique:
        pytest.skip("this compiler binds no symbol STB_GNU_UNIQUE")
    assert unique == {"g_task_id", "_ZZN7Counter4nextEvE1n"}
    patched = elf.unique_as_global(data, "s.o")
    assert isinstance(patched, bytearray) and len(patched) == len(data)
    after = objfacts.object_info(bytes(patched), "s.o").symbols
    assert [s._replace(bind="UNIQUE") if s.name in unique else s for s in after] == list(before)
    assert all(s.bind == "GLOBAL" for s in after if s.name in unique)
    # Only st_info bytes of those symbols differ.
    assert sum(a != b for a, b in zip(data, patched)) == len(unique)
    # GNU objcopy now localises them (it leaves a unique symbol global without a word).
    if shutil.which("objcopy"):
        src, dst, names = tmp_path / "p.o", tmp_path / "l.o", tmp_path / "names.txt"
        src.write_bytes(patched)
        names.write_text("".join(f"{n}\n" for n in sorted(unique)))
        subprocess.run(["objcopy", f"--localize-symbols={names}", str(src), str(dst)], check=True)
        assert not {s.name for s in objfacts.read_object(str(dst)).defined_globals()} & unique


def test_an_object_without_unique_symbols_is_returned_as_it_is(tmp_path):
    data = _compile(tmp_path, SRC, ["-c", "-O1"]).read_bytes()
    assert elf.unique_as_global(data, "s.o") is data
    with pytest.raises(SkError, match="not an ELF object"):
        elf.unique_as_global(b"garbage!", "g.o")


def test_text_size_is_the_first_text_named_section(tmp_path):
    # Upstream sizes an object by the first `.text` line of `llvm-objdump -h`: an empty .text before
    # the function's own section gives 0, and .text.* sections after it are not added.
    src = tmp_path / "s.s"
    src.write_text(".text\n.section .text.k_middle,\"ax\",@progbits\n.globl k_middle\n.type k_middle, @function\n"
                   "k_middle:\n.skip 5000\n")
    subprocess.run(["as", "--64", "-o", str(tmp_path / "s.o"), str(src)], check=True)
    assert _sub_kernel(str(tmp_path / "s.o")).text_size == 0
    src.write_text(".text\n.globl k_middle\n.type k_middle, @function\nk_middle:\n.skip 3000\n"
                   ".section .text.unlikely,\"ax\",@progbits\n.skip 9000\n")
    subprocess.run(["as", "--64", "-o", str(tmp_path / "t.o"), str(src)], check=True)
    assert _sub_kernel(str(tmp_path / "t.o")).text_size == 3000
    src.write_text(".data\n.globl k_middle\nk_middle:\n.quad 1\n")
    subprocess.run(["as", "--64", "-R", "-o", str(tmp_path / "d.o"), str(src)], check=True)
    subprocess.run(["objcopy", "--remove-section", ".text", str(tmp_path / "d.o")], check=True)
    assert _sub_kernel(str(tmp_path / "d.o")).text_size is None
