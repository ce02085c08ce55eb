"""Reading an input file with limits: a regular file, of bounded size; the input gate's checks.

A path that names /dev/zero grows memory without end, a FIFO blocks the
read (and the open) for ever, a directory fails somewhere deep in a parser,
and /proc/kmsg blocks while /proc/self/mem fails with EIO although both
call themselves regular files. Every file sk reads goes through here: opened
without blocking, refused unless it is a regular file outside the kernel's
pseudo file systems, refused above a size cap, with the reason as an
OSError whose strerror says it in words, so each caller's own message
("sub-op JSON cannot be read (...)") names the file and the reason.

`input_problem` is the same check without reading, for a path sk hands to a
tool (compiler, linker, objcopy, ar): the CLI's input gate (sk/cli/gates.py)
runs it on every path flag before a command starts, and sk/base/toolrun.py
on every path in a tool's argv before the tool starts.
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
# C++ sources and headers handed to a compiler: the generated source of 1,200 sub-kernels is about 2 MB.
SOURCE_LIMIT = 256 * MiB
# `@params` files: 1,200 sub-kernels make about 200 KB of arguments.
PARAMS_LIMIT = 64 * MiB

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))
# The kernel's pseudo file systems: their "regular" files block (/proc/kmsg), fail (/proc/self/mem) or
# lie about their size (0 bytes, then any amount). Nothing sk reads or builds lives there.
PSEUDO_ROOTS = ("/proc", "/sys", "/dev")
# ... except /dev's memory file system, a place for ordinary files (and for $TMPDIR).
_REAL_IN_PSEUDO = ("/dev/shm",)


class NotReadable(OSError):
    """The path is not a regular file, or it is larger than the limit (strerror says which)."""


def describe_limit(limit: int) -> str:
    return f"{limit // MiB} MiB" if limit >= MiB else f"{limit} bytes"


def kind_of(mode: int) -> str:
    """What a stat mode is, in words ("a FIFO (named pipe)"); "a regular file" for one."""
    if stat.S_ISREG(mode):
        return "a regular file"
    return next((text for test, text in _KINDS if test(mode)), "not a regular file")


def text_problem(text: str) -> str:
    """Why `text` cannot be a path or an argument ("" when it can): a NUL byte ends a C string early, a lone
    surrogate (a byte that is not UTF-8, as Python decodes argv) cannot be written into any UTF-8 output."""
    if "\0" in text:
        return "contains a NUL byte"
    if text.isascii():  # nearly every argument: no encoding needed to know
        return ""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as err:
        return f"contains a character that is not Unicode text ({text[err.start:err.end]!r} at {err.start})"
    return ""


def path_text_problem(path: str) -> str:
    """text_problem for a path, which also must not be empty."""
    return text_problem(path) or ("" if path else "is empty, not a path")


def pseudo_root(path: str) -> str:
    """The pseudo file system (/proc, /sys, /dev) `path` resolves into, or ""."""
    real = os.path.realpath(path)
    if any(real == keep or real.startswith(keep + "/") for keep in _REAL_IN_PSEUDO):
        return ""
    return next((root for root in PSEUDO_ROOTS if real == root or real.startswith(root + "/")), "")


def _pseudo(path: str, st: os.stat_result) -> str:
    """pseudo_root for a regular file or directory, asked only where it can be one: the pseudo file
    systems' files occupy no blocks (a realpath per object of a 1,200-op link is not free)."""
    return pseudo_root(path) if st.st_blocks == 0 or stat.S_ISDIR(st.st_mode) else ""


def input_problem(path: str, want: str = "file", limit: int | None = None, missing_ok: bool = False) -> str:
    """Why `path` cannot be read as an input ("" when it can), without opening it.

    want: "file" (a regular file, at most `limit` bytes), "dir" (a directory) or "any" (either; a
    tool's argument). Symbolic links are followed (Bazel's inputs are links) and what they lead to is
    checked. missing_ok: an absent path is no problem (the tool decides; an include directory the
    compiler skips).
    """
    problem = path_text_problem(path)
    if problem:
        return problem
    try:
        st = os.stat(path)
    except FileNotFoundError:
        if missing_ok:
            return ""
        return "is a symbolic link to nothing" if os.path.lexists(path) else "not found (no such file or directory)"
    except NotADirectoryError:
        return "not found: a parent of it is a file, not a directory"
    except OSError as err:
        return f"cannot be examined ({err.strerror or err})"
    is_dir, is_reg = stat.S_ISDIR(st.st_mode), stat.S_ISREG(st.st_mode)
    root = _pseudo(path, st) if is_dir or is_reg else ""
    if root:
        return f"is {kind_of(st.st_mode)} of {root}, a pseudo file system; sk reads nothing there"
    if is_dir and want in ("dir", "any"):
        if not os.access(path, os.R_OK | os.X_OK):
            return "is a directory sk may not read (permission denied)"
        return ""
    if want == "dir":
        return f"is {kind_of(st.st_mode)}, not a directory"
    if not is_reg:
        return f"is {kind_of(st.st_mode)}, not a regular file"
    if limit is not None and st.st_size > limit:
        return f"is {st.st_size} bytes, over the limit of {describe_limit(limit)} for this input"
    if not os.access(path, os.R_OK):
        return "cannot be read (permission denied)"
    return ""


def read_bytes(path: str, limit: int) -> bytes:
    """The whole file; NotReadable for a special file or one over `limit` bytes, else OSError as open() gives."""
    problem = text_problem(path)
    if problem:
        raise NotReadable(errno.EINVAL, f"the path {problem}")
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotReadable(errno.EINVAL, f"{kind_of(st.st_mode)}, not a regular file")
        root = _pseudo(path, st)
        if root:
            raise NotReadable(errno.EINVAL, f"a file of {root}, a pseudo file system, not a regular file")
        if st.st_size > limit:
            raise NotReadable(errno.EFBIG, f"{st.st_size} bytes, over the limit of {describe_limit(limit)} for this input")
        os.set_blocking(fd, True)
        chunks, total = [], 0
        while True:
            chunk = os.read(fd, min(limit + 1 - total, 1 << 24) or 1)
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:  # grew while being read
                raise NotReadable(errno.EFBIG, f"more than {describe_limit(limit)}, the limit for this input")
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_text(path: str, limit: int = JSON_LIMIT) -> str:
    """read_bytes decoded as UTF-8 (UnicodeDecodeError as open() in text mode gives)."""
    return read_bytes(path, limit).decode("utf-8")


def open_text(path: str, limit: int = JSON_LIMIT) -> io.StringIO:
    """A text file object over read_text, for readers written against open()."""
    return io.StringIO(read_text(path, limit))
