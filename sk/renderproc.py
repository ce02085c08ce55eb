"""Rendering the SuperKernel source in a forked helper process, beside `sk gen`'s own work.

`sk gen` of 1,200 sub-kernels spends ~0.2 s on jinja2: importing it,
compiling the templates and rendering 2.6 MB of source. None of that needs
the plan until the very end, and the machine has a second core, so `sk gen`
starts this helper first: the helper imports jinja2 and compiles the
templates while `sk gen` reads and plans the SuperKernel, then renders
`plan.code` (sent through a pipe) while `sk gen` encodes the JSON outputs.

The text is what sk.codegen.render_source returns either way. Where the OS
cannot fork, or the helper fails for any reason, the source is rendered in
this process instead, so a template error surfaces here, as it always did.
"""

from __future__ import annotations

import os
import pickle
import threading

# The templates the helper compiles before the plan arrives (the others are small and
# compiled on first use).
_PRECOMPILED = ("kernel.cpp.j2", "steps.j2", "dynamic.j2")


class Renderer:
    """start() early, render(plan) later, and close() at the end, also on errors."""

    def __init__(self):
        self._pid = None
        self._to_child = self._from_child = None
        self._writer = None
        self._plan = None

    @classmethod
    def start(cls) -> "Renderer":
        renderer = cls()
        if hasattr(os, "fork"):
            renderer._fork()
        return renderer

    def _fork(self) -> None:
        down_r, down_w = os.pipe()
        up_r, up_w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the helper: never returns
            status = 1
            try:
                os.close(down_w)
                os.close(up_r)
                status = _serve(down_r, up_w)
            finally:
                os._exit(status)
        os.close(down_r)
        os.close(up_w)
        self._pid, self._to_child, self._from_child = pid, down_w, up_r

    def submit(self, plan) -> None:
        """Hands the plan over; returns at once (a thread feeds the pipe while the helper compiles)."""
        self._plan = plan
        if self._pid is None:
            return
        data = pickle.dumps(plan.code, protocol=pickle.HIGHEST_PROTOCOL)
        fd, self._to_child = self._to_child, None

        def feed():
            try:
                with open(fd, "wb") as pipe:
                    pipe.write(data)
            except OSError:
                pass  # the helper is gone; result() renders here

        self._writer = threading.Thread(target=feed, daemon=True)
        self._writer.start()

    def result(self) -> str:
        """The source text of the submitted plan."""
        if self._pid is not None:
            with open(self._from_child, "rb") as pipe:
                self._from_child = None
                data = pipe.read()
            self._writer.join()
            ok = self._reap() == 0
            if ok:
                return data.decode("utf-8")
        from sk.codegen import render_source

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

    def _reap(self) -> int:
        pid, self._pid = self._pid, None
        _, status = os.waitpid(pid, 0)
        return os.waitstatus_to_exitcode(status)


def _serve(down: int, up: int) -> int:
    """The helper's work: compile, wait for plan.code, render, send. Exit status 0 when sent."""
    from sk import codegen

    env = codegen.environment()
    for name in _PRECOMPILED:
        env.get_template(name)
    with open(down, "rb") as pipe:
        data = pipe.read()
    if not data:
        return 0  # sk gen stopped before planning (an error it reports itself)
    text = codegen.render_code(pickle.loads(data), env)
    with open(up, "wb") as pipe:
        pipe.write(text.encode("utf-8"))
    return 0
