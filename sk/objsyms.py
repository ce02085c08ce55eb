"""Symbol tables of relocatable objects, as the link pipeline needs them.

pyelftools parses the ELF and section headers; the symbol table itself is
decoded with struct in one pass, because a fused SuperKernel of a thousand
sub-kernels carries tens of thousands of symbols and per-symbol objects from
pyelftools would dominate the link time.

Also reads `ar` archives (the twin runtime as a static library), so the set of
symbols the runtime provides can be taken from the library itself.
"""

from __future__ import annotations

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


@dataclass(frozen=True)
class ObjectInfo:
    path: str
    symbols: tuple[Symbol, ...]
    exec_size: int  # bytes in executable sections (.text and friends)
    group_count: int  # COMDAT group sections

    def defined_globals(self) -> list[Symbol]:
        return [s for s in self.symbols if s.is_global and s.defined and s.type not in ("FILE", "SECTION")]

    def undefined(self) -> list[Symbol]:
        return [s for s in self.symbols if s.is_global and not s.defined and s.name]


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
    symbols = _decode_symtab(elf, data, symtab, sections) if symtab is not None else ()
    return ObjectInfo(path=path, symbols=symbols, exec_size=exec_size, group_count=groups)


def _decode_symtab(elf, data: bytes, symtab, sections) -> tuple[Symbol, ...]:
    strtab = sections[symtab["sh_link"]]
    str_off, str_size = strtab["sh_offset"], strtab["sh_size"]
    strings = data[str_off:str_off + str_size]
    off, size = symtab["sh_offset"], symtab["sh_size"]
    endian = "<" if elf.little_endian else ">"
    if elf.elfclass == 64:
        fmt, name_i, info_i, shndx_i = endian + "IBBHQQ", 0, 1, 3
    else:
        fmt, name_i, info_i, shndx_i = endian + "IIIBBH", 0, 3, 5
    entsize = struct.calcsize(fmt)
    out = []
    names: dict[int, str] = {}
    for entry in struct.iter_unpack(fmt, data[off:off + size - size % entsize]):
        name_off = entry[name_i]
        name = names.get(name_off)
        if name is None:
            end = strings.find(b"\0", name_off)
            name = strings[name_off:end].decode("utf-8", "replace")
            names[name_off] = name
        info = entry[info_i]
        out.append(Symbol(name=name, bind=BINDS.get(info >> 4, str(info >> 4)),
                          type=TYPES.get(info & 0xF, str(info & 0xF)), shndx=entry[shndx_i]))
    return tuple(out[1:])  # entry 0 is the null symbol


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
