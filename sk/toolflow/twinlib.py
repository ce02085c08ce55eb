"""Shared libraries the CPU twin loads: a standalone kernel's or a SuperKernel's object, runtime symbols left open.

Bazel's SkTwinLib (`sk twin lib`) and `sk run` both link through here, so both
front ends produce the same library from the same objects.
"""

from sk.base.toolrun import atomic_output, run_tool
from sk.toolflow import toolargv


def link_shared(tools: toolargv.Tools, objects: list[str], out: str, extra=()) -> str:
    with atomic_output(out) as tmp:
        run_tool(toolargv.twin_shared_argv(tools, objects, tmp, extra=list(extra)),
                 step="linking a twin shared library", where=out)
    return out
