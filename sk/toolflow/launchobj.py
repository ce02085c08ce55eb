"""The kernel objects a CPU-twin launch library links: copies whose only global symbol is renamed.

On the twin the kernels are host code linked into the user's program, so an
entry named like something of the user's (a tiling variable called `prep`
beside the kernel `prep`) would resolve to the wrong symbol, and two kernels
defining the same helper would clash. Each copy keeps only the launched
symbols global (standalone kernels are localised as the SuperKernel entry
halves are), renamed to the launch library's own names
(sk.engine.launchspec.twin_objects).
"""

from __future__ import annotations

import os
import shutil

from sk.base import infile
from sk.base.errors import SkError
from sk.base.toolrun import atomic_output, run_tool
from sk.toolflow import toolargv
from sk.toolflow.linkprep import localize_entry


def write_twin_object(tools: toolargv.Tools, src: str, dst: str, renames, localize: bool) -> None:
    """dst: src with every (old, new) symbol renamed; localize: first make renames[0]'s old name its only global."""
    problem = infile.input_problem(src, limit=infile.OBJECT_LIMIT)
    if problem:  # copied by sk itself, not a tool: a FIFO would block the copy
        raise SkError(f"the launched object {problem}", where="--twin-obj", value=src)
    with atomic_output(dst) as tmp:
        raw, local = tmp + ".raw", tmp + ".local"
        try:
            shutil.copyfile(src, raw)  # localize_entry may rewrite its input in place
            if localize:
                localize_entry(tools, raw, local, renames[0][0], label=src)
            else:
                os.replace(raw, local)
            run_tool(toolargv.redefine_argv(tools, local, tmp, renames), step="renaming the launched symbols",
                     where=src)
        finally:
            for scratch in (raw, local):
                if os.path.exists(scratch):
                    os.unlink(scratch)
