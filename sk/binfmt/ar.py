"""`ar` archives: the one reader and writer of them in sk.

Upstream ships a sub-kernel as an archive of its object and split copies
(facts §2.2, `split_sub_kernel_objs`); the twin runtime is a static library.
Read: System V / GNU names (`name/`, and `/N` into the `//` long-name table)
and BSD names (`#1/N`: the name is the first N bytes of the member's data);
symbol indexes (`/`, `/SYM64/`, `__.SYMDEF`, `__.SYMDEF SORTED`) are skipped.

Duplicate member names (ar allows them; `ar q` appends another `a.o`): every
member is listed, in archive order, by members() and member_names(), which is
what `ld --whole-archive` links. A member looked up BY NAME is the FIRST one
of that name (by_name()): the member GNU ld pulls in first and `ar p`/`ar xN 1`
give. The engine (which object defines a sub-kernel) and the link (which
object is extracted) both look up through by_name(), so they read the same
bytes. (linkprep hands ld a whole archive only when its member names are
exactly the plan's, which a duplicate never is.)

Written: deterministic archives (zero timestamps, uid/gid 0, mode 644,
members in the order given, GNU long names beyond 15 bytes, no symbol
index: the link extracts members by name and passes them in plan order).
"""

from __future__ import annotations

import errno
import os
import stat
import struct

from sk.base import infile
from sk.base.errors import SkError

MAGIC = b"!<arch>\n"
_SYMBOL_INDEXES = frozenset(("/", "/SYM64/", "__.SYMDEF", "__.SYMDEF SORTED"))
# An ar member header: name, (date, uid, gid, mode), size, terminator.
_HEADER = struct.Struct("16s32x10s2s")
# member_names() reads this much at once: the headers of a sub-kernel archive (an object and its
# split copies, tens of KB) in one system call; beyond it, 60 bytes per member.
_HEAD_BYTES = 1 << 16


def is_archive(data: bytes) -> bool:
    return data.startswith(MAGIC)


def _header(name: bytes, size: int) -> bytes:
    return (name.ljust(16) + b"0".ljust(12) + b"0".ljust(6) + b"0".ljust(6) + b"100644".ljust(8)
            + str(size).encode().ljust(10) + b"`\n")


def pack(members: list[tuple[str, bytes]]) -> bytes:
    """members: (file name, bytes). Names must be unique base names."""
    names = [n for n, _ in members]
    if len(set(names)) != len(names):
        raise ValueError(f"duplicate archive member names: {names}")
    longnames = b""
    refs = {}
    for name in names:
        raw = name.encode()
        if len(raw) > 15:
            refs[name] = b"/" + str(len(longnames)).encode()
            longnames += raw + b"/\n"
    out = bytearray(MAGIC)
    if longnames:
        out += _header(b"//", len(longnames)) + longnames + (b"\n" if len(longnames) & 1 else b"")
    for name, data in members:
        out += _header(refs.get(name, name.encode() + b"/"), len(data)) + data
        if len(data) & 1:
            out += b"\n"
    return bytes(out)


def by_name(members: list[tuple[str, bytes]]) -> dict[str, bytes]:
    """{name: bytes}: the first member of each name (see the module docstring). Keys in archive order."""
    found: dict[str, bytes] = {}
    for name, data in members:
        if name not in found:
            found[name] = data
    return found


def members(data: bytes, name: str, where: str = "") -> list[tuple[str, bytes]]:
    """(member name, bytes) of every member of the archive `data`, in archive order, duplicates kept.

    name: the archive as messages show it; where: the place that named it.
    """
    if not is_archive(data):
        raise _not_an_archive(name, where)
    return [(member, data[at:at + size]) for member, at, size in _walk(_Place(name, where), len(data), data)]


def read_members(path: str, where: str = "") -> list[tuple[str, bytes]]:
    """members() of the archive file `path`, named by its path in messages."""
    try:
        data = infile.read_bytes(path, infile.OBJECT_LIMIT)
    except OSError as err:
        raise _unreadable(path, where, err) from None
    return members(data, path, where)


def member_names(path: str, strict: bool = True, where: str = "") -> list[str] | None:
    """The names members() gives, in order, with its errors, without reading the members' data.

    The link step needs a sub-kernel archive's member names, not its bytes:
    it reads the headers (and BSD names) and seeks over the data.
    strict=False: None for a file that is not an ar archive.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as err:
        raise _unreadable(path, where, err) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise infile.NotReadable(errno.EINVAL, "not a regular file")
        total = st.st_size
        head = os.pread(fd, min(total, _HEAD_BYTES), 0)
        if not is_archive(head):
            if strict:
                raise _not_an_archive(path, where)
            return None
        return [member for member, _, _ in _walk(_Place(path, where), total, head, fd)]
    except OSError as err:
        raise _unreadable(path, where, err) from None
    finally:
        os.close(fd)


class _Place:
    """Names the archive (and a byte in it) in messages."""

    def __init__(self, name: str, where: str):
        self.name, self.where = name, where

    def at(self, pos: int) -> str:
        return f"{self.where}: {self.name} at byte {pos}" if self.where else f"{self.name} at byte {pos}"


def _not_an_archive(name: str, where: str) -> SkError:
    return SkError("not an ar archive", where=f"{where}: {name}" if where else name,
                   allowed="pass an ar archive such as the object written by `sk subkernel pack`")


def _unreadable(path: str, where: str, err: OSError) -> SkError:
    return SkError("cannot read sub-kernel archive", where=f"{where}: {path}" if where else path,
                   value=err.strerror)


def _walk(place: _Place, total: int, data: bytes, fd: int | None = None) -> list[tuple[str, int, int]]:
    """(name, data offset, size) of every regular member of an archive of `total` bytes.

    data: the file's first bytes, all of them without `fd`; the rest is read from fd.
    """
    pos, longnames, out = len(MAGIC), b"", []
    have, unpack = len(data), _HEADER.unpack_from

    def read(at: int, size: int) -> bytes:
        return data[at:at + size] if at + size <= have else os.pread(fd, size, at)

    while pos < total:
        if total - pos < 60:
            raise SkError("truncated ar archive (member header cut short)", where=place.at(pos),
                          allowed=f"a 60-byte member header; {total - pos} bytes remain; rebuild the archive")
        raw, size_field, end = unpack(data, pos) if pos + 60 <= have else unpack(os.pread(fd, 60, pos))
        if end != b"`\n":
            raise SkError("corrupt ar archive member header", where=place.at(pos),
                          allowed="a member header ends in \"`\\n\"; rebuild the archive")
        size = size_field.strip()
        # Decimal digits only: int() would also take "-60" (a header that never advances) or "1_0".
        if not size.isdigit():  # bytes.isdigit(): ASCII digits only
            raise SkError("corrupt ar archive member size", where=place.at(pos),
                          value=size_field.decode("ascii", "replace").strip(),
                          allowed="a decimal byte count; rebuild the archive")
        size = int(size)
        at, length = pos + 60, size
        if total - at < size:
            raise SkError("truncated ar archive (member data cut short)", where=place.at(pos), value=size,
                          allowed=f"{total - at} bytes remain; rebuild the archive")
        name = raw.rstrip(b" ").decode("utf-8", "replace")
        if name == "//":
            longnames = read(at, size)
            name = None
        elif name.startswith("#1/"):
            digits = name[3:]
            if not (digits.isascii() and digits.isdigit()) or int(digits) > size:
                raise SkError("corrupt ar archive BSD long-name length", where=place.at(pos), value=name,
                              allowed=f"#1/<length of the name stored before the data, at most {size}>")
            n = int(digits)
            name = read(at, n).rstrip(b"\0").decode("utf-8", "replace")
            at, length = at + n, size - n
        elif name.startswith("/") and name[1:].isascii() and name[1:].isdigit():
            start = int(name[1:])
            stop = longnames.find(b"\n", start)
            if start >= len(longnames) or stop < 0:
                raise SkError("corrupt ar archive long name", where=place.at(pos), value=name,
                              allowed=f"an offset into the {len(longnames)}-byte long-name table")
            name = longnames[start:stop].decode("utf-8", "replace")
            name = name[:-1] if name.endswith("/") else name
        elif name not in _SYMBOL_INDEXES:
            name = name[:-1] if name.endswith("/") else name
        if name is not None and name not in _SYMBOL_INDEXES:
            out.append((name, at, length))
        pos += 60 + size + (size & 1)
    return out
