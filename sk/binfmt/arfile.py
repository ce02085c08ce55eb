"""Deterministic `ar` archives of object files (the sub-op "bin", as upstream).

Upstream ships a sub-kernel as an archive of its object and split copies
(facts §2.2, `split_sub_kernel_objs`). We write the archive ourselves so it is
byte-reproducible: zero timestamps, uid/gid 0, mode 644, members in the order
given, GNU long-name table when a name exceeds 15 bytes. No symbol index: the
link step extracts members by name and passes them in the plan's order.
"""

from __future__ import annotations

import os
import struct

from sk.base.errors import SkError

MAGIC = b"!<arch>\n"


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


def is_archive(path: str) -> bool:
    with open(path, "rb") as f:
        return f.read(8) == MAGIC


def members(path: str) -> list[tuple[str, bytes]]:
    """(name, bytes) of every regular member, in archive order."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as err:
        raise SkError("cannot read sub-kernel archive", where=path, value=err.strerror) from None
    if not data.startswith(MAGIC):
        raise _not_an_archive(path)
    return [(name, data[at:at + size]) for name, at, size in _walk(path, len(data), data)]


# member_names() reads this much at once: the headers of a sub-kernel archive (an object and its
# split copies, tens of KB) in one system call; beyond it, 60 bytes per member.
_HEAD_BYTES = 1 << 16


def member_names(path: str, strict: bool = True) -> list[str] | None:
    """The names members() gives, in order, with its errors, without reading the members' data.

    The link step needs a sub-kernel archive's member names, not its bytes:
    it reads the headers and seeks over the data. strict=False: None for a
    file that is not an ar archive.
    """
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError as err:
        raise SkError("cannot read sub-kernel archive", where=path, value=err.strerror) from None
    try:
        total = os.fstat(fd).st_size
        head = os.pread(fd, min(total, _HEAD_BYTES), 0)
        if not head.startswith(MAGIC):
            if strict:
                raise _not_an_archive(path)
            return None
        return [name for name, _, _ in _walk(path, total, head, fd)]
    except OSError as err:
        raise SkError("cannot read sub-kernel archive", where=path, value=err.strerror) from None
    finally:
        os.close(fd)


def _not_an_archive(path: str) -> SkError:
    return SkError("not an ar archive", where=path, allowed="pass the object written by `sk subkernel pack`")


# An ar member header: name, (date, uid, gid, mode), size, terminator.
_HEADER = struct.Struct("16s32x10s2s")


def _walk(path: str, total: int, data: bytes, fd: int | None = None) -> list[tuple[str, int, int]]:
    """(name, data offset, size) of every regular member of an archive of `total` bytes.

    data: the file's first bytes, all of them without `fd`; the rest is read from fd.
    """
    pos, longnames, out = 8, b"", []
    have, unpack = len(data), _HEADER.unpack_from
    while pos + 60 <= total:
        name, size_field, end = unpack(data, pos) if pos + 60 <= have else unpack(os.pread(fd, 60, pos))
        if end != b"`\n":
            raise SkError("corrupt ar archive member header", where=f"{path} at byte {pos}")
        name = name.decode("utf-8", "replace").rstrip()
        size = size_field.strip()
        if not size.isdigit():  # the usual field, else what str.strip() and str.isdigit() make of it
            size = size_field.decode("ascii", "replace").strip() or "0"
            # Decimal digits only: int() would also take "-60", a header that never advances.
            if not (size.isascii() and size.isdigit()):
                raise SkError("corrupt ar archive member size", where=f"{path} at byte {pos}", value=size,
                              allowed="a decimal byte count; rebuild the archive")
        size = int(size)
        if total - pos - 60 < size:
            raise SkError("truncated ar archive (member data cut short)", where=f"{path} at byte {pos}",
                          value=size, allowed=f"{total - pos - 60} bytes remain; rebuild the archive")
        if name == "//":
            at = pos + 60
            longnames = data[at:at + size] if at + size <= have else os.pread(fd, size, at)
        elif name not in ("/", "/SYM64/"):
            if name.startswith("/") and name[1:].isascii() and name[1:].isdigit():
                start = int(name[1:])
                end = longnames.find(b"/\n", start)
                if start >= len(longnames) or end < 0:
                    raise SkError("corrupt ar archive long name", where=f"{path} at byte {pos}", value=name,
                                  allowed=f"an offset into the {len(longnames)}-byte long-name table")
                name = longnames[start:end].decode("utf-8", "replace")
            out.append((name[:-1] if name.endswith("/") else name, pos + 60, size))
        pos += 60 + size + (size & 1)
    return out
