"""objsyms: the filtered symbol views agree with the full symbol table."""

import shutil
import subprocess

import pytest

from sk.binfmt import objsyms

SRC = """
static int local_fn(int x) { return x * 3; }
inline int comdat_fn(int x) { return x + 1; }
__attribute__((weak)) int weak_fn(int x) { return x - 1; }
int data_obj = 7;
extern int missing_data;
extern "C" int missing_fn(int);
extern "C" int entry(int x) { return local_fn(x) + comdat_fn(x) + weak_fn(x) + missing_fn(x) + missing_data; }
"""


def _compile(tmp_path, *extra):
    if not shutil.which("g++"):
        pytest.skip("g++ not on PATH")
    src = tmp_path / "s.cpp"
    src.write_text(SRC)
    out = tmp_path / ("s.so" if "-shared" in extra else "s.o")
    subprocess.run(["g++", "-O1", "-fPIC", *(extra or ("-c",)), str(src), "-o", str(out)], check=True)
    return str(out)


@pytest.mark.parametrize("shared", [False, True])
def test_filtered_views_match_the_full_table(tmp_path, shared):
    info = objsyms.read_object(_compile(tmp_path, "-shared") if shared else _compile(tmp_path))
    full = info.symbols
    assert full and all(isinstance(s, objsyms.Symbol) for s in full)
    want_defined = [s for s in full if s.is_global and s.defined and s.type not in ("FILE", "SECTION")]
    want_undefined = [s for s in full if s.is_global and not s.defined and s.name]
    assert info.defined_globals() == want_defined
    assert info.undefined() == want_undefined
    names = {s.name for s in info.defined_globals()}
    assert {"entry", "data_obj", "_Z7weak_fni"} <= names
    assert {"missing_fn", "missing_data"} <= {s.name for s in info.undefined()}


def test_locals_stay_in_the_full_table(tmp_path):
    info = objsyms.read_object(_compile(tmp_path, "-c", "-O0"))  # -O0 keeps local_fn out of line
    locals_ = [s for s in info.symbols if not s.is_global]
    assert any(s.type == "FILE" for s in locals_)
    assert "_ZL8local_fni" in {s.name for s in locals_}
    assert not any(s.name == "_ZL8local_fni" for s in info.defined_globals())


def _assemble(tmp_path, *flags):
    src = tmp_path / "a.s"
    src.write_text(".text\nloc:\nret\n.globl f\n.type f, @function\nf:\ncall g\nret\n.weak w\nw:\nret\n"
                   ".data\n.globl d\nd: .long 1\n")
    out = tmp_path / ("a32.o" if "--32" in flags else "a.o")
    subprocess.run(["as", *flags, "-o", str(out), str(src)], check=True)
    return out


@pytest.mark.parametrize("flags", [["--64"], ["--32"]])
def test_elf64_and_elf32(tmp_path, flags):
    info = objsyms.read_object(str(_assemble(tmp_path, *flags)))
    assert [s.name for s in info.defined_globals()] == ["f", "w", "d"]
    assert [(s.name, s.bind) for s in info.undefined()] == [("g", "GLOBAL")]
    assert info.exec_size == 8  # ret, call (5 bytes), ret, ret
    assert "loc" in {s.name for s in info.symbols if not s.is_global}


def test_symbol_table_that_breaks_locals_first_is_read_whole(tmp_path):
    import struct

    data = bytearray(_assemble(tmp_path, "--64").read_bytes())
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum, _ = struct.unpack_from("<HHH", data, 0x3A)
    for k in range(shnum):
        at = shoff + k * shentsize
        if struct.unpack_from("<I", data, at + 4)[0] == 2:  # SHT_SYMTAB: sh_info claims all entries are local
            struct.pack_into("<I", data, at + 44, struct.unpack_from("<Q", data, at + 32)[0] // 24)
    info = objsyms.read_object("tampered.o", bytes(data))
    assert [s.name for s in info.defined_globals()] == ["f", "w", "d"]
    assert [s.name for s in info.undefined()] == ["g"]


def test_not_elf_and_truncated_are_user_errors(tmp_path):
    from sk.base.errors import SkError

    data = _assemble(tmp_path, "--64").read_bytes()
    for bad in (b"hello world", data[:40], data[:len(data) // 2]):
        with pytest.raises(SkError, match="not a valid ELF object"):
            objsyms.read_object("bad.o", bad)
