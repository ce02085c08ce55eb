"""What sk asks of object files and archives, on top of the ar and ELF readers.

Two users ask two sets of questions of one ObjectInfo:
  * the fusion engine (sk gen, facts §4 and §6): which global or weak symbols
    and functions a sub-kernel object defines, and its `.text` size;
  * the link steps (sk subkernel pack, sk link): its symbols with binding and
    type, what it leaves undefined, its executable bytes and COMDAT groups.

`sk subkernel pack` stores the engine's answers for every member of the
archive it writes (archive_facts, keyed to the archive's sha256), so that
`sk gen` hashes each archive at C speed instead of parsing it again.
Members are looked up by name through ar.by_name everywhere (the first
member of a name), so the engine and the link read the same bytes.
"""

from __future__ import annotations

import functools
import hashlib
import os

from sk.base import infile
from sk.base.errors import SkError
from sk.binfmt import ar, elf

# Bumped whenever the engine's answers change meaning, so that facts written
# by another version of this reader are never taken for its own.
FACTS_FORMAT = 1
FACTS_KEY = "sk_archive"


class ObjectInfo:
    """One object's symbols and sizes; symbol lists are decoded on first use.

    Built from facts (objects_from_facts), it answers only the engine's
    questions: the facts record nothing else.
    """

    def __init__(self, name: str, parsed: elf.Elf | None, *, text_size: int | None = None,
                 functions: tuple | None = None, symbols: tuple | None = None):
        self.name = name  # file name or archive member name (never a directory)
        self._elf = parsed
        self.text_size = parsed.text_size if parsed is not None else text_size  # .text and .text.* bytes
        if functions is not None:
            self.__dict__["_globals"] = (functions, symbols)

    @functools.cached_property
    def _globals(self) -> tuple[tuple, tuple]:
        if self._elf is None or self._elf.symtab is None:
            return (), ()
        funcs, defined = self._elf.symtab.global_definitions()
        return tuple(sorted(funcs)), tuple(sorted(defined))

    @property
    def defined_functions(self) -> tuple:
        """Sorted names of the GLOBAL/WEAK STT_FUNC symbols with a section."""
        return self._globals[0]

    @property
    def defined_symbols(self) -> tuple:
        """Sorted names of the GLOBAL/WEAK symbols with a section (any type)."""
        return self._globals[1]

    def defines(self, symbol: str) -> bool:
        return symbol in self.defined_symbols

    def facts(self) -> dict:
        """The engine's answers as JSON (see archive_facts)."""
        return {"functions": list(self.defined_functions), "symbols": list(self.defined_symbols),
                "text_size": self.text_size}

    def __reduce__(self):
        # `sk gen`'s helper process sends its SubOps, objects included, back by pickle
        # (sk/render/genhelper.py): the engine's answers are what crosses, not the ELF bytes.
        return _from_answers, (self.name, self.text_size, self.defined_functions, self.defined_symbols)

    def _parsed(self) -> elf.Elf:
        if self._elf is None:
            raise RuntimeError(f"{self.name}: built from archive facts, which record only the engine's answers")
        return self._elf

    @property
    def exec_size(self) -> int:
        """Bytes in executable sections (.text and friends)."""
        return self._parsed().exec_size

    @property
    def group_count(self) -> int:
        """COMDAT group sections."""
        return self._parsed().group_count

    @functools.cached_property
    def symbols(self) -> tuple[elf.Symbol, ...]:
        """Every symbol, locals included, in table order."""
        table = self._parsed().symtab
        return tuple(table.all()) if table else ()

    def defined_globals(self) -> list[elf.Symbol]:
        table = self._parsed().symtab
        return table.defined_globals() if table else []

    def undefined(self) -> list[elf.Symbol]:
        table = self._parsed().symtab
        return table.undefined() if table else []


def _from_answers(name: str, text_size: int, functions: tuple, symbols: tuple) -> ObjectInfo:
    return ObjectInfo(name, None, text_size=text_size, functions=functions, symbols=symbols)


def object_info(data, name: str, where: str = "", *, sub_kernel: bool = False) -> ObjectInfo:
    """One ELF object from its bytes; `where` names it in errors.

    sub_kernel: require ELF64, as every Ascend AI-core object is.
    """
    where = where or name
    if sub_kernel and data[:4] == elf.MAGIC and (len(data) < 5 or data[4] != 2):
        klass = {1: "ELF32"}.get(data[4] if len(data) > 4 else -1, "unknown ELF class")
        raise SkError(f"wrong ELF class ({klass})", where=where, value=name,
                      allowed="sub-kernel objects must be 64-bit ELF (ELFCLASS64)")
    return ObjectInfo(name, elf.parse(data, name, where))


def read_file(path: str, where: str = "", name: str | None = None) -> bytes:
    """An object or archive file's bytes; errors name it by `name` (default: its base name)."""
    name = os.path.basename(path) if name is None else name
    try:
        return infile.read_bytes(path, infile.OBJECT_LIMIT)
    except FileNotFoundError:
        raise SkError("object file not found", where=where or name, value=name,
                      allowed="the path must name an existing ELF object or ar archive") from None
    except OSError as err:
        raise SkError(f"object file cannot be read ({err.strerror})", where=where or name, value=name) from None


def read_object(path: str, where: str = "", *, name: str | None = None, data=None,
                sub_kernel: bool = False) -> ObjectInfo:
    """One ELF object file (an archive is refused), named by `name` (default: its path).

    data: its bytes when the caller has them (an mmap will do).
    """
    name = path if name is None else name
    if data is None:
        data = read_file(path, where, name)
    if data[:8] == ar.MAGIC:
        raise SkError("expected an ELF object but found an ar archive", where=where or name, value=name,
                      allowed="name the object, or pass the archive as the op's bin_path")
    return object_info(data, name, where, sub_kernel=sub_kernel)


def read_archive(path: str) -> list[ObjectInfo]:
    """Every ELF member of an `ar` archive, duplicates included (what the linker sees)."""
    return [object_info(body, f"{path}({member})") for member, body in ar.read_members(path)
            if body[:4] == elf.MAGIC]


def provided_symbols(path: str) -> set[str]:
    """Global symbols a library (.a or .so) or object defines."""
    data = read_file(path, name=path)
    infos = read_archive(path) if ar.is_archive(data) else [object_info(data, path)]
    return {s.name for info in infos for s in info.defined_globals()}


def archive_facts(data: bytes, name: str) -> dict:
    """The engine's answers for every member of an archive (by ar.by_name), keyed to the archive's bytes.

    `sk subkernel pack` stores this in the sub-op JSON it writes beside the
    archive. `sk gen` reads a SuperKernel's sub-kernels ~5,000 objects at a
    time; with these facts it hashes each archive (C speed) instead of parsing
    it again in Python, and gets the same answers.
    """
    return {"format": FACTS_FORMAT, "sha256": hashlib.sha256(data).hexdigest(),
            "members": {member: object_info(body, member, sub_kernel=True).facts()
                        for member, body in ar.by_name(ar.members(data, name)).items()}}


def objects_from_facts(facts, data: bytes, where: str = "") -> dict[str, ObjectInfo] | None:
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
        if not 0 <= size < 2**64:
            # They claim to describe these very bytes (sha256): a size no object can have is refused, not used.
            raise SkError("packed facts give a text_size out of range", where=f"{where}: {FACTS_KEY}.members.{member}"
                          ".text_size" if where else f"{FACTS_KEY}.members.{member}.text_size", value=size,
                          allowed="a whole number from 0 to 18446744073709551615 (uint64_t); "
                                  "pack the sub-kernel again (sk subkernel pack)")
        out[member] = _from_answers(member, size, tuple(funcs), tuple(syms))
    return out
