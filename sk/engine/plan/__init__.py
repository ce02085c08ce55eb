"""The fusion plan: every decision about a SuperKernel, as plain data.

`build_plan(kernel_infos, platform) -> Plan` applies upstream's rules (facts
§1.4, §3-§7) to validated inputs (sk.engine.subop). Nothing here produces text: the
templates under sk/render/templates render `Plan.code` step by step, and sk.render.meta
turns the plan into the kernel JSON. `Plan.to_json()` is the plan file
(`sk gen --plan-out`), consumed by the link step and the fusion report.

The package, in the order build_plan uses it: validate (input checks), streams
(one stream or two), shape (kernel type, block dim), hangs (ops that cannot run
in that launch), layout (param_base slots),
barriers (what orders each op after the one before, early start, feed-sync-all; two
streams from syncinfo, upstream's per-op sync names),
ops (per-op records, events, link order), steps (the step tree `code`).

Plan JSON schema (schema_version 1; all keys always present, null when n/a):
  kernel_name        SK name (binFileName / kernelName of the kernel JSON)
  entry_function     "auto_gen_<name>_kernel", the generated global function
  entries            [{arch: "cube"|"vec", symbol: "<name>_mix_aic"|"<name>_mix_aiv",
                       define: "-Dauto_gen_<name>_kernel=<symbol>", object: "<symbol>.o"}]
                     one compile of the generated source per entry (facts §6.3/6.4)
  soc                {soc, short_soc, chip, npu_arch, ai_core_cnt, vector_core_cnt, has_ffts}
  options            normalised options ({name: value}); warnings: [text]
  kernel_type        SK kernel type, e.g. "KERNEL_TYPE_MIX_AIC_1_0"; task_ration "1:0"|"0:1"|"1:1"|"1:2"
  block_dim          SK block dim; mode "single_stream"|"two_stream"; early_start (effective 0|1|2)
  split_mode, func_align, preload_code
  compile_options    SK compile flags (defines, dump, user compile-options, long-call flags)
  params             {ffts_slot: 0|null, count: slots used incl. ffts, workspace_index, workspace_size
                      (feed-sync-all bytes, 0 if none), dump: bool, dump_offset, profiling_index,
                      task_id_index}
  ops                [{index, kernel_name, kernel_type, task_type, block_dim, cores: {aic, aiv},
                       stream_id, bin_path, json_path, param_offset,
                       params: [{name: "<param>_<index>", offset}],
                       dynamic_params: {tiling_key, block_num, wait_lock} | null,
                       send_events, recv_events (as in kernel_infos),
                       notify: [{event, offset, inner}], wait: [{event, offset, inner}]
                       (inner: both ends in this SK and sender first, so no GM semaphore code),
                       funcs: [{arch, key, func_name, object, text_size, preload_count,
                                splits: [{index, symbol, object, derived_from}]}],
                       dynamic_keys: [{tiling_key, kernel_type, funcs: {arch: symbol}}],
                       split_mode_json, early_start_set, early_start_wait, dcci_before, dcci_after
                       (effective: JSON flag or op type listed in the dcci-* option),
                       dcci_flags_json: {before, after} (as in the sub-op JSON), dcci_disable,
                       sync_all, feed_sync_all, debug_option, debug_size, op_type}]
  events             [{id, senders: [op], receivers: [op], inner: bool}]
  sync_edges         two-stream sync parts kept after pruning (syncinfo): [{from: op, to: op, kind: "cub:vec"...}]
  barriers           [{between: [i, j], kind, reason}] kinds: early_start, sync_all, pipe_all,
                     aic_ffts, aiv_ffts, c2v_ffts, v2c_ffts; with sync-elision=1 (single stream)
                     also "elided" (no barrier emitted) and "aic_aiv_ffts" (both per-type
                     barriers); one entry per pair of consecutive ops, so elided + kept = naive
  link_order         [{kind: "sk_entry"|"sub", arch, op: index|null, object, symbol, split: n|null,
                       derived_from: object|null}] (PerCubeHerVecWithSuper, deduplicated by object; a
                       copy made at link time (derived_from) has a line per symbol it renames)
  code               what the templates render: header {run_cfg_arch, profiling, units: [{declare:
                     [symbols], dynamic: {name, index, split, branches, search, num_blocks}|null}]}
                     (search: the tiling-key tests over branches, {eq, then, else} or {lt, left, right}),
                     functions (two streams: one per core-type queue) [{name, arch, dynamic_locals,
                     steps}], entry {name, align, workspace_index, feed_base, dump_offset, dump_mix,
                     profiling_index, task_id_index, ffts, prologue, body, epilogue},
                     meta_sections [{symbol, ktype, ration, guard_arch}].
                     Each step is {"kind": ..., ...}; see sk/render/templates/steps.j2 for the kinds.
"""

from __future__ import annotations

import dataclasses

from sk.engine import subop as subop_mod
from sk.engine.kernel_types import CUBE, TABLE as KERNEL_TYPES, VEC
from sk.engine.options import SkOptions, parse_options
from sk.engine.plan import barriers, hangs, layout, ops as ops_mod, shape, steps, streams, validate
from sk.engine.plan.context import Ctx, dev_class  # noqa: F401 (dev_class: public)
from sk.engine.plan.ops import preload_count  # noqa: F401 (public)
from sk.engine.platforms import Platform, get_platform
from sk.engine.subop import KernelInfos

SCHEMA_VERSION = 1


@dataclasses.dataclass
class Plan:
    schema_version: int
    kernel_name: str
    entry_function: str
    entries: list
    soc: dict
    options: dict
    warnings: list
    kernel_type: str
    task_ration: str
    block_dim: int
    mode: str
    early_start: int
    split_mode: int
    func_align: int
    preload_code: str
    compile_options: list
    params: dict
    ops: list
    events: list
    sync_edges: list
    barriers: list
    link_order: list
    code: dict

    def to_json(self) -> dict:
        # The fields hold plain JSON data (dicts, lists, scalars) already; asdict's
        # deep copy of a 1,200-op plan cost 0.7 s of `sk gen`.
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}


def build_plan(ki: KernelInfos, platform: Platform | None = None, opts: SkOptions | None = None) -> Plan:
    platform = platform or get_platform()
    opts = opts or parse_options(ki.options_text)
    validate.check_soc(platform)
    warnings = list(opts.warnings)
    ops = ki.ops
    two_stream = validate.validate(ki, opts, platform, warnings)
    split = opts.split_mode

    cores = [shape.op_cores(op, platform) for op in ops]
    ktype, block = shape.sk_shape(ops, cores, opts, platform)
    hangs.check(ops, cores, ktype, block, opts)
    inner = streams.inner_events(ops)
    early_start = barriers.early_start_mode(opts, two_stream)
    elide = barriers.elision_mode(ops, opts, two_stream, warnings)
    ration = KERNEL_TYPES[ktype].ration

    dump = layout.dump_needed(ops)
    feed_needed = barriers.feed_needed(ops, cores, ktype, block, opts)
    workspace_size = layout.feed_workspace_size(len(ops), ktype, block) if opts.feed_sync_all else 0
    slots = layout.param_layout(ops, platform, inner, workspace=bool(opts.feed_sync_all or dump),
                                workspace_size=workspace_size, dump=dump, profiling=bool(opts.profiling))
    op_plans = [ops_mod.op_record(op, c, s, feed, split, opts)
                for op, c, s, feed in zip(ops, cores, slots.ops, feed_needed)]

    ctx = Ctx(ki=ki, opts=opts, platform=platform, ktype=ktype, block=block, split=split,
              early_start=early_start, op_plans=op_plans, feed_needed=feed_needed, params=slots.params,
              inner=inner, elide=elide, two_stream=two_stream)
    records: list = []
    sync_edges: list = []
    code = steps.code(ctx, two_stream, records, sync_edges)

    name = ki.kernel_name
    entries = []
    if ration[0]:
        entries.append({"arch": CUBE, "symbol": f"{name}_mix_aic"})
    if ration[1]:
        entries.append({"arch": VEC, "symbol": f"{name}_mix_aiv"})
    for e in entries:
        e["define"] = f"-Dauto_gen_{name}_kernel={e['symbol']}"
        e["object"] = f"{e['symbol']}.o"

    return Plan(
        schema_version=SCHEMA_VERSION, kernel_name=name, entry_function=f"auto_gen_{name}_kernel",
        entries=entries, soc=platform.to_json(), options=opts.to_json()["options"], warnings=warnings,
        kernel_type=ktype, task_ration=f"{ration[0]}:{ration[1]}", block_dim=block,
        mode="two_stream" if two_stream else "single_stream", early_start=early_start, split_mode=split,
        func_align=opts.func_align, preload_code=opts.preload_code,
        compile_options=_compile_options(ops, opts, early_start, dump, split, platform),
        params=slots.params, ops=op_plans, events=ops_mod.events(ops, inner), sync_edges=sync_edges,
        barriers=records, link_order=ops_mod.link_order(entries, op_plans), code=code,
    )


def _compile_options(ops, opts: SkOptions, early_start: int, dump: bool, split: int, platform: Platform) -> list:
    flags = []
    if any(op.dynamic for op in ops):
        flags.append("-D__SUPER_KERNEL_DYNAMIC_BLOCK_NUM__")
    if early_start:
        flags += ["-D__ASCENDC_ENABLE_SET_NEXT_TASK_START", "-D__ASCENDC_ENABLE_WAIT_PRE_TASK_END",
                  "-D__ASCENDC_SUPERKERNEL_EARLY_START_V2"]
    if opts.feed_sync_all:
        flags.append("-D__ASCENDC_SUPERKERNEL_AUTO_SYNC_ALL__")
    flags.append("-DASCENDC_DUMP" if dump else "-DASCENDC_DUMP=0")
    flags += list(opts.compile_options)
    # ADK compile_pre_process appends it to upstream's list here, before the dump size.
    flags.append("--cce-disable-kernel-global-attr-check")
    if platform.chip == "c310":  # compile_super_kernel, on c310 (and m510) parts
        flags.append("--cce-no-dcache-flush")
    if dump:
        # Each core's share of the dump buffer, as upstream computes it (a Python float's text).
        size = layout.sk_debug((op.debug_options, op.debug_buf_size) for op in ops)[1]
        flags.append(f"-DONE_CORE_DUMP_SIZE={size / layout.DUMP_CORE_NUM}")
    if split > 1:
        flags += ["-mllvm", "-cce-aicore-jump-expand=true", "--cce-long-call=true", "-mllvm",
                  "-cce-aicore-long-call"]
    return flags


def load_and_plan(kernel_infos_path: str, soc: str | None = None) -> tuple:
    """Convenience: (KernelInfos, Plan) from a kernel_infos file."""
    platform = get_platform(soc)
    ki = subop_mod.load_kernel_infos(kernel_infos_path, platform)
    return ki, build_plan(ki, platform)
