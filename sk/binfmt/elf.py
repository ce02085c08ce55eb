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
import hashlib
import os
import struct

from sk.base.errors import SkError

_AR_MAGIC = b"!<arch>\n"
_ELF_MAGIC = b"\x7fELF"


@dataclasses.dataclass(frozen=True)
class ObjectInfo:
    name: str                     # file name or archive member name (never a directory)
    defined_functions: tuple      # sorted global/weak STT_FUNC symbols with a section
    defined_symbols: tuple        # sorted global/weak symbols with a section (any type)
    undefined: tuple | None       # sorted undefined symbols (None when built from facts, which omit them)
    text_size: int                # bytes of .text and .text.* sections

    def defines(self, symbol: str) -> bool:
        return symbol in self.defined_symbols

    def facts(self) -> dict:
        """What `sk gen` needs of parse_object's findings, as JSON (see archive_facts)."""
        return {"functions": list(self.defined_functions), "symbols": list(self.defined_symbols),
                "text_size": self.text_size}


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


_HEADERS = {order: (struct.Struct(order + "QIHHHHHH"),  # Elf64_Ehdr from e_shoff on: shoff flags ... shstrndx
                    struct.Struct(order + "IIQQQQIIQQ"),  # Elf64_Shdr: name type flags addr offset size link ...
                    struct.Struct(order + "IBBHQQ"))  # Elf64_Sym: name info other shndx value size
            for order in "<>"}
_SYMBOL_TABLES = (_SHT_SYMTAB, _SHT_DYNSYM, _SHT_SUNW_LDYNSYM)


def _field(data: bytes, fmt: struct.Struct, offset: int) -> tuple:
    if offset < 0 or offset + fmt.size > len(data):
        raise ValueError(f"{fmt.size} bytes at offset {offset} lie past the end ({len(data)} bytes)")
    return fmt.unpack_from(data, offset)


def _cstr(table: bytes, offset: int) -> str:
    end = table.find(b"\0", offset)
    if offset >= len(table) or end < 0:
        raise ValueError(f"string offset {offset} outside its string table ({len(table)} bytes)")
    return table[offset:end].decode("utf-8", "replace")


# bytes.translate tables for _locals_are_plain: keep an st_info byte whose binding is not
# STB_LOCAL (delete the 16 local values); map a zero byte to 1, any other to 0.
_LOCAL_INFOS = bytes(range(16))
_ZERO_TO_ONE = bytes([1] + [0] * 255)


def _locals_are_plain(table: bytes, entsize: int, first_global: int) -> bool:
    """True when entries 1..first_global-1 are all local and defined (none is reported).

    ELF puts the locals first and sh_info says where the others begin, which is
    how the linker reads a symbol table too; checked with C-speed byte slices
    (st_info at byte 4, st_shndx at bytes 6-7 of an Elf64_Sym), so an object
    that breaks the rule is still read entry by entry, never misread.
    """
    stop = first_global * entsize
    if table[entsize + 4:stop:entsize].translate(None, _LOCAL_INFOS):
        return False  # a global or weak symbol among the "locals"
    shndx_lo = table[entsize + 6:stop:entsize].translate(_ZERO_TO_ONE)
    shndx_hi = table[entsize + 7:stop:entsize].translate(_ZERO_TO_ONE)
    return not int.from_bytes(shndx_lo, "little") & int.from_bytes(shndx_hi, "little")


def _scan_elf64(data: bytes) -> tuple:
    """(defined function names, defined names, undefined names, .text bytes) of an ELF64 object.

    Only names that are reported get decoded, and the leading local entries of
    a symbol table (most of it) are skipped as a block: a SuperKernel of 1,200
    sub-kernels reads 4,800 objects here, so per-entry and per-section Python
    work is what `sk gen` spends its time on.
    """
    if data[5] not in (1, 2):
        raise ValueError(f"unknown data encoding {data[5]}")
    ehdr, shdr, sym = _HEADERS["<" if data[5] == 1 else ">"]
    shoff, _, _, _, _, shentsize, shnum, shstrndx = _field(data, ehdr, 0x28)
    if not shoff:
        return set(), set(), set(), 0
    if shentsize < shdr.size:
        raise ValueError(f"section header entries of {shentsize} bytes")
    first = _field(data, shdr, shoff)
    if shnum == 0:  # extended numbering: the count is in section 0
        shnum = first[5]
    if shstrndx == _SHN_XINDEX:
        shstrndx = first[6]
    if shoff + shnum * shentsize > len(data):
        raise ValueError(f"{shnum} section headers at {shoff} lie past the end ({len(data)} bytes)")
    if shentsize == shdr.size:
        headers = list(shdr.iter_unpack(data[shoff:shoff + shnum * shentsize]))
    else:
        headers = [shdr.unpack_from(data, shoff + k * shentsize) for k in range(shnum)]

    def body(h) -> bytes:
        if h[1] == 8:  # SHT_NOBITS occupies no file bytes
            return b""
        if h[4] + h[5] > len(data):
            raise ValueError(f"section data at {h[4]}+{h[5]} lies past the end ({len(data)} bytes)")
        return data[h[4]:h[4] + h[5]]

    names = body(headers[shstrndx]) if 0 < shstrndx < shnum else b""
    # Sections named `.text` or `.text.*`: the few name offsets that spell one are found in the
    # name table (bytes.find), instead of comparing every section's name.
    text_names = set()
    at = names.find(b".text")
    while at >= 0:
        if names[at + 5:at + 6] in (b"\0", b"."):
            text_names.add(at)
        at = names.find(b".text", at + 1)
    text_size = sum([h[5] for h in headers if h[0] in text_names]) if text_names else 0
    funcs, defined, undefined = set(), set(), set()
    for h in [h for h in headers if h[1] in _SYMBOL_TABLES]:
        strings = body(headers[h[6]])
        table = body(h)
        entsize = h[9] or sym.size
        if entsize < sym.size:
            raise ValueError(f"symbol entries of {entsize} bytes")
        count = len(table) // entsize
        start = h[7] if 1 < h[7] <= count and _locals_are_plain(table, entsize, h[7]) else 0
        rows = (sym.iter_unpack(table[start * entsize:count * entsize]) if entsize == sym.size
                else (sym.unpack_from(table, k * entsize) for k in range(start, count)))
        for name_off, info, _other, shndx, _value, _size in rows:
            if not name_off:
                continue
            if shndx == 0:
                undefined.add(_cstr(strings, name_off))
            elif info >> 4 in (_STB_GLOBAL, _STB_WEAK):
                sym_name = _cstr(strings, name_off)
                defined.add(sym_name)
                if info & 0xF == _STT_FUNC:
                    funcs.add(sym_name)
    undefined.discard("")
    defined.discard("")
    funcs.discard("")
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
        header, header_pos = data[pos:pos + 60], pos
        if header[58:60] != b"`\n":
            raise SkError("corrupt ar archive (bad member header)", where=where, value=name)
        raw_name = header[0:16].decode("ascii", "replace").rstrip()
        size_field = header[48:58].decode("ascii", "replace").strip()
        # Decimal digits only: int() would also take "-60" (a header that never advances) or "1_0".
        if not size_field.isdigit() or not size_field.isascii():
            raise SkError("corrupt ar archive (bad member size)", where=where, value=name,
                          allowed=f"member sizes are decimal byte counts; got {size_field!r} at byte {pos}")
        size = int(size_field)
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
            if not raw_name[3:].isdigit() or not raw_name[3:].isascii() or int(raw_name[3:]) > size:
                raise SkError("corrupt ar archive (bad BSD long-name length)", where=where, value=name,
                              allowed=f"member header name {raw_name!r} at byte {header_pos}")
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


# Bumped whenever parse_object's findings change meaning, so that facts written
# by another version of this reader are never taken for its own.
FACTS_FORMAT = 1
FACTS_KEY = "sk_archive"


def archive_facts(data: bytes, name: str) -> dict:
    """parse_object's findings for every member of an archive, keyed to the archive's bytes.

    `sk subkernel pack` stores this in the sub-op JSON it writes beside the
    archive. `sk gen` reads a SuperKernel's sub-kernels ~5,000 objects at a
    time; with these facts it hashes each archive (C speed) instead of parsing
    it again in Python, and gets the same ObjectInfo values.
    """
    return {"format": FACTS_FORMAT, "sha256": hashlib.sha256(data).hexdigest(),
            "members": {member: parse_object(body, member).facts()
                        for member, body in parse_archive(data, name).items()}}


def objects_from_facts(facts, data: bytes) -> dict[str, ObjectInfo] | None:
    """The archive's objects as archive_facts recorded them, or None when they do not describe `data`.

    None (the caller parses the archive itself) for facts of another format,
    another archive (sha256), or any shape archive_facts never writes: they
    are a cache of a pure function of the bytes, so ignoring them changes
    nothing but the time taken.
    """
    if not isinstance(facts, dict) or facts.get("format") != FACTS_FORMAT:
        return None
    members = facts.get("members")
    if not isinstance(members, dict) or facts.get("sha256") != hashlib.sha256(data).hexdigest():
        return None
    out = {}
    for member, doc in members.items():
        if type(doc) is not dict:
            return None
        funcs, syms, size = doc.get("functions"), doc.get("symbols"), doc.get("text_size")
        if (type(funcs) is not list or type(syms) is not list or type(size) is not int
                or not {str}.issuperset(map(type, funcs)) or not {str}.issuperset(map(type, syms))):
            return None
        out[member] = ObjectInfo(name=member, defined_functions=tuple(funcs), defined_symbols=tuple(syms),
                                 undefined=None, text_size=size)
    return out
