"""ELF files: the one reader of them in sk (section sizes and the symbol table).

Decoded with struct (ELF32 and ELF64, either byte order), not pyelftools: a
SuperKernel of 1,200 sub-kernels reads ~5,000 objects in `sk gen` and a
merged object of ~120,000 symbols in `sk link`, and per-field parsing made
that the bulk of both. The section headers are read in one go; the symbol
table is decoded on demand, and only its non-local entries where only those
are asked about (ELF puts the locals first and sh_info says where they end).

The machine type is deliberately not checked: Ascend objects and the x86-64
stand-ins of the conformance data are read the same way. Which class a
caller accepts is the caller's rule (sub-kernel objects: ELF64 only,
sk/binfmt/objfacts.py).
"""

from __future__ import annotations

import struct
from collections import namedtuple
from operator import itemgetter

from sk.base.errors import SkError

MAGIC = b"\x7fELF"
BINDS = {0: "LOCAL", 1: "GLOBAL", 2: "WEAK", 10: "UNIQUE"}
TYPES = {0: "NOTYPE", 1: "OBJECT", 2: "FUNC", 3: "SECTION", 4: "FILE", 5: "COMMON", 6: "TLS", 10: "IFUNC"}
SHN_UNDEF = 0
_STB_LOCAL, _STB_GLOBAL, _STB_WEAK, _STB_GNU_UNIQUE = 0, 1, 2, 10
_STT_FUNC, _STT_SECTION, _STT_FILE = 2, 3, 4
_SHT_PROGBITS, _SHT_SYMTAB, _SHT_NOBITS, _SHT_DYNSYM, _SHT_GROUP = 1, 2, 8, 11, 17
_SHF_EXECINSTR = 0x4
_SHN_XINDEX = 0xFFFF
# st_info's bytes with binding STB_LOCAL (0..15), deleted to find any other binding.
_LOCAL_INFOS = bytes(range(16))
# st_info's bytes with any binding but STB_GNU_UNIQUE, deleted to find that one.
_NOT_UNIQUE_INFOS = bytes(b for b in range(256) if b >> 4 != _STB_GNU_UNIQUE)

# (ELF class, data encoding) -> (Elf_Ehdr from e_shoff on, its offset, Elf_Shdr, Elf_Sym, a getter of
# (st_name, st_info, st_shndx) from an Elf_Sym, st_info's byte offset in an entry)
_FORMATS = {
    (klass, encoding): (struct.Struct(order + ehdr), at, struct.Struct(order + shdr), struct.Struct(order + sym),
                        itemgetter(*fields), info_at)
    for encoding, order in ((1, "<"), (2, ">"))
    for klass, ehdr, at, shdr, sym, fields, info_at in (
        (2, "QIHHHHHH", 0x28, "IIQQQQIIQQ", "IBBHQQ", (0, 1, 3), 4),
        (1, "IIHHHHHH", 0x20, "IIIIIIIIII", "IIIBBH", (0, 3, 5), 12))
}


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


def corrupt(err: Exception, name: str, where: str) -> SkError:
    return SkError(f"truncated or corrupt ELF object ({err})", where=where, value=name,
                   allowed="rebuild the object; it could not be parsed")


class Elf:
    """One ELF file's section sizes and symbol table.

    text_size: bytes of the sections named .text and .text.* (the ICache
    preload count is derived from it, facts §4); exec_size: bytes of the
    executable PROGBITS sections (the sub-op JSON's sub_operator_text_size);
    group_count: COMDAT group sections; symtab: the SHT_SYMTAB, else (shared
    libraries) the SHT_DYNSYM, or None.
    """

    __slots__ = ("elf_class", "text_size", "symtab", "_headers")

    def __init__(self, elf_class: int, text_size: int, symtab: "SymbolTable | None", headers: list):
        self.elf_class, self.text_size, self.symtab, self._headers = elf_class, text_size, symtab, headers

    @property
    def exec_size(self) -> int:
        return sum(h[5] for h in self._headers if h[1] == _SHT_PROGBITS and h[2] & _SHF_EXECINSTR)

    @property
    def group_count(self) -> int:
        return sum(1 for h in self._headers if h[1] == _SHT_GROUP)


def parse(data, name: str, where: str = "") -> Elf:
    """Reads an ELF file's bytes (bytes or mmap); `name` and `where` name it in errors."""
    where = where or name
    if data[:4] != MAGIC:
        raise SkError("not an ELF object", where=where, value=name,
                      allowed="give an ELF relocatable (.o) or an ar archive of them")
    try:
        return _parse(data, name, where)
    except (struct.error, ValueError, IndexError) as err:
        raise corrupt(err, name, where) from None


def _field(data, fmt: struct.Struct, offset: int) -> tuple:
    if offset < 0 or offset + fmt.size > len(data):
        raise ValueError(f"{fmt.size} bytes at offset {offset} lie past the end ({len(data)} bytes)")
    return fmt.unpack_from(data, offset)


def _parse(data, name: str, where: str) -> Elf:
    layout = _FORMATS.get((data[4], data[5])) if len(data) > 5 else None
    if layout is None:
        raise ValueError(f"unknown ELF class or data encoding {bytes(data[4:6])!r}")
    ehdr, ehdr_at, shdr, sym, fields, info_at = layout
    elf_class = 64 if data[4] == 2 else 32
    shoff, _, _, _, _, shentsize, shnum, shstrndx = _field(data, ehdr, ehdr_at)
    if not shoff:
        return Elf(elf_class, 0, None, [])
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

    def body(h, size: int) -> bytes:  # name type flags addr offset size link info addralign entsize
        if h[1] == _SHT_NOBITS:  # occupies no file bytes
            return b""
        if h[4] + size > len(data):
            raise ValueError(f"section data at {h[4]}+{size} lies past the end ({len(data)} bytes)")
        return data[h[4]:h[4] + size]

    if not 0 < shstrndx < shnum:
        # Without the name table no section is known as .text: its size is not 0, it is unknown.
        raise ValueError(f"e_shstrndx {shstrndx} names no section (the file has {shnum}); "
                         "the section name table cannot be found")
    names = body(headers[shstrndx], headers[shstrndx][5])
    # Sections named `.text` or `.text.*`: the few name offsets that spell one are found in the
    # name table (bytes.find), instead of comparing every section's name.
    text_names = set()
    at = names.find(b".text")
    while at >= 0:
        if names[at + 5:at + 6] in (b"\0", b"."):
            text_names.add(at)
        at = names.find(b".text", at + 1)
    text_size = sum([h[5] for h in headers if h[0] in text_names]) if text_names else 0
    table = next((h for h in headers if h[1] == _SHT_SYMTAB), None)
    if table is None:
        table = next((h for h in headers if h[1] == _SHT_DYNSYM), None)
    symtab = None
    if table is not None:
        if table[6] >= len(headers):
            raise ValueError(f"symbol table links to section {table[6]} of {len(headers)}")
        entsize = table[9] or sym.size
        if entsize < sym.size:
            raise ValueError(f"symbol entries of {entsize} bytes")
        entries = body(table, table[5] - table[5] % entsize)
        strtab = headers[table[6]]
        symtab = SymbolTable(entries, body(strtab, strtab[5]), entsize, sym, fields,
                             _first_global(entries, entsize, info_at, table[7]), name, where)
    return Elf(elf_class, text_size, symtab, headers)


def unique_as_global(data, name: str, where: str = ""):
    """data with every STB_GNU_UNIQUE symbol bound STB_GLOBAL instead: data itself if it has none, else a
    patched bytearray copy.

    g++ binds inline variables and the statics of inline functions
    STB_GNU_UNIQUE, and GNU objcopy's --localize-symbols passes such symbols
    over silently: two objects that both define one then collide in `ld -r`.
    The bindings differ only to the dynamic linker, which never sees a symbol
    that is localised next; the symbol table keeps its order and size.
    """
    elf = parse(data, name, where)
    table = next((h for h in elf._headers if h[1] == _SHT_SYMTAB), None)
    if table is None:
        return data
    _, _, _, sym, _, info_at = _FORMATS[(data[4], data[5])]
    entsize = table[9] or sym.size
    start, end = table[4] + info_at, table[4] + table[5] - table[5] % entsize
    if not bytes(data[start:end:entsize]).translate(None, _NOT_UNIQUE_INFOS):
        return data
    out = bytearray(data)
    for at in range(start, end, entsize):
        if out[at] >> 4 == _STB_GNU_UNIQUE:
            out[at] = _STB_GLOBAL << 4 | out[at] & 0xF
    return out


def _first_global(entries: bytes, entsize: int, info_at: int, sh_info: int) -> int:
    """sh_info when every entry before it is local (checked as one C-speed byte slice), else 1.

    A table that breaks ELF's locals-first rule is then read entry by entry, never misread.
    """
    if not 1 < sh_info <= len(entries) // entsize:
        return 1
    if entries[entsize + info_at:sh_info * entsize:entsize].translate(None, _LOCAL_INFOS):
        return 1
    return sh_info


class SymbolTable:
    """The raw entries of a SHT_SYMTAB/SHT_DYNSYM section and its string table."""

    __slots__ = ("entries", "strings", "entsize", "sym", "fields", "first_global", "name", "where")

    def __init__(self, entries: bytes, strings: bytes, entsize: int, sym: struct.Struct, fields, first_global: int,
                 name: str, where: str):
        self.entries, self.strings, self.entsize, self.sym, self.fields = entries, strings, entsize, sym, fields
        self.first_global = first_global  # entries before it are all local
        self.name, self.where = name, where

    def _rows(self, non_local: bool):
        """(st_name, st_info, st_shndx) of the entries after the null entry 0; non_local: from first_global."""
        start, entsize, table = (self.first_global if non_local else 1), self.entsize, self.entries
        if entsize == self.sym.size:
            rows = self.sym.iter_unpack(table[start * entsize:])
        else:
            rows = (self.sym.unpack_from(table, k * entsize) for k in range(start, len(table) // entsize))
        return map(self.fields, rows)

    def _name(self, offset: int) -> str:
        strings = self.strings
        end = strings.find(b"\0", offset)
        if offset >= len(strings) or end < 0:
            raise ValueError(f"string offset {offset} outside its string table ({len(strings)} bytes)")
        return strings[offset:end].decode("utf-8", "replace")

    def global_definitions(self) -> tuple[set, set]:
        """(function names, all names) defined with binding GLOBAL or WEAK: what the engine asks of an object."""
        funcs, defined = set(), set()
        try:
            for name_off, info, shndx in self._rows(True):
                if name_off and shndx and info >> 4 in (_STB_GLOBAL, _STB_WEAK):
                    name = self._name(name_off)
                    defined.add(name)
                    if info & 0xF == _STT_FUNC:
                        funcs.add(name)
        except ValueError as err:
            raise corrupt(err, self.name, self.where) from None
        funcs.discard("")
        defined.discard("")
        return funcs, defined

    def select(self, keep, non_local: bool = False) -> list[Symbol]:
        """Symbols whose (st_info, st_shndx) pass `keep`, in table order, without the null entry 0.

        non_local: `keep` accepts no STB_LOCAL symbol, so the leading locals are skipped.
        """
        out = []
        try:
            for name_off, info, shndx in self._rows(non_local):
                if keep(info, shndx):
                    out.append(Symbol(self._name(name_off), BINDS.get(info >> 4, str(info >> 4)),
                                      TYPES.get(info & 0xF, str(info & 0xF)), shndx))
        except ValueError as err:
            raise corrupt(err, self.name, self.where) from None
        return out

    def defined_globals(self) -> list[Symbol]:
        """Non-local defined symbols but sections and files: what a link exports or may collide on."""
        return self.select(lambda info, shndx: info >> 4 != _STB_LOCAL and shndx != SHN_UNDEF
                           and info & 0xF not in (_STT_SECTION, _STT_FILE), non_local=True)

    def undefined(self) -> list[Symbol]:
        """Named non-local undefined symbols: what a link must resolve."""
        return [s for s in self.select(lambda info, shndx: info >> 4 != _STB_LOCAL and shndx == SHN_UNDEF,
                                       non_local=True) if s.name]

    def all(self) -> list[Symbol]:
        return self.select(lambda info, shndx: True)
