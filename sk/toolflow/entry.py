"""Compiling the generated SuperKernel source (`sk entry compile`).

Upstream compiles the generated `<name>_kernel.cpp` once per core side the
SuperKernel needs (facts §6.3-6.4): MIX 1:1 / 1:2 twice, cube with
`-Dauto_gen_<name>_kernel=<name>_mix_aic` and vector with `..._mix_aiv`
(plus `-D__MIX_CORE_MACRO__=1`, and `-D__MIX_CORE_AIC_RATION__=1` for 1:1);
MIX_AIC_1_0 once for cube, MIX_AIV_1_0 once for vector. Every compile gets
`-DTILING_KEY_VAR=0UL` and `-D<name>=<name>_0_tilingkey` after the tail, and
the SK defines and user compile-options the engine wrote to
`<name>.compile_options.json`. On the host the twin decides the core type at
run time, and the two halves are launched as the AIC and AIV entries.

At split-mode > 1 each half then becomes its split set (sk.toolflow.entrysplit:
copies, the renamed original, the entry stub), which `sk link` links where the
plan names the half.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

from sk.toolflow import entrysplit, toolargv
from sk.base import infile, jsonload
from sk.base.errors import SkError
from sk.base.toolrun import atomic_output, publish, run_tool, scratch_dir, stage_file
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
        tail = [e.define, *toolargv.kernel_type_tail(plan.kernel_type), toolargv.tiling_key_rename(plan.kernel_name)]
        out.append(EntryUnit(e.arch, e.symbol, e.object_name, tuple(tail)))
    if not out:
        raise SkError("the plan has no entries to compile", where="plan: entries")
    return out


def load_compile_options(path: str) -> list[str]:
    """The compile flags the engine chose (SK defines, compile-options)."""
    try:
        doc = jsonload.loads(infile.read_text(path))
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
                  side: str | None = None, out: str | None = None, include_dirs=(), stub_include_dirs=(),
                  stub_compiler: str | None = None, extra=()) -> list[tuple[EntryUnit, str]]:
    """Compiles the halves (all, or the one `side`) into out_dir, or the one `side` into `out`; returns
    (unit, path).

    stub_include_dirs: the entry stubs' include directories at split-mode > 1 (upstream's own list for
    them), else include_dirs. stub_compiler: the stubs' compiler (upstream's `ccec`), else the tools' compiler.
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
        todo = [(u, todo.index(u)) for u in picked]
    else:
        todo = [(u, i) for i, u in enumerate(todo)]
    split = plan.split_mode if plan.split_mode and plan.split_mode > 1 else 1
    if split > 1 and (out is not None or not tools.objcopy):
        raise SkError(f"at split-mode {split} a half is its entry stub and {split} copies of its object",
                      where="-o" if out is not None else "--objcopy",
                      allowed="compile into --out-dir with --objcopy PATH")
    defines, split_calls = toolargv.translate_flags(tools.flavor, flags)
    if plan.chip and plan.chip != tools.chip:  # the plan's SoC decides the CANN target
        tools = toolargv.Tools(tools.flavor, tools.compiler, tools.linker, tools.objcopy, plan.chip)
    written = []
    for unit, index in todo:
        dst = out if out else os.path.join(out_dir, unit.file_name)
        if split > 1:
            written += _compile_split(tools, plan, unit, index, split, src=src, out_dir=out_dir, defines=defines,
                                      split_calls=split_calls, include_dirs=include_dirs,
                                      stub_include_dirs=stub_include_dirs or include_dirs,
                                      stub_compiler=stub_compiler, extra=extra)
            continue
        with atomic_output(dst) as tmp:
            compiled = tmp + ".raw" if tools.objcopy else tmp
            try:
                _compile_half(tools, unit, src, compiled, defines=defines, split_calls=split_calls,
                              include_dirs=include_dirs, extra=extra)
                if tools.objcopy:
                    localize_entry(tools, compiled, tmp, unit.symbol, label=f"{src} ({unit.side} half)")
            finally:
                if compiled != tmp and os.path.exists(compiled):
                    os.unlink(compiled)
        written.append((unit, dst))
    if out_dir is not None:
        os.makedirs(out_dir, exist_ok=True)  # a side the plan lacks still leaves its (empty) directory
    return written


def _compile_half(tools, unit: EntryUnit, src: str, dst: str, *, defines, split_calls, include_dirs, extra):
    argv = toolargv.entry_compile_argv(tools, src, dst, arch=unit.side, include_dirs=include_dirs, defines=defines,
                                       extra=extra, tail=unit.tail, split_calls=split_calls)
    run_tool(argv, step=f"compiling the SuperKernel entry ({unit.side} half)", where=src)


def _compile_split(tools, plan, unit: EntryUnit, index: int, split: int, *, src, out_dir, defines, split_calls,
                   include_dirs, stub_include_dirs, stub_compiler, extra) -> list[tuple[EntryUnit, str]]:
    """The half compiled, localised and made its split set in a scratch directory, then moved into out_dir
    (the stub first, so a half's set is never half there)."""
    label = f"{src} ({unit.side} half)"
    os.makedirs(out_dir, exist_ok=True)
    with scratch_dir(os.path.join(out_dir, unit.file_name)) as work:
        raw, obj = os.path.join(work, unit.file_name + ".raw"), os.path.join(work, unit.file_name)
        _compile_half(tools, unit, src, raw, defines=defines, split_calls=split_calls,
                      include_dirs=include_dirs, extra=extra)
        localize_entry(tools, raw, obj, unit.symbol, label=label)
        made = entrysplit.split_half(tools, obj, work, kernel_name=plan.kernel_name, entry_symbol=unit.symbol,
                                     arch=unit.side, index=index, split=split,
                                     run_cfg_arch=entrysplit.run_cfg_side(plan.kernel_type),
                                     include_dirs=stub_include_dirs, stub_compiler=stub_compiler, label=label)
        # Published in this order (toolrun.publish): the scratch directory may be on another file system.
        staged = [stage_file(os.path.join(out_dir, os.path.basename(path)), path) for path in made]
        written = [(unit, st.dest) for st in staged]
        publish(staged)
    return written
