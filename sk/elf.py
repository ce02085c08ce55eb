"""Reading sub-kernel objects: ELF relocatables and `ar` archives of them.

What SuperKernel needs from an object (facts §4, §6): the function symbols it
defines (the sub-kernel entry and its `_splitN` copies), the symbols it leaves
undefined, and the size of its code (`.text`, plus any `.text.*` sections), from
which the ICache preload count is derived. Upstream's sub-op "bin" is an `ar`
archive of the per-arch objects and their split copies, so archives are read
too (System V / GNU format, with the `//` long-name table).

The machine type is deliberately not checked: Ascend objects and the x86-64
stand-ins of the conformance data are read the same way. Only 64-bit ELF is
accepted, as every Ascend AI-core object is ELF64.
"""

from __future__ import annotations

import dataclasses
import os
import struct

from sk.errors import SkError

_AR_MAGIC = b"!<arch>\n"
_ELF_MAGIC = b"\x7fELF"


@dataclasses.dataclass(frozen=True)
class ObjectInfo:
    name: str                     # file name or archive member name (never a directory)
    defined_functions: tuple      # sorted global/weak STT_FUNC symbols with a section
    defined_symbols: tuple        # sorted global/weak symbols with a section (any type)
    undefined: tuple              # sorted undefined symbols
    text_size: int                # bytes of .text and .text.* sections

    def defines(self, symbol: str) -> bool:
        return symbol in self.defined_symbols


def _read(path: str, where: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except FileNotFoundError:
        raise SkError("object file not found", where=where, value=os.path.basename(path),
                      allowed="the path must name an existing ELF object or ar archive") from None
    except OSError as err:
        raise SkError(f"object file cannot be read ({err.strerror})", where=where,
                      value=os.path.basename(path)) from None


def is_archive(data: bytes) -> bool:
    return data.startswith(_AR_MAGIC)


_SHT_SYMTAB, _SHT_DYNSYM, _SHT_SUNW_LDYNSYM = 2, 11, 0x6FFFFFF3
_SHN_XINDEX = 0xFFFF
_STB_GLOBAL, _STB_WEAK = 1, 2
_STT_FUNC = 2


def parse_object(data: bytes, name: str, where: str = "") -> ObjectInfo:
    """Read one ELF64 object from bytes; `where` names it in errors.

    Decoded with struct in one pass over the section headers and symbol
    tables: a SuperKernel of 1,200 sub-kernels reads ~5,000 objects, and
    pyelftools' per-field parsing made that the bulk of `sk gen` (60 s).
    """
    where = where or name
    if not data.startswith(_ELF_MAGIC):
        raise SkError("not an ELF object", where=where, value=name,
                      allowed="give an ELF relocatable (.o) or an ar archive of them")
    if len(data) < 5 or data[4] != 2:
        klass = {1: "ELF32"}.get(data[4] if len(data) > 4 else -1, "unknown ELF class")
        raise SkError(f"wrong ELF class ({klass})", where=where, value=name,
                      allowed="sub-kernel objects must be 64-bit ELF (ELFCLASS64)")
    try:
        defined_funcs, defined, undefined, text_size = _scan_elf64(data)
    except (struct.error, ValueError, IndexError, UnicodeDecodeError) as err:
        raise SkError(f"truncated or corrupt ELF object ({err})", where=where, value=name,
                      allowed="rebuild the object; it could not be parsed") from None
    return ObjectInfo(name=name, defined_functions=tuple(sorted(defined_funcs)),
                      defined_symbols=tuple(sorted(defined)), undefined=tuple(sorted(undefined - defined)),
                      text_size=text_size)


def _field(data: bytes, fmt: str, offset: int) -> tuple:
    if offset < 0 or offset + struct.calcsize(fmt) > len(data):
        raise ValueError(f"{struct.calcsize(fmt)} bytes at offset {offset} lie past the end ({len(data)} bytes)")
    return struct.unpack_from(fmt, data, offset)


def _cstr(table: bytes, offset: int) -> str:
    end = table.find(b"\0", offset)
    if offset >= len(table) or end < 0:
        raise ValueError(f"string offset {offset} outside its string table ({len(table)} bytes)")
    return table[offset:end].decode("utf-8", "replace")


def _scan_elf64(data: bytes) -> tuple:
    """(defined function names, defined names, undefined names, .text bytes) of an ELF64 object."""
    if data[5] not in (1, 2):
        raise ValueError(f"unknown data encoding {data[5]}")
    e = "<" if data[5] == 1 else ">"
    shoff, = _field(data, e + "Q", 0x28)
    shentsize, shnum, shstrndx = _field(data, e + "HHH", 0x3A)
    if not shoff:
        return set(), set(), set(), 0
    shdr = e + "IIQQQQIIQQ"  # name, type, flags, addr, offset, size, link, info, addralign, entsize
    if shentsize < struct.calcsize(shdr):
        raise ValueError(f"section header entries of {shentsize} bytes")
    first = _field(data, shdr, shoff)
    if shnum == 0:  # extended numbering: the count is in section 0
        shnum = first[5]
    if shstrndx == _SHN_XINDEX:
        shstrndx = first[6]
    headers = [_field(data, shdr, shoff + k * shentsize) for k in range(shnum)]

    def body(h) -> bytes:
        if h[1] == 8:  # SHT_NOBITS occupies no file bytes
            return b""
        if h[4] + h[5] > len(data):
            raise ValueError(f"section data at {h[4]}+{h[5]} lies past the end ({len(data)} bytes)")
        return data[h[4]:h[4] + h[5]]

    names = body(headers[shstrndx]) if 0 < shstrndx < shnum else b""
    funcs, defined, undefined = set(), set(), set()
    text_size = 0
    sym = e + "IBBHQQ"  # name, info, other, shndx, value, size
    sym_size = struct.calcsize(sym)
    for h in headers:
        sec_name = _cstr(names, h[0]) if names else ""
        if sec_name == ".text" or sec_name.startswith(".text."):
            text_size += h[5]
        if h[1] not in (_SHT_SYMTAB, _SHT_DYNSYM, _SHT_SUNW_LDYNSYM):
            continue
        strings = body(headers[h[6]])
        table = body(h)
        entsize = h[9] or sym_size
        if entsize < sym_size:
            raise ValueError(f"symbol entries of {entsize} bytes")
        for k in range(len(table) // entsize):
            name_off, info, _other, shndx, _value, _size = struct.unpack_from(sym, table, k * entsize)
            if not name_off:
                continue
            sym_name = _cstr(strings, name_off)
            if not sym_name:
                continue
            if shndx == 0:
                undefined.add(sym_name)
                continue
            if info >> 4 not in (_STB_GLOBAL, _STB_WEAK):
                continue
            defined.add(sym_name)
            if info & 0xF == _STT_FUNC:
                funcs.add(sym_name)
    return funcs, defined, undefined, text_size


def parse_archive(data: bytes, name: str, where: str = "") -> dict[str, bytes]:
    """Members of an `ar` archive by name (symbol table and long-name table excluded)."""
    where = where or name
    if not is_archive(data):
        raise SkError("not an ar archive", where=where, value=name)
    members: dict[str, bytes] = {}
    long_names = b""
    pos = len(_AR_MAGIC)
    while pos < len(data):
        if pos + 60 > len(data):
            raise SkError("truncated ar archive (member header cut short)", where=where, value=name)
        header = data[pos:pos + 60]
        if header[58:60] != b"`\n":
            raise SkError("corrupt ar archive (bad member header)", where=where, value=name)
        raw_name = header[0:16].decode("ascii", "replace").rstrip()
        try:
            size = int(header[48:58].decode("ascii").strip())
        except ValueError:
            raise SkError("corrupt ar archive (bad member size)", where=where, value=name) from None
        body = data[pos + 60: pos + 60 + size]
        if len(body) < size:
            raise SkError("truncated ar archive (member data cut short)", where=where, value=name)
        pos += 60 + size + (size & 1)
        if raw_name in ("/", "/SYM64/", "__.SYMDEF", "__.SYMDEF SORTED"):
            continue
        if raw_name == "//":
            long_names = body
            continue
        if raw_name.startswith("/") and raw_name[1:].isdigit():
            start = int(raw_name[1:])
            end = long_names.find(b"\n", start)
            member = long_names[start:end if end >= 0 else None].decode("utf-8", "replace").rstrip("/")
        elif raw_name.startswith("#1/"):  # BSD long name: stored before the data
            n = int(raw_name[3:])
            member, body = body[:n].decode("utf-8", "replace").rstrip("\0"), body[n:]
        else:
            member = raw_name.rstrip("/")
        # ar allows duplicate names; the first one wins, as `ar x` of a name would.
        members.setdefault(member, body)
    return members


def read_objects(path: str, where: str = "") -> dict[str, ObjectInfo]:
    """All objects in `path`: the archive's members, or the single object keyed by its file name."""
    base = os.path.basename(path)
    where = where or base
    data = _read(path, where)
    if is_archive(data):
        return {member: parse_object(body, member, f"{where}: member {member}")
                for member, body in parse_archive(data, base, where).items()}
    return {base: parse_object(data, base, where)}


def read_object(path: str, where: str = "") -> ObjectInfo:
    """One ELF object file."""
    base = os.path.basename(path)
    data = _read(path, where or base)
    if is_archive(data):
        raise SkError("expected an ELF object but found an ar archive", where=where or base, value=base,
                      allowed="name the object, or pass the archive as the op's bin_path")
    return parse_object(data, base, where or base)
