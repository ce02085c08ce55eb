"""`sk gen`'s second process: it loads a share of the sub-ops, then renders the source.

`sk gen` of 1,200 sub-kernels is a chain of Python work on one core: read
and check every sub-op (JSON, archive digest, object facts), plan, then
encode three JSON files and render 2.6 MB of source with jinja2. The
machine has a second core, so `sk gen` forks this helper as soon as it has
read kernel_infos:

  helper                                 sk gen
  loads op_list[cut:]                    imports the planner, loads op_list[:cut]
  sends the SubOps back (pickle)         receives them, plans
  imports jinja2, loads the templates    sends plan.code (marshal), encodes the JSON files
  renders into an anonymous file         names that file with the other outputs (toolrun.publish)

Nothing changes but the time taken: the SubOps are the ones load_ops returns
(errors included: a user error found by the helper is raised by `sk gen`
exactly as if it had loaded that op itself, and ops before it are checked
first), and the text is what sk.render.codegen.render_source returns. Where the OS
cannot fork, or the helper fails in any other way (it died, something would
not pickle), `sk gen` does that part itself, so an internal error surfaces
in `sk gen`, as it always did.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import pickle
import struct
import threading

from sk.base.errors import SkError

# The templates the helper compiles before plan.code arrives (the others are small and
# compiled on first use).
PRECOMPILED = ("kernel.cpp.j2", "steps.j2", "dynamic.j2")
# Below this many ops the helper's start costs more than loading its share saves.
MIN_SHARED_OPS = 64
_FRAME = struct.Struct("<Q")


def helper_share(n_ops: int) -> int:
    """Index of the first op the helper loads: 55 % of them, as this process also imports the
    planner meanwhile (measured: both shares then arrive together, and the helper's jinja2
    import still ends before the plan is ready)."""
    return n_ops if n_ops < MIN_SHARED_OPS else n_ops * 9 // 20


class GenHelper:
    """start() with the ops to load, loaded() for them, submit(plan) and result() for the source, close()."""

    def __init__(self, entries=(), base_dir: str = "", start: int = 0, platform=None):
        # platform: the SuperKernel's (sk.engine.platforms.Platform; None: the default SoC's)
        self._job = (list(entries), base_dir, start, platform)
        self._pid = None
        self._to_child = self._from_child = None
        self._writer = None
        self._plan = None
        self._scratch = None  # an anonymous file (fd) in the output directory the helper renders into

    @classmethod
    def start(cls, entries=(), base_dir: str = "", start: int = 0, out_dir: str | None = None,
              platform=None) -> "GenHelper":
        """Forks the helper, which begins loading `entries` (op_list[start:]) at once, for `platform`.

        out_dir: where the source goes; the helper writes it into an anonymous file there
        (toolrun.anonymous_file, made before the fork so the helper holds it too), which never
        has a name unless `sk gen` publishes it, whoever of the two is killed when.
        """
        helper = cls(entries, base_dir, start, platform)
        if hasattr(os, "fork"):
            if out_dir and os.path.isdir(out_dir):
                from sk.base.toolrun import anonymous_file

                helper._scratch = anonymous_file(out_dir)
            helper._fork()
        return helper

    def _fork(self) -> None:
        down_r, down_w = os.pipe()
        up_r, up_w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the helper: never returns
            status = 1
            try:
                os.close(down_w)
                os.close(up_r)
                status = _serve(self._job, down_r, up_w)
            finally:
                os._exit(status)
        os.close(down_r)
        os.close(up_w)
        self._pid, self._to_child, self._from_child = pid, down_w, up_r

    def loaded(self) -> tuple:
        """The SubOps of the entries given to start(): the helper's, or loaded here if it has none."""
        if self._pid is not None and self._job[0]:
            reply = _read_frame(self._from_child)
            if reply is not None:
                kind, value = reply
                if kind == "ops":
                    return value
                if kind == "user_error":
                    raise value
        return _load(self._job)

    def submit(self, plan) -> None:
        """Hands the plan over; returns at once (a thread feeds the pipe while the helper compiles).

        With an anonymous file from start(out_dir=...), the helper writes the source there,
        cheaper than sending megabytes back through the pipe."""
        self._plan = plan
        if self._pid is None:
            return
        # marshal: plan.code is plain data (dicts, lists, strings, numbers), and both ends are
        # the same interpreter; it encodes and decodes 2-3x faster than pickle.
        data = marshal.dumps((self._scratch, plan.code))
        fd, self._to_child = self._to_child, None

        def feed():
            try:
                with open(fd, "wb") as pipe:
                    pipe.write(data)
            except OSError:
                pass  # the helper is gone; result() renders here

        self._writer = threading.Thread(target=feed, daemon=True)
        self._writer.start()

    def result(self, as_file: bool = False):
        """The source text of the submitted plan; with as_file, a toolrun.WrittenFile where the
        helper wrote it to the anonymous file (write_files_atomic names it)."""
        if self._pid is not None:
            fd, self._from_child = self._from_child, None
            with open(fd, "rb") as pipe:
                data = pipe.read()
            self._writer.join()
            if self._reap() == 0:
                if data:
                    return data.decode("utf-8")
                if self._scratch is not None and data == b"":
                    scratch, self._scratch = self._scratch, None
                    if as_file:  # the caller owns the file from here on
                        from sk.base.toolrun import WrittenFile

                        return WrittenFile(fd=scratch)
                    try:
                        return os.pread(scratch, os.fstat(scratch).st_size, 0).decode("utf-8")
                    finally:
                        os.close(scratch)
        from sk.render.codegen import render_source

        return render_source(self._plan)

    def close(self) -> None:
        """Ends the helper if it is still there (an error before result(), or an interrupt)."""
        for fd in (self._to_child, self._from_child):
            if fd is not None:
                os.close(fd)
        self._to_child = self._from_child = None
        if self._pid is not None:
            try:
                os.kill(self._pid, 9)
            except ProcessLookupError:
                pass
            self._reap()
        if self._scratch is not None:
            with contextlib.suppress(OSError):
                os.close(self._scratch)
            self._scratch = None

    def _reap(self) -> int:
        pid, self._pid = self._pid, None
        _, status = os.waitpid(pid, 0)
        return os.waitstatus_to_exitcode(status)


def _read_frame(fd: int):
    """One length-prefixed pickle from the helper, or None when it sent none (it died or failed)."""
    head = _read_exactly(fd, _FRAME.size)
    if head is None:
        return None
    body = _read_exactly(fd, _FRAME.unpack(head)[0])
    return None if body is None else pickle.loads(body)


def _read_exactly(fd: int, n: int) -> bytes | None:
    chunks, left = [], n
    while left:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _write_frame(fd: int, payload: bytes) -> None:
    data = _FRAME.pack(len(payload)) + payload
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _load(job) -> tuple:
    from sk.engine.platforms import get_platform
    from sk.engine.subop import load_ops

    entries, base_dir, start, platform = job
    return load_ops(entries, base_dir, start, platform=platform or get_platform())


def _load_reply(job) -> bytes:
    """The pickled reply to the load job: ("ops", SubOps) or ("user_error", SkError)."""
    try:
        reply = ("ops", _load(job))
    except SkError as err:
        reply = ("user_error", err)
    return pickle.dumps(reply, protocol=pickle.HIGHEST_PROTOCOL)


def _serve(job, down: int, up: int) -> int:
    """The helper's work: load, send, compile templates, wait for plan.code, render, send. 0 when all sent."""
    writer = None
    if job[0]:
        reply = _load_reply(job)  # anything else escaping ends the helper; sk gen then loads the ops itself
        # Sent by a thread: the reply is read only when sk gen has loaded its own share, and
        # the templates can compile meanwhile.
        writer = threading.Thread(target=_write_frame, args=(up, reply), daemon=True)
        writer.start()
    from sk.render import codegen

    env = codegen.shared_environment(PRECOMPILED)
    with open(down, "rb") as pipe:
        data = pipe.read()
    if writer is not None:
        writer.join()
    if not data:
        return 0  # sk gen stopped before planning (an error it reports itself)
    scratch, code = marshal.loads(data)
    text = codegen.render_code(code, env).encode("utf-8")
    if scratch is not None:  # the anonymous file sk gen made before the fork (the same file)
        view = memoryview(text)
        at = 0
        while at < len(view):
            at += os.pwrite(scratch, view[at:], at)
        os.ftruncate(scratch, at)
        return 0
    with open(up, "wb") as pipe:
        pipe.write(text)
    return 0
