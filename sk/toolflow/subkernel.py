"""SK-mode sub-kernels: compile, wrap and pack a user kernel for SuperKernels.

A user kernel has an ordinary entry `extern "C" __global__ __aicore__ void
k(GM_ADDR ...)`. Inside a SuperKernel it is called as a plain function that
takes `uint64_t args_offset` and fetches its arguments from
`(GM_ADDR*)get_para_base()` (facts §2.2). Three steps, each a separate
cacheable action:

1. compile — the user's source with the SK-sub macros (static block num,
   early-start, feed-sync-all, GetValue/SetValue dcci), or plain (`--plain`)
   for standalone launches. In SK mode the source is preprocessed first and
   scanned for SyncAll/SetNextTaskStart/WaitPreTaskEnd calls (syncscan,
   facts §14.3); the scan decides the early-start enables and is written
   out for the next two steps.
2. wrap — generates and compiles the SK-mode function `<func>(uint64_t
   args_offset)` that reads the params and calls the user's entry, with the
   kernel's macros.
3. pack — `ld -r` kernel + wrapper, localise every global except the SK-mode
   function (two sub-kernels may then define the same helper), make the
   split copies (`objcopy --redefine-sym f=f_split{i}`, one objcopy per copy),
   bundle them into one archive (the sub-op "bin", as upstream) and write the
   sub-op JSON the fusion engine reads (its sync fields from the scan), with what its objects define and
   use keyed to the archive's sha256 (`sk_archive`, objfacts.archive_facts), so
   that `sk gen` does not parse thousands of objects again.

Naming (deterministic, upstream-style `<kernel>_<loc>`): the SK-mode function
of kernel `name` at scope location `loc` (start|middle|end, default middle) is
`<name>_<loc>`; where a MIX 1:1/1:2 kernel is compiled once per core side (the
cann flavour) the two functions are `<name>_mix_aic_<loc>` and
`<name>_mix_aiv_<loc>`. Split copy i is `<func>_split<i>`. Archive members
are `<stem>[_mix_aic|_mix_aiv].o` and `..._split<i>.o`, where stem is the
output file's stem.
"""

from __future__ import annotations

import json
import os
import re
from collections import namedtuple

from sk.binfmt import ar, objfacts
from sk.toolflow import cannbuild, syncscan
from sk.toolflow import toolargv
from sk.base import numbers
from sk.base.errors import SkError
from sk.engine.inherited import Inherited, inherited
from sk.engine.kernel_types import KernelType
from sk.base.toolrun import run_tool, scratch_dir, write_files_atomic, write_text_atomic

LOCS = ("start", "middle", "end")
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def compile_units(flavor: str, kt: KernelType) -> tuple[str | None, ...]:
    """The core sides a kernel source is compiled for; None = one unit for both.

    The CPU twin decides cube/vector at run time (ASCEND_IS_AIC reads the
    worker's core type, as in Ascend's own CPU debug mode), so one host object
    serves both halves of a MIX kernel. bisheng emits a different ISA per side,
    so CANN compiles MIX 1:1/1:2 kernels twice.
    """
    if len(kt.sides) == 1:
        return kt.sides
    return kt.sides if flavor == toolargv.CANN else (None,)


def func_names(name: str, kt: KernelType, flavor: str, loc: str) -> dict[str, str]:
    """SK-mode function per core side ('cube'/'vec') of the kernel."""
    units = compile_units(flavor, kt)
    if units == (None,):
        return {side: f"{name}_{loc}" for side in kt.sides}
    if len(units) == 1:
        return {units[0]: f"{name}_{loc}"}
    return {"cube": f"{name}_mix_aic_{loc}", "vec": f"{name}_mix_aiv_{loc}"}


# ---------------------------------------------------------------- options

def check_loc(loc: str) -> str:
    if loc not in LOCS:
        raise SkError("unknown scope location", where="--loc", value=loc, allowed="use start, middle or end")
    return loc


def sk_defines(block_dim: int, opts: Inherited, op_type: str, loc: str,
               calls: syncscan.SyncCalls = syncscan.NONE, dynamic: bool = False) -> list[str]:
    """The SK-sub macros of facts §2.2/§14.3, in upstream's order.

    calls: what the kernel's preprocessed source calls (syncscan); the
    early-start enables are added only for an op that calls the API, and not
    where the SuperKernel itself stands in for it (set at the scope's end,
    wait at its start). The preprocess runs with calls=NONE: these two
    macros are the only ones derived from it.
    """
    if dynamic:
        # A tiling-sink kernel: its block count is the tiling's, no early start (its key is not known
        # when the graph is built), and dcci before and after its call instead of in GetValue/SetValue
        # (ADK gen_sub_super_kernel_compile_options, gen_gm_get_set_value_dcci_compile_options).
        defines = ["-D__ASCENDC_ENABLE_SUPER_KERNEL__", "-D__SUPER_KERNEL_DYNAMIC_BLOCK_NUM__"]
        if opts.feed_sync_all:
            defines.append("-D__ASCENDC_SUPERKERNEL_AUTO_SYNC_ALL__")
        return defines
    defines = ["-D__ASCENDC_ENABLE_SUPER_KERNEL__", f"-D__SUPER_KERNEL_STATIC_BLOCK_NUM__={block_dim}"]
    if opts.feed_sync_all:
        defines.append("-D__ASCENDC_SUPERKERNEL_AUTO_SYNC_ALL__")
    if opts.early_start_macros:
        defines.append("-D__ASCENDC_SUPERKERNEL_EARLY_START_V2")
        if calls.set_next_task_start and loc != "end":
            defines.append("-D__ASCENDC_ENABLE_SET_NEXT_TASK_START")
        if calls.wait_pre_task_end and loc != "start":
            defines.append("-D__ASCENDC_ENABLE_WAIT_PRE_TASK_END")
    if not any(opts.dcci_listed(op_type)):
        defines.append("-D__ASCENDC_SUPER_KERNEL_ENABLE_GM_GET_SET_VALUE_DCCI__")
    return defines


def check_block_dim(block_dim: int) -> int:
    if block_dim < 1:
        raise SkError("block dim must be at least 1", where="--block-dim", value=block_dim)
    return numbers.whole(block_dim, numbers.UINT32, where="--block-dim", what="block dim")


def check_ident(value: str, where: str) -> str:
    if not IDENT.match(value or ""):
        raise SkError("not a C identifier", where=where, value=value,
                      allowed="use letters, digits and '_', not starting with a digit")
    return value


# ---------------------------------------------------------------- compile

def _bundle(out: str, objects: list[tuple[str, str]]) -> None:
    """Writes out: the single object itself, or an archive of (member, path)."""
    if len(objects) == 1:
        with open(objects[0][1], "rb") as f:
            data = f.read()
    else:
        members = []
        for member, path in objects:
            with open(path, "rb") as f:
                members.append((member, f.read()))
        data = ar.pack(members)
    write_files_atomic({out: data})


def compile_source(tools: toolargv.Tools, src: str, out: str, *, kt: KernelType, block_dim: int,
                   options: str | None, op_type: str = "", loc: str = "middle", include_dirs=(),
                   extra=(), plain: bool = False, defines=(), stdin: str | None = None,
                   calls: syncscan.SyncCalls | None = None, sync_out: str | None = None,
                   tiling_keys=(), entry: str | None = None, dynamic: bool = False,
                   cann: cannbuild.CannInstance | None = None, warn=None) -> list[list[str]]:
    """Compiles a kernel (or wrapper) source; returns the argv that ran.

    In SK mode the source is first preprocessed with the same flags and
    scanned for inter-core API calls (syncscan), which decide the early-start
    enables; sync_out receives the scan for wrap and pack. calls: a scan
    already made (the wrapper takes its kernel's), skipping the preprocess.
    MIX kernels compiled per side (cann) produce an archive with members
    `cube.o` and `vec.o`; everything else produces one object.
    tiling_keys: a tiling-sink kernel, compiled once per key as the ADK compiles a
    multi-tiling-key kernel (TILING_KEY_VAR=<key>, `entry` renamed `<entry>_<key>`): the
    output is then an archive of `<side>.k<key>.o` (key_objects reads it).
    cann: one instance of a CANN-style operator (sk/toolflow/cannbuild.py): `src` is its template
    kernel; the compile is of the generated per-key entry `entry`, with the variant's defines and
    TILING_KEY_VAR set to the instance's tiling key; warn: told what its binary config holds that only
    the ADK's lenient reader accepts (cannop.load_binary_config).
    """
    check_block_dim(block_dim)
    if entry is not None:
        check_ident(entry, "--entry")
    keys = check_tiling_keys(tiling_keys)
    if keys and entry is None:
        raise SkError("a multi-tiling-key compile renames the entry per key", where="--entry",
                      allowed="pass the kernel's entry function")
    opts = None
    if not plain:
        if options is None:
            raise SkError("SK-mode compile needs the SuperKernel options", where="--options",
                          allowed="pass --options '<option string>' (may be empty), or --plain")
        opts = inherited(options)
        check_loc(loc)
    elif sync_out:
        raise SkError("a plain compile is not scanned for SuperKernel sync calls", where="--sync-out",
                      allowed="drop --sync-out, or compile in SK mode (without --plain)")
    units = compile_units(tools.flavor, kt)
    where = src if src != "-" else out
    instance_key = 0
    if cann is not None:
        if keys:
            raise SkError("a CANN operator instance is one tiling key; tiling-sink keys do not apply",
                          where="--tiling-key", allowed="drop --tiling-key (the key comes from --tpl-args)")
        with scratch_dir(out) as work:
            # The ADK reads the markers from the cube side's preprocess (kernel_info_infer.py).
            pre_arch = "cube" if tools.flavor == toolargv.CANN else units[0]
            stdin, cdefs, instance_key, pre = cannbuild.prepare(tools, src, cann, entry, work, arch=pre_arch,
                                                                include_dirs=include_dirs, extra=extra, warn=warn)
        ran_pre = [pre]
        src, defines = "-", [*cdefs, *defines]
    # As upstream compiles any kernel for one side: the MIX macros and TILING_KEY_VAR after the tail
    # (the scan preprocesses with them too, so it reads the text that is compiled).
    tail = toolargv.kernel_type_tail(kt.name, keys[0] if keys else instance_key)
    ran, doc = (ran_pre if cann is not None else []), None
    with scratch_dir(out) as work:
        if opts is not None and calls is None:
            scan = {}
            for side in syncscan.SIDES:  # both sides whatever the kernel's type, as upstream
                text_path = os.path.join(work, f"{side}.i")
                argv = toolargv.preprocess_argv(tools, src, text_path, arch=side,
                                                defines=[*sk_defines(block_dim, opts, op_type, loc), *defines,
                                                         *tail],
                                                include_dirs=include_dirs, extra=extra)
                run_tool(argv, step="preprocessing the kernel (sync-call scan)", where=where, stdin=stdin)
                ran.append(argv)
                with open(text_path, encoding="utf-8", errors="replace") as f:
                    scan[side] = syncscan.count(f.read())
            doc = syncscan.document(scan)
            calls = syncscan.SyncCalls(*(doc[field] for field in syncscan.SyncCalls._fields))
        sk_defs = [] if opts is None else sk_defines(block_dim, opts, op_type, loc, calls, dynamic=dynamic or bool(keys))
        objects = []
        for side in units:
            for key in keys or (None,):
                stem = f"{side}" if key is None else f"{side or 'unit'}.k{key}"
                obj = os.path.join(work, f"{stem}.o")
                key_defs = [] if key is None else toolargv.tiling_key_defines(entry, key)
                argv = toolargv.compile_argv(tools, src, obj, arch=side, defines=[*sk_defs, *defines, *key_defs],
                                             include_dirs=include_dirs, extra=extra,
                                             tail=tail if key is None else toolargv.kernel_type_tail(kt.name, key))
                run_tool(argv, step="compiling the kernel" + ("" if key is None else f" for tiling key {key}"),
                         where=where, stdin=stdin)
                ran.append(argv)
                objects.append((f"{stem}.o", obj))
        _bundle(out, objects)
        if sync_out:
            if doc is None:
                raise AssertionError("sync_out needs the scan of this compile, not a given one")
            write_text_atomic(sync_out, syncscan.write_text(doc))
    return ran


def unit_objects(path: str, flavor: str, kt: KernelType) -> dict[str | None, tuple[str, bytes]]:
    """The per-side objects inside a compile output: {side|None: (name, bytes)}."""
    units = compile_units(flavor, kt)
    if len(units) == 1:
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as err:
            raise SkError("cannot read object", where=path, value=err.strerror) from None
        if ar.is_archive(data):
            raise SkError(f"expected one object for {kt.name}, got an archive", where=path,
                          allowed="compile with `sk subkernel compile` for the same kernel type and toolchain")
        return {units[0]: (os.path.basename(path), data)}
    found = ar.by_name(ar.read_members(path))
    missing = [f"{side}.o" for side in units if f"{side}.o" not in found]
    if missing:
        raise SkError(f"archive lacks the per-side objects {missing} of a {kt.name} kernel", where=path,
                      allowed="compile with `sk subkernel compile` for the same kernel type and toolchain")
    return {side: (f"{side}.o", found[f"{side}.o"]) for side in units}


def check_tiling_keys(tiling_keys) -> tuple:
    """Tiling keys: distinct non-negative integers, in the order given."""
    keys = tuple(tiling_keys)
    for k in keys:
        if isinstance(k, bool) or not isinstance(k, int) or k < 0:
            raise SkError("a tiling key must be a non-negative integer", where="--tiling-key", value=k,
                          allowed="the k of each TILING_KEY_IS(k) branch of the kernel")
    if len(set(keys)) != len(keys):
        raise SkError("a tiling key is given twice", where="--tiling-key", value=list(keys))
    return keys


def key_objects(path: str, flavor: str, kt: KernelType, keys) -> dict:
    """The per-side, per-key objects of a multi-tiling-key compile: {(side|None, key): (name, bytes)}."""
    units = compile_units(flavor, kt)
    with open(path, "rb") as f:
        data = f.read()
    if len(units) * len(keys) == 1:
        return {(units[0], keys[0]): (os.path.basename(path), data)}
    found = ar.by_name(ar.members(data, os.path.basename(path), path)) if ar.is_archive(data) else {}
    out = {}
    for side in units:
        for key in keys:
            member = f"{side or 'unit'}.k{key}.o"
            if member not in found:
                raise SkError(f"the compile output lacks tiling key {key}", where=f"{path}({member})",
                              allowed="compile with `sk subkernel compile` and the same --tiling-key list")
            out[(side, key)] = (member, found[member])
    return out


def key_func(func: str, key: int) -> str:
    """The SK-mode function of one tiling key of a tiling-sink kernel."""
    return f"{func}_{key}"


# ---------------------------------------------------------------- wrap

def wrapper_source(entry: str, params: list[str], funcs: dict, kt: KernelType) -> str:
    """The SK-mode entry: reads params from get_para_base() and calls the user's entry.

    funcs: {side|None: function}, or for a tiling-sink kernel {side|None: [(function, callee), ...]},
    one function per tiling key calling that key's renamed entry."""
    args = ", ".join(f"GM_ADDR {p}" for p in _param_idents(params))
    pairs = {side: ([(f, entry)] if isinstance(f, str) else list(f)) for side, f in funcs.items()}
    callees = list(dict.fromkeys(callee for side_pairs in pairs.values() for _, callee in side_pairs))
    lines = [
        f"// Generated by `sk subkernel wrap`: SK-mode entry of {entry} ({kt.name}).",
        "// A SuperKernel calls it with the index of this op's first param in",
        "// get_para_base(); the params follow in signature order.",
        '#include "kernel_operator.h"',
        "",
        *(f'extern "C" __global__ __aicore__ void {callee}({args});' for callee in callees),
        "",
    ]
    guards = {"cube": "defined(__DAV_C220_CUBE__)", "vec": "defined(__DAV_C220_VEC__)"}
    for side, side_pairs in pairs.items():
        for func, callee in side_pairs:
            body = [f'extern "C" __aicore__ void {func}(uint64_t args_offset)', "{",
                    "    GM_ADDR *param_base = (GM_ADDR *)get_para_base();"]
            body += [f"    GM_ADDR {p} = param_base[args_offset++];" for p in _param_idents(params)]
            # On the CPU twin the call is a span of the Chrome trace (per worker).
            body += ["#if defined(__CCE_KT_TEST__)", f'    sk_twin_trace_begin("{func}");', "#endif",
                     f"    {callee}({', '.join(_param_idents(params))});",
                     "#if defined(__CCE_KT_TEST__)", "    sk_twin_trace_end();", "#endif", "}"]
            if side is not None:
                body = [f"#if {guards[side]}", *body, "#endif"]
            lines += body + [""]
    return "\n".join(lines)


def _param_idents(params: list[str]) -> list[str]:
    # Param names come from BUILD files/JSON (e.g. "x_in__"); the C names only
    # have to be distinct identifiers.
    return [f"p{i}_{re.sub(r'[^A-Za-z0-9_]', '_', p)}" for i, p in enumerate(params)]


def wrap(tools: toolargv.Tools, *, entry: str, name: str, params: list[str], kt: KernelType, block_dim: int,
         options: str, op_type: str, loc: str, kernel_obj: str | None, out: str, sync_scan: str,
         include_dirs=(), extra=(), source_out: str | None = None, tiling_keys=()) -> str:
    """Generates and compiles the SK-mode wrapper; returns the source.

    sync_scan: the kernel's scan (compile's sync_out). Upstream's wrapper is
    part of the kernel's translation unit, so it gets the kernel's macros.
    """
    check_ident(entry, "--entry")
    check_ident(name, "--name")
    for param in params:  # each names a parameter of the generated wrapper
        check_ident(param, "--param")
    check_loc(loc)
    keys = check_tiling_keys(tiling_keys)
    if kernel_obj:
        _check_entry_defined(kernel_obj, tools.flavor, kt, entry, keys)
    funcs = func_names(name, kt, tools.flavor, loc)
    if keys:
        funcs = {side: [(key_func(f, k), f"{entry}_{k}") for k in keys] for side, f in funcs.items()}
    units = compile_units(tools.flavor, kt)
    # One unit: no preprocessor guard; per-side units: each compile keeps its own function.
    by_unit = {None: funcs[kt.sides[0]]} if len(units) == 1 else {side: funcs[side] for side in units}
    source = wrapper_source(entry, params, by_unit, kt)
    if source_out:
        write_text_atomic(source_out, source)
    # From stdin, so the object names no temporary path (its FILE symbol is "<stdin>").
    compile_source(tools, "-", out, kt=kt, block_dim=block_dim, options=options, op_type=op_type, loc=loc,
                   include_dirs=include_dirs, extra=extra, stdin=source, calls=syncscan.read(sync_scan),
                   dynamic=bool(keys))
    return source


def _check_entry_defined(kernel_obj: str, flavor: str, kt: KernelType, entry: str, keys=()) -> None:
    if keys:
        found = [(f"{entry}_{k}", m, d) for (_, k), (m, d) in key_objects(kernel_obj, flavor, kt, keys).items()]
    else:
        found = [(entry, m if side else None, d) for side, (m, d) in unit_objects(kernel_obj, flavor, kt).items()]
    for want, member, data in found:
        entry = want
        info = objfacts.read_object(f"{kernel_obj}({member})" if member else kernel_obj, data=data)
        if not any(s.name == entry for s in info.defined_globals()):
            defined = sorted(s.name for s in info.defined_globals() if s.type == "FUNC")
            raise SkError("the kernel object does not define the entry function", where=f"{kernel_obj}: {entry}",
                          allowed="set the entry to one of the object's global functions: "
                                  + (", ".join(defined[:20]) or "(none)") + "; the entry must be extern \"C\"")


# ---------------------------------------------------------------- pack

# Undefined symbols through which a twin object calls the runtime's
# inter-core APIs (the out-of-line functions sk/runtime's kernel_operator.h
# lowers them to). The sub-op JSON flags come from the source scan; on the
# host these only cross-check it: an object that calls one of them from a
# kernel whose scan found no call means the scan rule and the header drifted.
RUNTIME_MARKERS = {
    "sync_all": ("sk_twin_sync_all",),
    "set_next_task_start": ("sk_twin_set_next_task_start",),
    "wait_pre_task_end": ("sk_twin_wait_pre_task_end",),
}


# arch_keys: tuple[str, ...]; members: main object, then split copies 1..S-1.
PackedUnit = namedtuple("PackedUnit", "arch_keys func_name members text_size undefined funcs")


def pack(tools: toolargv.Tools, *, kernel_obj: str, wrapper_obj: str, entry: str, name: str, kt: KernelType,
         block_dim: int, params: list[str], options: str, op_type: str, loc: str, out_obj: str,
         out_json: str, sync_scan: str, tiling_keys=()) -> dict:
    """Builds the sub-op archive and JSON; returns the JSON document.

    sync_scan: the kernel's scan (compile's sync_out), the source of the
    sub_op_with_sync_all / early-start flag fields.
    """
    check_ident(entry, "--entry")
    check_ident(name, "--name")
    for param in params:
        check_ident(param, "--param")
    check_block_dim(block_dim)
    check_loc(loc)
    if os.path.dirname(os.path.abspath(out_obj)) != os.path.dirname(os.path.abspath(out_json)):
        raise SkError("the sub-op JSON names its objects relative to itself, so both outputs must be in one "
                      "directory", where="--out-json", value=out_json, allowed=f"write it beside {out_obj}")
    if not out_obj.endswith(".o"):
        raise SkError("the sub-kernel object must end in .o", where="--out-obj", value=out_obj)
    opts = inherited(options)
    calls = syncscan.read(sync_scan)
    keys = check_tiling_keys(tiling_keys)
    funcs = func_names(name, kt, tools.flavor, loc)
    if keys:
        by_key = key_objects(kernel_obj, tools.flavor, kt, keys)
        kernel_units = {side: [(f"{kernel_obj}({m})", d) for (s, _), (m, d) in by_key.items() if s == side]
                        for side in compile_units(tools.flavor, kt)}
    else:
        kernel_units = {side: [(f"{kernel_obj}({m})" if side else kernel_obj, d)]
                        for side, (m, d) in unit_objects(kernel_obj, tools.flavor, kt).items()}
    wrapper_units = unit_objects(wrapper_obj, tools.flavor, kt)
    stem = os.path.basename(out_obj)[:-2]
    packed: list[PackedUnit] = []
    archive_members: list[tuple[str, bytes]] = []
    with scratch_dir(out_obj) as work:
        for side, kernels in kernel_units.items():
            func = funcs[side or kt.sides[0]]
            arch_keys = tuple(key for s, key in kt.arch_keys(tools.chip) if side is None or s == side)
            suffix = "" if len(kernel_units) == 1 else {"cube": "_mix_aic", "vec": "_mix_aiv"}[side]
            unit_funcs = [key_func(func, k) for k in keys] if keys else [func]
            entries = [f"{entry}_{k}" for k in keys] if keys else [entry]
            unit = _pack_unit(tools, work, f"{stem}{suffix}", unit_funcs, opts.split_mode, arch_keys, kernels,
                              (wrapper_obj, wrapper_units[side][1]), entries)
            packed.append(unit)
            for member in unit.members:
                with open(os.path.join(work, member), "rb") as f:
                    archive_members.append((member, f.read()))
        if tools.flavor == toolargv.HOST:
            _cross_check(calls, packed, kernel_obj, sync_scan)
        doc = sub_op_json(stem=stem, name=name, kt=kt, block_dim=block_dim, params=params, opts=opts,
                          op_type=op_type, loc=loc, units=packed, calls=calls, tiling_keys=keys)
        archive = ar.pack(archive_members)
        doc[objfacts.FACTS_KEY] = objfacts.archive_facts(archive, os.path.basename(out_obj))
        # Together, the JSON (whose facts carry the archive's sha256) last: toolrun.publish.
        write_files_atomic({out_obj: archive, out_json: json.dumps(doc, indent=2, sort_keys=True) + "\n"})
    return doc


def _pack_unit(tools, work, stem, funcs, split_mode, keys, kernels, wrapper, entries) -> PackedUnit:
    """funcs, entries: the SK-mode functions and the user entries they call (one each, or one per tiling
    key); kernels: the kernel objects (one, or one per tiling key) as (label, bytes)."""
    paths = []
    for i, (_, data) in enumerate(kernels):
        paths.append(os.path.join(work, f"{stem}.kernel{i if len(kernels) > 1 else ''}.o"))
        with open(paths[-1], "wb") as f:
            f.write(data)
    wpath = os.path.join(work, f"{stem}.wrapper.o")
    with open(wpath, "wb") as f:
        f.write(wrapper[1])
    kernel = (" + ".join(label for label, _ in kernels), None)
    merged = os.path.join(work, f"{stem}.merged.o")
    run_tool(toolargv.relocatable_link_argv(tools, [*paths, wpath], merged),
             step="merging kernel and wrapper (ld -r)", where=f"{kernel[0]} + {wrapper[0]}")
    from sk.toolflow.linkprep import make_localizable, write_symbol_list

    info = objfacts.read_object(merged, data=make_localizable(merged, kernel[0]))
    defined = {s.name for s in info.defined_globals()}
    for func in funcs:
        if func not in defined:
            raise SkError("the wrapper object does not define the SK-mode function", where=f"{wrapper[0]}: {func}",
                          allowed="build the wrapper with `sk subkernel wrap` using the same --name, --loc, "
                                  "--kernel-type, tiling keys and toolchain")
    for entry in entries:
        if entry not in defined:
            raise SkError("the kernel object does not define the entry function", where=f"{kernel[0]}: {entry}",
                          allowed="pass the kernel's extern \"C\" entry name as --entry")
    func = funcs[0]
    local_list = write_symbol_list(os.path.join(work, f"{stem}.localize.txt"), defined - set(funcs))
    base = os.path.join(work, f"{stem}.o")
    run_tool(toolargv.localize_argv(tools, merged, base, symbols_file=local_list, strip_groups=True),
             step="localising sub-kernel symbols", where=kernel[0])
    result = objfacts.read_object(base)
    left = sorted({s.name for s in result.defined_globals()} - set(funcs))
    if left:
        raise SkError("symbols stayed global after localisation", where=f"{kernel[0]}: {', '.join(left[:10])}",
                      allowed="this objcopy does not support --localize-symbols; use the toolchain's objcopy")
    members = [f"{stem}.o"]
    for i in range(1, split_mode):
        copy = f"{stem}_split{i}.o"
        run_tool(toolargv.redefine_argv(tools, base, os.path.join(work, copy), [(f, f"{f}_split{i}") for f in funcs]),
                 step=f"making split copy {i}", where=kernel[0])
        members.append(copy)
    return PackedUnit(arch_keys=keys, func_name=func, members=tuple(members), text_size=result.exec_size,
                      undefined=frozenset(s.name for s in result.undefined()), funcs=tuple(funcs))


def _cross_check(calls: syncscan.SyncCalls, units, kernel_obj: str, sync_scan: str) -> None:
    undefined = frozenset().union(*(u.undefined for u in units))
    for what, markers in RUNTIME_MARKERS.items():
        used = sorted(sym for sym in markers if sym in undefined)
        if used and not getattr(calls, what):
            raise SkError(f"the object calls {used[0]} but the preprocessed source shows no {what} call",
                          where=f"{kernel_obj} (scan {sync_scan})",
                          allowed="call the Ascend C API (AscendC::SyncAll, SetNextTaskStart, WaitPreTaskEnd) "
                                  "rather than the twin runtime directly; if the kernel does, the twin header "
                                  "and sk/toolflow/syncscan.py disagree")


def sub_op_json(*, stem, name, kt, block_dim, params, opts, op_type, loc, units, calls, tiling_keys=()) -> dict:
    """The sub-op JSON fields of facts §2.3 that the engine reads (plus sizes).

    A tiling-sink kernel (tiling_keys) gets upstream's dynamic form (facts §15.2): only
    `dynamic_func_names`, one function per key and core type, and dcci before and after its call (ADK sets
    both for a dynamic op). Its early-start flags are the scan's alone: the ADK reads them from the
    preprocessed source of every SK-mode compile (kernel_info_infer), and the SuperKernel refuses a dynamic
    op that has them, so a tiling-sink kernel calling SetNextTaskStart/WaitPreTaskEnd is named at build
    time instead of being fused with its calls compiled out."""
    early = opts.early_start_macros and not tiling_keys
    dcci_before, dcci_after, dcci_disable = (True, True, False) if tiling_keys else opts.dcci_listed(op_type)
    kernel_names, text_sizes = {}, {}
    for unit in units:
        for key in unit.arch_keys:
            text_sizes[key] = unit.text_size
            if tiling_keys:
                table = kernel_names.setdefault("dynamic_func_names", {})
                for k, func in zip(tiling_keys, unit.funcs):
                    table.setdefault(str(k), {"kernel_type": kt.name})[key] = func
                continue
            entry = {"func_name": unit.func_name, "obj_files": unit.members[0]}
            for i, member in enumerate(unit.members[1:], start=1):
                entry[f"obj_files_split{i}"] = member
            kernel_names[key] = entry
    doc = {
        "binFileName": stem,
        "binFileSuffix": ".o",
        "blockDim": block_dim,
        "coreType": kt.json_core_type,
        "core_type": kt.core_type,
        "intercoreSync": 1 if kt.mix else 0,
        "kernelName": name,
        "magic": kt.magic,
        "supportSuperKernel": 1,
        "split_mode": opts.split_mode,
        "sub_op_with_sync_all": calls.sync_all,
        "sub_operator_call_dcci_after_kernel_end": dcci_after,
        "sub_operator_call_dcci_before_kernel_start": dcci_before,
        "sub_operator_call_dcci_disable_on_kernel": dcci_disable,
        "sub_operator_early_start_set_flag": bool(calls.set_next_task_start) if tiling_keys else
        early and loc != "end" and calls.set_next_task_start,
        "sub_operator_early_start_wait_flag": bool(calls.wait_pre_task_end) if tiling_keys else
        early and loc != "start" and calls.wait_pre_task_end,
        "sub_operator_kernel_name": kernel_names,
        "sub_operator_kernel_type": kt.name,
        "sub_operator_params": list(params),
        "sub_operator_text_size": text_sizes,
        "super_kernel_sub_loc": loc,
    }
    if op_type:
        doc["sub_operator_op_type"] = op_type
    return doc


def check_split_mode(split_mode: int, options: str) -> None:
    """--split-mode on the command line must agree with the inherited options."""
    inherited_split = inherited(options).split_mode
    if split_mode != inherited_split:
        raise SkError("split mode disagrees with the SuperKernel options", where="--split-mode", value=split_mode,
                      allowed=f"the options give split-mode={inherited_split}; sub-kernels must inherit the "
                              "SuperKernel's split-mode")
