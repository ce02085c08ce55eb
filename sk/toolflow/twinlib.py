"""Shared libraries the CPU twin loads: a standalone kernel's or a SuperKernel's object, runtime symbols left open.

Bazel's SkTwinLib (`sk twin lib`) and `sk run` both link through here, so both
front ends produce the same library from the same objects.
"""

from __future__ import annotations

from sk.base.toolrun import atomic_output, run_tool
from sk.toolflow import toolargv


def tiling_function(compiler: str, sources: list[str], out: str, *, include_dir: str, include_dirs=(), extra=(),
                    what: str = "the tiling function", linker: str | None = None) -> str:
    """A tiling-sink kernel's host tiling function (sk_tiling.h) as a shared library the twin calls
    (`sk twin tiling`, and `sk run`)."""
    with atomic_output(out) as tmp:
        run_tool(toolargv.tiling_function_argv(compiler, sources, tmp, include_dir=include_dir,
                                               include_dirs=include_dirs, extra=list(extra), linker=linker),
                 step=f"compiling {what}", where=out)
    return out


def link_shared(tools: toolargv.Tools, objects: list[str], out: str, extra=()) -> str:
    # A multi-tiling-key kernel's compile is an archive of one object per key: every key is linked.
    objects = [tok for obj in objects for tok in (toolargv.driver_whole_archive(obj) if _is_archive(obj) else [obj])]
    with atomic_output(out) as tmp:
        run_tool(toolargv.twin_shared_argv(tools, objects, tmp, extra=list(extra)),
                 step="linking a twin shared library", where=out)
    return out


def _is_archive(path: str) -> bool:
    from sk.binfmt import ar

    try:
        with open(path, "rb") as f:
            return ar.is_archive(f.read(8))
    except OSError:
        return False  # the link names the missing object
