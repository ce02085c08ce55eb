"""One (binary variant, template-argument combination) of a CANN-style operator, built as the ADK builds it.

For each instance the ADK (asc-devkit tools/build, docs/cann-ops.md):
1. preprocesses the kernel source with the variant's defines and `-DASCENDC_TPL_PRE`, and reads the
   `ASCENDC_TPL_ARGS_DECL` / `ASCENDC_TPL_SEL` markers (sk.engine.cannop);
2. generates a source that includes the kernel with `__global__` turned into `inline`, maps the
   instance's tiling key to TEMPLATE_PARAMS and defines an `extern "C"` entry calling
   `<kernel><TEMPLATE_PARAMS>(params…)`;
3. compiles it with the variant's defines, the op options (op_options), `-DASCENDC_TPL_KERNEL` and
   `-DTILING_KEY_VAR=<key>UL`.

Our entry is named by BUILD (the sub-kernel's entry) instead of the ADK's `<kernel_name>_<key>`
(a SuperKernel reads the name from the sub-op JSON) and passes the workspace as given: a
SuperKernel's sub-kernels get their user workspace directly (docs/cann-ops.md §5).
"""

from __future__ import annotations

import os
import re
from collections import namedtuple

from sk.base.errors import SkError
from sk.base.toolrun import run_tool
from sk.engine import cannop
from sk.toolflow import toolargv

# What BUILD says of one instance: the template kernel's function, the binary config and the
# variant in it (op_list index or bin_filename; None: no config, no dtype defines), the
# combination ("" or "name=value,…"; "" with one selected combination takes it) and the entry's
# parameters in signature order. prelude: the kernel-side tiling structs the op build generates from
# the op's op_host/ (sk.twin.opsrc.staged_prelude's text; "" for none), which the twin's GET_TILING_DATA
# needs in front of the kernel (the CANN toolchain's own headers take the ADK's generated one).
CannInstance = namedtuple("CannInstance", "kernel config variant combination params prelude", defaults=("",))

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def variant_of(inst: CannInstance, warn=None):
    """The binary variant the instance names (None without a binary config); warn: as cannop.load_binary_config."""
    if not inst.config:
        return None
    return cannop.find_variant(cannop.load_binary_config(inst.config, warn), inst.variant or "0", inst.config)


def op_options(tools: toolargv.Tools, variant) -> list:
    """What the ADK passes every compile of the op, the -E pass included, in its order: the variant's
    defines, -DDETERMINISTIC_MODE=0 and (CANN) the auto-sync options."""
    return [*(cannop.variant_defines(variant) if variant else []), cannop.DETERMINISTIC_DEFINE,
            *(cannop.AUTO_SYNC_FLAGS if tools.flavor == toolargv.CANN else ())]


def read_template_args(tools: toolargv.Tools, src: str, work: str, *, arch, defines, include_dirs, extra):
    """The kernel's DECL/SEL, from the ADK's `-DASCENDC_TPL_PRE` preprocess of the source (with the op's
    options, -DASCENDC_TPL_KERNEL among them, as compile_op's; template_argument.h lets PRE win)."""
    text_path = os.path.join(work, "tpl_pre.i")
    argv = toolargv.preprocess_argv(tools, src, text_path, arch=arch,
                                    defines=[*defines, cannop.TPL_KERNEL_DEFINE, cannop.TPL_PRE_DEFINE],
                                    include_dirs=include_dirs, extra=extra)
    run_tool(argv, step="preprocessing the kernel for its template arguments (-DASCENDC_TPL_PRE)", where=src)
    with open(text_path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    return cannop.parse_template_args(text, src), cannop.tiling_key_branches(text), argv


_fmt = cannop.format_args


def _plain_key(combination: str, where: str, branches) -> int:
    """The tiling key of a kernel without template arguments: `tiling_key=<k>` or none (key 0), checked against
    the keys its TILING_KEY_IS/TILING_KEY_LIST branches name (branches: tiling_key_branches'; None: unknown)."""
    listed = ("name one of " + ", ".join(f"{cannop.TILING_KEY_ARG}={k}" for k in branches)) if branches else ""
    args = cannop.parse_combination(combination, where) if combination else {}
    if set(args) - {cannop.TILING_KEY_ARG}:
        raise SkError("the kernel declares no ASCENDC_TPL_ARGS_DECL, so it takes no template arguments",
                      where=where, value=combination,
                      allowed=(f"{listed} (the TILING_KEY_IS keys it branches on)" if listed else
                               f"{cannop.TILING_KEY_ARG}=<k> for a TILING_KEY_IS(k) branch, or leave the combination out"))
    key = args.get(cannop.TILING_KEY_ARG, 0)
    if key < 0:
        raise SkError("a tiling key is an integer >= 0", where=where, value=combination, allowed=listed or None)
    if branches and key not in branches:
        # Key 0 selects no branch: the kernel would run and write nothing (the ADK never builds that binary).
        what = "names no tiling key" if not args else "names a key no TILING_KEY_IS branch of the kernel takes"
        raise SkError(f"the kernel branches on TILING_KEY_IS and the combination {what}", where=where,
                      value=combination or "(none)", allowed=listed)
    return key


def pick_instance(tpl, combination: str, where: str, variant=None, branches=()):
    """(key, args) of the combination BUILD names, checked against DECL and SEL. A DATATYPE argument
    declared with ASCENDC_TPL_INPUT(i) takes the variant's dtype of input i unless BUILD names it.
    A kernel without template arguments takes `tiling_key=<k>`, one of the keys its TILING_KEY_IS
    branches name (branches)."""
    if tpl is None:
        return _plain_key(combination, where, branches), {}
    bound = cannop.bound_args(tpl.decls, variant)
    selected = [s for s in (cannop.selected_instances(tpl) if tpl.selections else [])
                if all(dict(s.args)[k] == v for k, v in bound.items())]
    if not combination:
        if len(selected) == 1:
            return selected[0].key, dict(selected[0].args)
        raise SkError(f"the kernel's template ({tpl.op}) needs a combination of its arguments", where=where,
                      allowed="name=value for each of " + ", ".join(d.name for d in tpl.decls if d.name not in bound)
                      + (f"; ASCENDC_TPL_SEL selects {len(selected)} for this variant: "
                         + "; ".join(_fmt(s.args) for s in selected[:8]) if selected else ""))
    args = cannop.parse_combination(combination, where)
    for name, value in bound.items():
        if args.setdefault(name, value) != value:
            raise SkError(f"template argument '{name}' follows the binary variant's dtype or format "
                          "(ASCENDC_TPL_INPUT/OUTPUT)",
                          where=where, value=args[name], allowed=f"{value} for this variant, or leave it out")
    key = cannop.encode_key(tpl.decls, args, where)
    if selected and key not in {s.key for s in selected}:
        raise SkError("ASCENDC_TPL_SEL does not select this combination; the ADK builds only selected ones",
                      where=where, value=combination,
                      allowed="; ".join(_fmt(s.args) for s in selected[:8]))
    return key, args


def entry_source(src: str, inst: CannInstance, entry: str, tpl, args: dict, key: int, prelude: str = "") -> str:
    """The generated per-key entry (the ADK's generated kernel file, reduced to what a sub-kernel needs),
    after the tiling prelude (the op's host tiling structs) when one is given."""
    for name, what in ((inst.kernel, "kernel function"), (entry, "entry")):
        if not _IDENT.match(name or ""):
            raise SkError(f"the {what} must be a C identifier", where="--cann-kernel/--entry", value=name)
    params = ", ".join(f"GM_ADDR {p}" for p in inst.params)
    call = ", ".join(inst.params)
    tparams = cannop.template_param_text(tpl.decls, args) if tpl else ""
    lines = [
        f"// Generated by sk: the entry of {inst.kernel} for tiling key {key} (docs/cann-ops.md).",
        *[line for line in prelude.splitlines() if line.strip() != "#pragma once"],
        "#undef __global__",
        "#define __global__ inline",
        f'#include "{src}"',
        "#undef __global__",
        "#if defined(__CCE_KT_TEST__)",
        "#define __global__",
        "#else",
        "#define __global__ __attribute__((cce_kernel))",
        "#endif",
        "",
        "#define TEMPLATE_PARAMS -1",
        "#define TEMPLATE_PARAMS_LEN 0",
    ]
    if tpl:
        lines += [f"#if TILING_KEY_VAR == {key}UL", "#undef TEMPLATE_PARAMS", f"#define TEMPLATE_PARAMS {tparams}",
                  "#undef TEMPLATE_PARAMS_LEN", f"#define TEMPLATE_PARAMS_LEN {len(tpl.decls)}", "#endif"]
    lines += [
        "",
        f'extern "C" __global__ __aicore__ void {entry}({params})',
        "{",
        "#if TEMPLATE_PARAMS_LEN != 0",
        f"    {inst.kernel}<TEMPLATE_PARAMS>({call});",
        "#else",
        f"    {inst.kernel}({call});",
        "#endif",
        "}",
        "",
    ]
    return "\n".join(lines)


def prepare(tools: toolargv.Tools, src: str, inst: CannInstance, entry: str, work: str, *, arch,
            include_dirs, extra, warn=None) -> tuple:
    """(entry source text, defines, tiling key, argv of the -E pass) of one instance (warn: as
    cannop.load_binary_config)."""
    if not entry:
        raise SkError("a CANN operator instance needs its entry name", where="--entry")
    variant = variant_of(inst, warn)
    vdefs = op_options(tools, variant)
    tpl, branches, argv = read_template_args(tools, src, work, arch=arch, defines=vdefs, include_dirs=include_dirs,
                                             extra=extra)
    key, args = pick_instance(tpl, inst.combination, f"{src}: --tpl-args", variant, branches)
    prelude = inst.prelude if tools.flavor != toolargv.CANN else ""
    return entry_source(src, inst, entry, tpl, args, key, prelude), [*vdefs, cannop.TPL_KERNEL_DEFINE], key, argv


def stage_ops(op_dirs, dest: str) -> str:
    """Copies each op folder's op_kernel/ to <dest>/<op>/ (side by side, as the ADK's op build stages
    them); returns the first op's staged folder."""
    import shutil

    first = None
    for d in op_dirs:
        src = os.path.join(d, "op_kernel")
        if not os.path.isdir(src):
            raise SkError("an operator folder has op_kernel/", where=d, allowed="<op>/op_kernel/<op>.cpp ...")
        staged = os.path.join(dest, os.path.basename(os.path.normpath(d)))
        shutil.copytree(src, staged, symlinks=False)
        first = first or staged
    return first


def _variant_name(v, taken: dict) -> str:
    params = [p for p in v.inputs + v.outputs if p is not None]
    base = re.sub(r"[^A-Za-z0-9_]", "_", "_".join(dict.fromkeys(p.dtype for p in params)) or "v")
    taken[base] = taken.get(base, 0) + 1
    return base if taken[base] == 1 else f"{base}_{taken[base]}"


def list_instances(tools: toolargv.Tools, op_dir: str, *, neighbours=(), soc: str = "ascend910b",
                   kernel_src: str | None = None, include_dirs=(), extra=(), warn=None) -> str:
    """The `variants` and `combinations` of sk_cann_op for an op folder, as BUILD text: the variants
    of its binary config (if any) and the combinations ASCENDC_TPL_SEL selects, with their keys; the
    `kernel_src` / `kernel` the op build uses where they are not sk_cann_op's defaults (cannop.kernel_source).
    warn: as cannop.load_binary_config."""
    from sk.base.toolrun import scratch_dir

    op = os.path.basename(os.path.normpath(op_dir))
    config = os.path.join(op_dir, "op_host", "config", soc, f"{op}_binary.json")
    variants = cannop.load_binary_config(config, warn) if os.path.isfile(config) else []
    lines = [f"# {op}: {len(variants)} binary variant(s) in {os.path.relpath(config, op_dir) if variants else '(no binary config for ' + soc + ')'}"]
    found = cannop.kernel_source(op_dir, soc)
    if not kernel_src and found.src != f"{op}.cpp":
        lines.append(f'kernel_src = "{found.src}",  # the op build\'s kernel source for {soc}')
    if found.entry != op:
        lines.append(f'kernel = "{found.entry}",  # the op definition\'s opInterface')
    with scratch_dir(os.path.join(op_dir, "x")) as work:
        staged = stage_ops([op_dir, *neighbours], work)
        src = os.path.join(staged, kernel_src or found.src)
        if not os.path.isfile(src):
            raise SkError("the op's kernel source is not in op_kernel/", where=src, allowed="give --kernel-src")
        tpl, branches, _ = read_template_args(tools, src, work,
                                              arch="cube" if tools.flavor == toolargv.CANN else None,
                                              defines=op_options(tools, variants[0] if variants else None),
                                              include_dirs=include_dirs, extra=extra)
    if variants:
        lines.append("variants = {")
        taken: dict = {}
        for v in variants:
            desc = ", ".join(f"{p.name} {p.dtype}" for p in v.inputs + v.outputs if p is not None)
            lines.append(f'    "{_variant_name(v, taken)}": "{v.index}",  # {v.bin_filename}: {desc}')
        lines.append("},")
    if tpl is None and branches:
        lines.append(f"# no ASCENDC_TPL_ARGS_DECL; the kernel branches on TILING_KEY_IS {', '.join(map(str, branches))}"
                     " (variant 0), one binary each:")
        lines.append("combinations = {")
        for k in branches:
            lines.append(f'    "k{k}": "{cannop.TILING_KEY_ARG}={k}",')
        lines.append("},")
    elif tpl is None:
        lines.append("# no ASCENDC_TPL_ARGS_DECL: no combinations" if branches is not None else
                     f"# no ASCENDC_TPL_ARGS_DECL; the kernel's TILING_KEY_IS keys are not integer literals: "
                     f'name each as "{cannop.TILING_KEY_ARG}=<k>"')
    else:
        bound = cannop.bound_args(tpl.decls, variants[0] if variants else None)
        inst = [i for i in (cannop.selected_instances(tpl) if tpl.selections else [])
                if all(dict(i.args)[k] == v for k, v in bound.items())]
        if bound:
            lines.append("# " + ", ".join(f"{k} follows the variant's dtype or format" for k in bound)
                         + f"; the combinations of variant 0 ({variants[0].bin_filename}):")
        widths = ", ".join(f"{d.name} {d.kind} {d.bits} bit(s)" for d in tpl.decls)
        lines.append(f"# {tpl.op}: {widths}; ASCENDC_TPL_SEL selects {len(inst)}")
        lines.append("combinations = {")
        for i in inst:
            lines.append(f'    "k{i.key}": "{_fmt((n, v) for n, v in i.args if n not in bound)}",  # tiling key {i.key}')
        lines.append("},")
    return "\n".join(lines) + "\n"
