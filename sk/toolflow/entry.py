"""Compiling the generated SuperKernel source (`sk entry compile`).

Upstream compiles the generated `<name>_kernel.cpp` once per core side the
SuperKernel needs (facts §6.3-6.4): MIX 1:1 / 1:2 twice, cube with
`-Dauto_gen_<name>_kernel=<name>_mix_aic` and vector with `..._mix_aiv`
(plus `-D__MIX_CORE_MACRO__=1`, and `-D__MIX_CORE_AIC_RATION__=1` for 1:1);
MIX_AIC_1_0 once for cube, MIX_AIV_1_0 once for vector. Every compile gets
`-DTILING_KEY_VAR=0UL` and the SK defines and user compile-options the engine
wrote to `<name>.compile_options.json`. On the host the twin decides the core
type at run time, and the two halves are launched as the AIC and AIV entries.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

from sk.toolflow import toolargv
from sk.base import infile
from sk.base.errors import SkError
from sk.base.toolrun import atomic_output, run_tool
from sk.toolflow.linkprep import localize_entry

@dataclass(frozen=True)
class EntryUnit:
    side: str  # cube | vec
    symbol: str  # <name>_mix_aic | <name>_mix_aiv
    file_name: str  # <symbol>.o
    tail: tuple[str, ...]  # upstream's per-half defines


def units(plan) -> list[EntryUnit]:
    """One compile per entry of the plan, with upstream's per-half defines."""
    out = []
    for e in plan.entries:
        tail = [e.define, *toolargv.kernel_type_tail(plan.kernel_type)]
        out.append(EntryUnit(e.arch, e.symbol, e.object_name, tuple(tail)))
    if not out:
        raise SkError("the plan has no entries to compile", where="plan: entries")
    return out


def load_compile_options(path: str) -> list[str]:
    """The compile flags the engine chose (SK defines, compile-options)."""
    try:
        doc = json.loads(infile.read_text(path))
    except FileNotFoundError:
        raise SkError("compile options file not found", where="--compile-options", value=path) from None
    except (OSError, UnicodeDecodeError) as err:
        raise SkError(f"compile options file cannot be read ({getattr(err, 'strerror', None) or err})",
                      where="--compile-options", value=path) from None
    except json.JSONDecodeError as err:
        raise SkError(f"compile options file is not valid JSON ({err.msg})", where=path) from None
    flags = doc.get("options", doc.get("compile_options", doc.get("flags"))) if isinstance(doc, dict) else doc
    if not isinstance(flags, list) or not all(isinstance(f, str) for f in flags):
        raise SkError("compile options must be a list of flags", where=f"{path}: options", value=flags,
                      allowed='{"options": ["-D...", ...]} as written by `sk gen`')
    return flags


def compile_entry(tools: toolargv.Tools, plan, *, src: str, flags: list[str], out_dir: str | None = None,
                  side: str | None = None, out: str | None = None, include_dirs=(),
                  extra=()) -> list[tuple[EntryUnit, str]]:
    """Compiles the halves (all, or the one `side`) into out_dir, or the one `side` into `out`; returns
    (unit, path).

    side with out_dir: that half if the plan has one, else nothing (a build declares one action per side
    before the plan says which exist). With an objcopy in `tools`, each half leaves with its entry symbol
    its only global and its COMDAT groups dissolved, as `sk link` needs it (linkprep.localize_entry): that
    work depends on this half alone, so it is done in this cached action and not in every link.
    """
    todo = units(plan)
    if side is not None:
        picked = [u for u in todo if u.side == side]
        if not picked and out is not None:
            raise SkError(f"a {plan.kernel_type} SuperKernel has no {side} half", where="--arch", value=side,
                          allowed="one of " + ", ".join(u.side for u in todo))
        todo = picked
    defines = toolargv.translate_flags(tools.flavor, flags)
    written = []
    for unit in todo:
        dst = out if out else os.path.join(out_dir, unit.file_name)
        with atomic_output(dst) as tmp:
            compiled = tmp + ".raw" if tools.objcopy else tmp
            try:
                argv = toolargv.entry_compile_argv(tools, src, compiled, arch=unit.side, include_dirs=include_dirs,
                                                   defines=defines, extra=extra, tail=unit.tail)
                run_tool(argv, step=f"compiling the SuperKernel entry ({unit.side} half)", where=src)
                if tools.objcopy:
                    localize_entry(tools, compiled, tmp, unit.symbol, label=f"{src} ({unit.side} half)")
            finally:
                if compiled != tmp and os.path.exists(compiled):
                    os.unlink(compiled)
        written.append((unit, dst))
    if out_dir is not None:
        os.makedirs(out_dir, exist_ok=True)  # a side the plan lacks still leaves its (empty) directory
    return written
