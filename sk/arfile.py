"""Deterministic `ar` archives of object files (the sub-op "bin", as upstream).

Upstream ships a sub-kernel as an archive of its object and split copies
(facts §2.2, `split_sub_kernel_objs`). We write the archive ourselves so it is
byte-reproducible: zero timestamps, uid/gid 0, mode 644, members in the order
given, GNU long-name table when a name exceeds 15 bytes. No symbol index: the
link step extracts members by name and passes them in the plan's order.
"""

from __future__ import annotations

from sk.errors import SkError

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
        raise SkError("not an ar archive", where=path,
                      allowed="pass the object written by `sk subkernel pack`")
    pos, longnames, out = 8, b"", []
    while pos + 60 <= len(data):
        header = data[pos:pos + 60]
        if header[58:60] != b"`\n":
            raise SkError("corrupt ar archive member header", where=f"{path} at byte {pos}")
        name = header[:16].decode("utf-8", "replace").rstrip()
        size_field = header[48:58].decode("ascii", "replace").strip() or "0"
        # Decimal digits only: int() would also take "-60", a header that never advances.
        if not (size_field.isascii() and size_field.isdigit()):
            raise SkError("corrupt ar archive member size", where=f"{path} at byte {pos}", value=size_field,
                          allowed="a decimal byte count; rebuild the archive")
        size = int(size_field)
        body = data[pos + 60:pos + 60 + size]
        if len(body) < size:
            raise SkError("truncated ar archive (member data cut short)", where=f"{path} at byte {pos}",
                          value=size, allowed=f"{len(body)} bytes remain; rebuild the archive")
        if name == "//":
            longnames = body
        elif name in ("/", "/SYM64/"):
            pass
        else:
            if name.startswith("/") and name[1:].isascii() and name[1:].isdigit():
                start = int(name[1:])
                end = longnames.find(b"/\n", start)
                if start >= len(longnames) or end < 0:
                    raise SkError("corrupt ar archive long name", where=f"{path} at byte {pos}", value=name,
                                  allowed=f"an offset into the {len(longnames)}-byte long-name table")
                name = longnames[start:end].decode("utf-8", "replace")
            out.append((name[:-1] if name.endswith("/") else name, body))
        pos += 60 + size + (size & 1)
    return out
