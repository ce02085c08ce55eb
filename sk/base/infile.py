"""Reading an input file with limits: a regular file, of bounded size.

A path that names /dev/zero grows memory without end, a FIFO blocks the
read (and the open) for ever, a directory fails somewhere deep in a parser.
Every file sk reads goes through here: opened without blocking, refused
unless it is a regular file, refused above a size cap, with the reason as
an OSError whose strerror says it in words, so each caller's own message
("sub-op JSON cannot be read (...)") names the file and the reason.
"""

from __future__ import annotations

import errno
import io
import os
import stat

MiB = 1 << 20
# JSON inputs (kernel_infos, sub-op JSON, plans, models): 1,200 sub-kernels make about 1 MB.
JSON_LIMIT = 256 * MiB
# Objects and archives: a sub-kernel is kilobytes, a SuperKernel of 1,200 some megabytes.
OBJECT_LIMIT = 2048 * MiB
# `@params` files: 1,200 sub-kernels make about 200 KB of arguments.
PARAMS_LIMIT = 64 * MiB

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


class NotReadable(OSError):
    """The path is not a regular file, or it is larger than the limit (strerror says which)."""


def _describe(limit: int) -> str:
    return f"{limit // MiB} MiB" if limit >= MiB else f"{limit} bytes"


def read_bytes(path: str, limit: int) -> bytes:
    """The whole file; NotReadable for a special file or one over `limit` bytes, else OSError as open() gives."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = next((text for test, text in _KINDS if test(st.st_mode)), "not a regular file")
            raise NotReadable(errno.EINVAL, f"{kind}, not a regular file")
        if st.st_size > limit:
            raise NotReadable(errno.EFBIG, f"{st.st_size} bytes, over the limit of {_describe(limit)} for this input")
        os.set_blocking(fd, True)
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, min(limit + 1 - total, 1 << 24) or 1)
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:  # grew while being read
                raise NotReadable(errno.EFBIG, f"more than {_describe(limit)}, the limit for this input")
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_text(path: str, limit: int = JSON_LIMIT) -> str:
    """read_bytes decoded as UTF-8 (UnicodeDecodeError as open() in text mode gives)."""
    return read_bytes(path, limit).decode("utf-8")


def open_text(path: str, limit: int = JSON_LIMIT) -> io.StringIO:
    """A text file object over read_text, for readers written against open()."""
    return io.StringIO(read_text(path, limit))
