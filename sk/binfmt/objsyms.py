"""Symbol tables of relocatable objects, as the link pipeline needs them.

Headers and symbol tables are decoded with struct (ELF32 and ELF64, either
byte order), not pyelftools: a fused SuperKernel of a thousand sub-kernels
carries tens of thousands of symbols, and `sk link` reads it on its hot path.
The non-local symbols, all the link checks ask about, are found without
touching the locals before them (ELF puts locals first; sh_info says where
they end).

Also reads `ar` archives (the twin runtime as a static library), so the set of
symbols the runtime provides can be taken from the library itself.
"""

from __future__ import annotations

import functools
import struct
from collections import namedtuple

from sk.binfmt import arfile
from sk.base.errors import SkError

BINDS = {0: "LOCAL", 1: "GLOBAL", 2: "WEAK", 10: "UNIQUE"}
TYPES = {0: "NOTYPE", 1: "OBJECT", 2: "FUNC", 3: "SECTION", 4: "FILE", 5: "COMMON", 6: "TLS", 10: "IFUNC"}
SHN_UNDEF = 0
SHN_ABS = 0xFFF1
SHN_COMMON = 0xFFF2
_STB_LOCAL = 0
_STT_SECTION, _STT_FILE = 3, 4
_SHT_PROGBITS, _SHT_SYMTAB, _SHT_DYNSYM, _SHT_NOBITS, _SHT_GROUP = 1, 2, 11, 8, 17
_SHF_EXECINSTR = 0x4
# st_info's bytes with binding STB_LOCAL (0..15), deleted to find any other binding.
_LOCAL_INFOS = bytes(range(16))


# A tuple, not a dataclass: importing dataclasses took 10 ms of every `sk link`.
class Symbol(namedtuple("Symbol", "name bind type shndx")):
    """bind: LOCAL, GLOBAL, WEAK, UNIQUE; type: FUNC, OBJECT, NOTYPE, ...; shndx: 0 = undefined."""

    __slots__ = ()

    @property
    def defined(self) -> bool:
        return self.shndx != SHN_UNDEF

    @property
    def is_global(self) -> bool:
        """Visible to other objects: what `ld -r` may resolve or collide on."""
        return self.bind != "LOCAL"


class ObjectInfo:
    """One object's symbol table and sizes.

    `defined_globals()` and `undefined()` decode only the non-local entries:
    the merged object of a 1,200-sub-kernel SuperKernel has ~120,000 symbols,
    nearly all local, and building a Symbol for each took 0.5 s of `sk link`.
    `symbols` (every entry, locals included) is decoded on first use.
    """

    def __init__(self, path: str, exec_size: int, group_count: int, table: "_SymbolTable | None" = None):
        self.path = path
        self.exec_size = exec_size  # bytes in executable sections (.text and friends)
        self.group_count = group_count  # COMDAT group sections
        self._table = table

    @functools.cached_property
    def symbols(self) -> tuple[Symbol, ...]:
        return tuple(self._table.select(lambda info, shndx: True)) if self._table else ()

    def defined_globals(self) -> list[Symbol]:
        if not self._table:
            return []
        return list(self._table.select(lambda info, shndx: info >> 4 != _STB_LOCAL and shndx != SHN_UNDEF
                                       and info & 0xF not in (_STT_SECTION, _STT_FILE), non_local=True))

    def undefined(self) -> list[Symbol]:
        if not self._table:
            return []
        return [s for s in self._table.select(lambda info, shndx: info >> 4 != _STB_LOCAL and shndx == SHN_UNDEF,
                                              non_local=True)
                if s.name]


class _SymbolTable:
    """The raw entries of a SHT_SYMTAB/SHT_DYNSYM section and its string table."""

    def __init__(self, entries: bytes, strings: bytes, fmt: str, name_i: int, info_i: int, shndx_i: int,
                 first_global: int = 1):
        self.entries, self.strings = entries, strings
        self.fmt, self.name_i, self.info_i, self.shndx_i = fmt, name_i, info_i, shndx_i
        self.first_global = first_global  # entries before it are all local

    def select(self, keep, non_local: bool = False):
        """Symbols whose (st_info, st_shndx) pass `keep`, in table order, without the null entry 0.

        non_local: `keep` accepts no STB_LOCAL symbol, so the leading locals are skipped.
        """
        strings, name_i, info_i, shndx_i = self.strings, self.name_i, self.info_i, self.shndx_i
        size = struct.calcsize(self.fmt)
        first = self.first_global if non_local else 1
        for entry in struct.iter_unpack(self.fmt, self.entries[first * size:]):
            info = entry[info_i]
            if not keep(info, entry[shndx_i]):
                continue
            name_off = entry[name_i]
            end = strings.find(b"\0", name_off)
            name = strings[name_off:end].decode("utf-8", "replace")
            yield Symbol(name=name, bind=BINDS.get(info >> 4, str(info >> 4)),
                         type=TYPES.get(info & 0xF, str(info & 0xF)), shndx=entry[shndx_i])


def read_object(path: str, data: bytes | None = None) -> ObjectInfo:
    """Symbols and sizes of one ELF relocatable object (or shared library)."""
    if data is None:
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as err:
            raise SkError("cannot read object file", where=path, value=err.strerror,
                          allowed="check that the file exists and is readable") from None
    try:
        return _parse(path, data)
    except (struct.error, ValueError) as err:
        raise SkError("not a valid ELF object", where=path, value=str(err),
                      allowed="pass an object file produced by the toolchain's compiler or linker") from None


# ELF class -> (ELF header fields from e_shoff on, their offset, Elf_Shdr, Elf_Sym (formats without
# byte order), the st_name/st_info/st_shndx field indices, st_info's byte offset in an entry)
_LAYOUTS = {
    2: ("QIHHHHHH", 0x28, "IIQQQQIIQQ", "IBBHQQ", (0, 1, 3), 4),
    1: ("IIHHHHHH", 0x20, "IIIIIIIIII", "IIIBBH", (0, 3, 5), 12),
}


def _parse(path: str, data: bytes) -> ObjectInfo:
    if data[:4] != b"\x7fELF":
        raise ValueError(f"magic number {data[:4]!r} is not ELF's")
    if len(data) < 6 or data[4] not in _LAYOUTS or data[5] not in (1, 2):
        raise ValueError(f"unknown ELF class or data encoding {data[4:6]!r}")
    order = "<" if data[5] == 1 else ">"
    ehdr, ehdr_at, shdr_fmt, sym_fmt, (name_i, info_i, shndx_i), info_at = _LAYOUTS[data[4]]
    shdr = struct.Struct(order + shdr_fmt)
    shoff, _, _, _, _, shentsize, shnum, _ = struct.unpack_from(order + ehdr, data, ehdr_at)
    if not shoff:
        return ObjectInfo(path=path, exec_size=0, group_count=0)
    if shentsize < shdr.size:
        raise ValueError(f"section header entries of {shentsize} bytes")
    if shnum == 0:  # extended numbering: the count is in section 0's sh_size
        shnum = shdr.unpack_from(data, shoff)[5]
    if shoff + shnum * shentsize > len(data):
        raise ValueError(f"{shnum} section headers at {shoff} lie past the end ({len(data)} bytes)")
    headers = [shdr.unpack_from(data, shoff + k * shentsize) for k in range(shnum)]
    exec_size = groups = 0
    symtab = dynsym = None
    for h in headers:  # name type flags addr offset size link info addralign entsize
        if h[1] == _SHT_PROGBITS and h[2] & _SHF_EXECINSTR:
            exec_size += h[5]
        elif h[1] == _SHT_GROUP:
            groups += 1
        elif h[1] == _SHT_SYMTAB:
            symtab = h
        elif h[1] == _SHT_DYNSYM:
            dynsym = h
    symtab = symtab or dynsym  # shared libraries: the dynamic symbols are the interface
    table = None
    if symtab is not None:
        if symtab[6] >= len(headers):
            raise ValueError(f"symbol table links to section {symtab[6]} of {len(headers)}")
        strtab = headers[symtab[6]]
        fmt = order + sym_fmt
        entsize = struct.calcsize(fmt)
        entries = _section(data, symtab, symtab[5] - symtab[5] % entsize)
        table = _SymbolTable(entries, _section(data, strtab, strtab[5]), fmt, name_i, info_i, shndx_i,
                             first_global=_first_global(entries, entsize, info_at, symtab[7]))
    return ObjectInfo(path=path, exec_size=exec_size, group_count=groups, table=table)


def _first_global(entries: bytes, entsize: int, info_at: int, sh_info: int) -> int:
    """sh_info when every entry before it is local (checked as one byte slice), else 1.

    A table that breaks ELF's locals-first rule is then read entry by entry, never misread.
    """
    if not 1 < sh_info <= len(entries) // entsize:
        return 1
    if entries[entsize + info_at:sh_info * entsize:entsize].translate(None, _LOCAL_INFOS):
        return 1
    return sh_info


def _section(data: bytes, h, size: int) -> bytes:
    if h[1] == _SHT_NOBITS:
        return b""
    if h[4] + size > len(data):
        raise ValueError(f"section data at {h[4]}+{size} lies past the end ({len(data)} bytes)")
    return data[h[4]:h[4] + size]


def read_archive(path: str) -> list[ObjectInfo]:
    """Every ELF member of an `ar` archive."""
    return [read_object(f"{path}({name})", body) for name, body in arfile.members(path)
            if body[:4] == b"\x7fELF"]


def provided_symbols(path: str) -> set[str]:
    """Global symbols a library (.a or .so) or object defines."""
    with open(path, "rb") as f:
        magic = f.read(8)
    infos = read_archive(path) if magic == b"!<arch>\n" else [read_object(path)]
    return {s.name for info in infos for s in info.defined_globals()}
