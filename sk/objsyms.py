"""Symbol tables of relocatable objects, as the link pipeline needs them.

pyelftools parses the ELF and section headers; the symbol table itself is
decoded with struct in one pass, because a fused SuperKernel of a thousand
sub-kernels carries tens of thousands of symbols and per-symbol objects from
pyelftools would dominate the link time.

Also reads `ar` archives (the twin runtime as a static library), so the set of
symbols the runtime provides can be taken from the library itself.
"""

from __future__ import annotations

import functools
import io
import struct
from dataclasses import dataclass

from elftools.common.exceptions import ELFError
from elftools.elf.constants import SH_FLAGS
from elftools.elf.elffile import ELFFile

from sk import arfile
from sk.errors import SkError

BINDS = {0: "LOCAL", 1: "GLOBAL", 2: "WEAK", 10: "UNIQUE"}
TYPES = {0: "NOTYPE", 1: "OBJECT", 2: "FUNC", 3: "SECTION", 4: "FILE", 5: "COMMON", 6: "TLS", 10: "IFUNC"}
SHN_UNDEF = 0
SHN_ABS = 0xFFF1
SHN_COMMON = 0xFFF2
_STB_LOCAL = 0
_STT_SECTION, _STT_FILE = 3, 4


@dataclass(frozen=True)
class Symbol:
    name: str
    bind: str  # LOCAL, GLOBAL, WEAK, UNIQUE
    type: str  # FUNC, OBJECT, NOTYPE, ...
    shndx: int  # 0 = undefined

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
                                       and info & 0xF not in (_STT_SECTION, _STT_FILE)))

    def undefined(self) -> list[Symbol]:
        if not self._table:
            return []
        return [s for s in self._table.select(lambda info, shndx: info >> 4 != _STB_LOCAL and shndx == SHN_UNDEF)
                if s.name]


class _SymbolTable:
    """The raw entries of a SHT_SYMTAB/SHT_DYNSYM section and its string table."""

    def __init__(self, entries: bytes, strings: bytes, fmt: str, name_i: int, info_i: int, shndx_i: int):
        self.entries, self.strings = entries, strings
        self.fmt, self.name_i, self.info_i, self.shndx_i = fmt, name_i, info_i, shndx_i

    def select(self, keep):
        """Symbols whose (st_info, st_shndx) pass `keep`, in table order, without the null entry 0."""
        strings, name_i, info_i, shndx_i = self.strings, self.name_i, self.info_i, self.shndx_i
        first = True
        for entry in struct.iter_unpack(self.fmt, self.entries):
            if first:
                first = False
                continue
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
        elf = ELFFile(io.BytesIO(data))
        sections = list(elf.iter_sections())
    except (ELFError, struct.error, ValueError) as err:
        raise SkError("not a valid ELF object", where=path, value=str(err),
                      allowed="pass an object file produced by the toolchain's compiler or linker") from None
    exec_size = 0
    groups = 0
    symtab = None
    for sec in sections:
        if sec["sh_type"] == "SHT_PROGBITS" and sec["sh_flags"] & SH_FLAGS.SHF_EXECINSTR:
            exec_size += sec["sh_size"]
        elif sec["sh_type"] == "SHT_GROUP":
            groups += 1
        elif sec["sh_type"] == "SHT_SYMTAB":
            symtab = sec
    if symtab is None:
        for sec in sections:  # shared libraries: the dynamic symbols are the interface
            if sec["sh_type"] == "SHT_DYNSYM":
                symtab = sec
    table = _symbol_table(elf, data, symtab, sections) if symtab is not None else None
    return ObjectInfo(path=path, exec_size=exec_size, group_count=groups, table=table)


def _symbol_table(elf, data: bytes, symtab, sections) -> _SymbolTable:
    strtab = sections[symtab["sh_link"]]
    str_off, str_size = strtab["sh_offset"], strtab["sh_size"]
    off, size = symtab["sh_offset"], symtab["sh_size"]
    endian = "<" if elf.little_endian else ">"
    if elf.elfclass == 64:
        fmt, name_i, info_i, shndx_i = endian + "IBBHQQ", 0, 1, 3
    else:
        fmt, name_i, info_i, shndx_i = endian + "IIIBBH", 0, 3, 5
    entsize = struct.calcsize(fmt)
    return _SymbolTable(data[off:off + size - size % entsize], data[str_off:str_off + str_size], fmt,
                        name_i, info_i, shndx_i)


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
