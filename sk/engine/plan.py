"""The fusion plan: every decision about a SuperKernel, as plain data.

`build_plan(kernel_infos, platform) -> Plan` applies upstream's rules (facts
§1.4, §3-§7) to validated inputs (sk.engine.subop). Nothing here produces text: the
templates under sk/templates render `Plan.code` step by step, and sk.render.meta
turns the plan into the kernel JSON. `Plan.to_json()` is the plan file
(`sk gen --plan-out`), consumed by the link step and the fusion report.

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
  sync_edges         two-stream dependencies kept after pruning: [{from: op, to: op, kind: "cub:vec"...}]
  barriers           [{between: [i, j], kind, reason}] kinds: early_start, sync_all, pipe_all,
                     aic_ffts, aiv_ffts, c2v_ffts, v2c_ffts; with sync-elision=1 (single stream)
                     also "elided" (no barrier emitted) and "aic_aiv_ffts" (both per-type
                     barriers); one entry per pair of consecutive ops, so elided + kept = naive
  link_order         [{kind: "sk_entry"|"sub", arch, op: index|null, object, symbol, split: n|null,
                       derived_from: object|null}] (PerCubeHerVecWithSuper, deduplicated by object)
  code               what the templates render: header {run_cfg_arch, profiling, units: [{declare:
                     [symbols], dynamic: {name, index, split, branches, num_blocks}|null}]},
                     functions (two streams: one per core-type queue) [{name, arch, dynamic_locals,
                     steps}], entry {name, align, workspace_index, feed_base, dump_offset,
                     profiling_index, task_id_index, ffts, prologue, body, epilogue},
                     meta_sections [{symbol, ktype, ration, guard_arch}].
                     Each step is {"kind": ..., ...}; see sk/templates/steps.j2 for the kinds.
"""

from __future__ import annotations

import dataclasses
import math
import os

from sk.engine import elision
from sk.engine import subop as subop_mod
from sk.base.errors import SkError
from sk.engine.options import SkOptions, parse_options
from sk.engine.platforms import Platform, get_platform
from sk.engine.kernel_types import CUBE, TABLE as KERNEL_TYPES, VEC
from sk.engine.subop import KernelInfos, SubOp, split_objects

SCHEMA_VERSION = 1
ICACHE_LINE = 2048
PRELOAD_CAP = 16 * 1024
DYNAMIC_PRELOAD = {CUBE: 16, VEC: 8}   # AIC ICache 16 x 2 KB, AIV 8 x 2 KB
FEED_SYNC_ALL_BASE = 512
FEED_CONFIG_BYTES = 64
DUMP_KEYWORDS = ("timestamp", "printf", "assert")
SUPPORTED_SOC_FAMILIES = ("Ascend910B", "Ascend910_93")

_SIDE = {CUBE: "cub", VEC: "vec"}


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


def dev_class(kernel_type: str) -> int:
    """Early-start device class: AIC=0, AIV=1, MIX=2 (facts §5.2)."""
    kt = KERNEL_TYPES[kernel_type]
    return 0 if kt.cube_only else 1 if kt.vector_only else 2


def preload_count(text_size: int) -> int:
    return math.ceil(min(text_size, PRELOAD_CAP) / ICACHE_LINE)


def idx_api(kernel_type: str) -> str:
    """Which block index an op's guard reads: AIV kinds use AscendC::GetBlockIdx(), the rest get_block_idx()."""
    return "ascendc" if KERNEL_TYPES[kernel_type].vector_only else "raw"


# --------------------------------------------------------------------------- validation

def _validate(ki: KernelInfos, opts: SkOptions, platform: Platform, warnings: list) -> None:
    ops = ki.ops
    for op in ops:
        if op.split_mode is not None and op.split_mode != opts.split_mode:
            raise SkError("sub-op split_mode differs from the SuperKernel split-mode",
                          where=f"at {op.label} {op.json_path}: split_mode", value=op.split_mode,
                          allowed=f"the SK option split-mode is {opts.split_mode}; please check whether the sub "
                                  "operator inherits the super kernel options")
        if opts.early_start == 0 and (op.early_start_set or op.early_start_wait):
            raise SkError("sub-op was compiled with early start but the SuperKernel has early-start=0",
                          where=f"at {op.label} {op.json_path}: sub_operator_early_start_set_flag/_wait_flag",
                          value=True, allowed="recompile the sub-op with the SK options, or set early-start=1")
        for e in op.send_events:
            if e in op.recv_events:
                raise SkError("an op sends and receives the same event", where=f"at {op.label}", value=e,
                              allowed="an event connects two different ops")
    if ops[0].recv_events:
        raise SkError("the first op must not wait for events", where=f"at {ops[0].label}.recv_event_list",
                      value=list(ops[0].recv_events), allowed="[]; nothing before it in the SK can send them")
    if ops[-1].send_events:
        raise SkError("the last op must not send events", where=f"at {ops[-1].label}.send_event_list",
                      value=list(ops[-1].send_events), allowed="[]; nothing after it in the SK can receive them")
    senders: dict = {}
    for op in ops:
        for e in op.send_events:
            if e in senders:
                raise SkError("two ops send the same event", where=f"at {op.label}.send_event_list", value=e,
                              allowed=f"event ids are unique; {ops[senders[e]].label} sends it too")
            senders[e] = op.index
    for op in ops:
        for e in op.recv_events:
            if e in senders and ops[senders[e]].stream_id == op.stream_id:
                raise SkError("send/recv pair within one stream", where=f"at {op.label}.recv_event_list", value=e,
                              allowed=f"{ops[senders[e]].label} is on the same stream {op.stream_id}; "
                                      "ops of one stream are already ordered")
    _check_entry_symbols(ops)
    _check_event_order(ops, senders, bool(opts.stream_fusion) and len({op.stream_id for op in ops}) > 1)
    if not opts.stream_fusion:
        for a, b in zip(ops, ops[1:]):
            if a.stream_id != b.stream_id and not set(a.send_events) & set(b.recv_events):
                raise SkError("super kernel do not support more than 2 real stream, use 'options=\"stream-fusion=1\"'",
                              where=f"at {b.label}", value=f"stream {a.stream_id} -> stream {b.stream_id}",
                              allowed="set stream-fusion=1, or connect consecutive ops of different streams "
                                      "with an event")
    disabled = set(opts.dcci_disable_on_kernel)
    run = 0
    for op in ops:
        run = run + 1 if op.op_type in disabled else 0
        if run == 2:
            warnings.append(f"{op.label} and the op before it are both in dcci-disable-on-kernel: consecutive "
                            "sub-ops without dcci risk stale data-cache lines")


def _elision_mode(ops, opts: SkOptions, two_stream: bool, warnings: list) -> bool:
    """Whether sync-elision applies. It needs every op's tensors; debug flags and two streams switch it off."""
    if not opts.sync_elision:
        return False
    for op in ops:
        if op.tensors is None:
            raise SkError("sync-elision=1 needs the tensors every op reads and writes, and this op declares none",
                          where=f"at {op.label}.tensors", value=None,
                          allowed='declare "tensors": {"reads": [...], "writes": [...]} on every op (the '
                                  "SuperKernel rule does it from the op's tensor bindings), or turn sync-elision "
                                  "off (sync-elision=0)")
    if opts.debug_sync_all:
        # debug-sync-all exists to serialise everything: a debug flag always wins over an optimisation.
        warnings.append("sync-elision=1 has no effect with debug-sync-all=1: every barrier is kept")
        return False
    if two_stream:
        # Two-stream barriers come from the stream/event graph (facts §5.3), whose send/recv flags
        # pair across the two functions; dropping one unbalances the other side. Not attempted.
        warnings.append("sync-elision=1 has no effect in two-stream mode (stream-fusion=1 with two streams): "
                        "its barriers follow the stream and event graph")
        return False
    return True


def _check_event_order(ops, senders: dict, two_stream: bool) -> None:
    """Events must not wait in a cycle: an op that waits for an event only a later op can send hangs.

    Ops run in op_list order, per stream when two streams are fused (then a
    receiver may precede its sender on the other stream, as upstream's goldens do).
    """
    succ: dict = {op.index: [] for op in ops}
    indeg = dict.fromkeys(succ, 0)
    last: dict = {}
    for op in ops:
        queue = op.stream_id if two_stream else 0
        if queue in last:
            succ[last[queue]].append(op.index)
            indeg[op.index] += 1
        last[queue] = op.index
        for e in op.recv_events:
            if e in senders:
                succ[senders[e]].append(op.index)
                indeg[op.index] += 1
    ready = [i for i, d in indeg.items() if d == 0]
    while ready:
        for j in succ[ready.pop()]:
            indeg[j] -= 1
            if indeg[j] == 0:
                ready.append(j)
    stuck = [op for op in ops if indeg[op.index]]
    for op in stuck:
        for e in op.recv_events:
            if e in senders and indeg[senders[e]]:
                order = "on its stream" if two_stream else "in op_list (launch order)"
                raise SkError("event can never arrive: the op waits for an op that runs after it (deadlock)",
                              where=f"at {op.label}.recv_event_list", value=e,
                              allowed=f"{ops[senders[e]].label} sends it but can only run after this op "
                                      f"{order}; list every sender before its receivers")


def _check_entry_symbols(ops) -> None:
    """The fused entry calls sub-kernels by name, so one name must mean one object."""
    owners: dict = {}
    for op in ops:
        for f in op.funcs:
            source = (op.bin_path, os.path.normpath(os.path.join(os.path.dirname(op.json_path), f._path)))
            symbols = [f.func_name] + [s for k in op.dynamic_keys for a, s in k.funcs if a == f.arch]
            for sym in dict.fromkeys(symbols):
                first_source, first_op = owners.setdefault(sym, (source, op))
                if first_source != source:
                    raise SkError("two different objects define the same sub-kernel entry symbol",
                                  where=f"at {op.label}: {sym}", value=f"{source[0]}:{source[1]}",
                                  allowed=f"{first_op.label} takes it from {first_source[0]}:{first_source[1]}; "
                                          "localisation cannot separate two globals the SuperKernel calls by "
                                          "name: give each kernel its own entry name")


# --------------------------------------------------------------------------- shape

def _op_cores(op: SubOp, platform: Platform) -> dict:
    kt = KERNEL_TYPES[op.kernel_type]
    if not op.dynamic:
        return kt.cores(op.block_dim)
    # A dynamic op may use every core of its sides (a 1:2 op at most twice the AI cores in vector cores).
    aic = platform.ai_core_cnt if kt.ration[0] else 0
    aiv = 0 if not kt.ration[1] else platform.vector_core_cnt if not kt.ration[0] else \
        min(kt.ration[1] * platform.ai_core_cnt, platform.vector_core_cnt)
    return {"aic": aic, "aiv": aiv}


def _sk_shape(ops, cores, opts: SkOptions, platform: Platform) -> tuple:
    types = {op.kernel_type for op in ops}
    max_aic = max(c["aic"] for c in cores)
    max_aiv = max(c["aiv"] for c in cores)
    if all(KERNEL_TYPES[t].vector_only for t in types):
        ktype, block = "KERNEL_TYPE_MIX_AIV_1_0", max_aiv
    elif all(KERNEL_TYPES[t].cube_only for t in types):
        ktype, block = "KERNEL_TYPE_MIX_AIC_1_0", max_aic
    elif types == {"KERNEL_TYPE_MIX_AIC_1_1"}:
        ktype, block = "KERNEL_TYPE_MIX_AIC_1_1", max_aic
    elif max_aiv <= max_aic:
        ktype, block = "KERNEL_TYPE_MIX_AIC_1_1", max_aic
    else:
        ktype, block = "KERNEL_TYPE_MIX_AIC_1_2", max(max_aic, math.ceil(max_aiv / 2))
    aic, aiv = opts.debug_aic_num, opts.debug_aiv_num
    if not (aic or aiv):
        return ktype, block
    where = "options 'debug-aic-num'/'debug-aiv-num'"
    if aic > platform.ai_core_cnt:
        raise SkError("debug-aic-num exceeds the SoC's AI cores", where=where, value=aic,
                      allowed=f"at most {platform.ai_core_cnt} on {platform.soc}")
    if aiv > platform.vector_core_cnt:
        raise SkError("debug-aiv-num exceeds the SoC's vector cores", where=where, value=aiv,
                      allowed=f"at most {platform.vector_core_cnt} on {platform.soc}")
    if aic and not aiv:
        ktype, block = "KERNEL_TYPE_MIX_AIC_1_0", aic
    elif aiv and not aic:
        ktype, block = "KERNEL_TYPE_MIX_AIV_1_0", aiv
    elif aic == aiv:
        ktype, block = "KERNEL_TYPE_MIX_AIC_1_1", aic
    else:
        ktype, block = "KERNEL_TYPE_MIX_AIC_1_2", aic
    if max_aic and not aic:
        raise SkError("debug-aiv-num alone leaves no cube cores for the cube sub-ops", where=where, value=aiv,
                      allowed=f"also set debug-aic-num >= {max_aic}")
    if max_aiv and not aiv:
        raise SkError("debug-aic-num alone leaves no vector cores for the vector sub-ops", where=where, value=aic,
                      allowed=f"also set debug-aiv-num >= {max_aiv}")
    if aic and aic < max_aic:
        raise SkError("debug-aic-num is below the cube cores the sub-ops need", where=where, value=aic,
                      allowed=f">= {max_aic}")
    if aiv and aiv < max_aiv:
        raise SkError("debug-aiv-num is below the vector cores the sub-ops need", where=where, value=aiv,
                      allowed=f">= {max_aiv}")
    return ktype, block


# --------------------------------------------------------------------------- main

def build_plan(ki: KernelInfos, platform: Platform | None = None, opts: SkOptions | None = None) -> Plan:
    platform = platform or get_platform()
    opts = opts or parse_options(ki.options_text)
    if platform.short_soc not in SUPPORTED_SOC_FAMILIES:
        raise SkError("SuperKernel is not supported on this SoC", where="--soc", value=platform.soc,
                      allowed="Atlas A2/A3 parts (Ascend910B*, Ascend910_93*)")
    warnings = list(opts.warnings)
    ops = ki.ops
    _validate(ki, opts, platform, warnings)
    split = opts.split_mode
    for op in ops:
        op.check_split_copies(split)

    cores = [_op_cores(op, platform) for op in ops]
    ktype, block = _sk_shape(ops, cores, opts, platform)
    two_stream = bool(opts.stream_fusion) and len({op.stream_id for op in ops}) > 1
    early_start = 0 if two_stream else opts.early_start
    elide = _elision_mode(ops, opts, two_stream, warnings)
    ration = KERNEL_TYPES[ktype].ration

    # param_base layout (facts §3.2)
    slot = 1 if platform.has_ffts else 0
    op_params, dyn_params, notify, wait = [], [], [], []
    inner = _inner_events(ops)
    for op in ops:
        start = slot
        op_params.append([{"name": f"{p}_{op.index}", "offset": start + k} for k, p in enumerate(op.params)])
        slot += len(op.params)
        if op.dynamic:
            dyn_params.append({"tiling_key": slot, "block_num": slot + 1, "wait_lock": slot + 2})
            slot += 3
        else:
            dyn_params.append(None)
        notify.append([{"event": e, "offset": slot + k, "inner": e in inner} for k, e in enumerate(op.send_events)])
        slot += len(op.send_events)
        wait.append([{"event": e, "offset": slot + k, "inner": e in inner} for k, e in enumerate(op.recv_events)])
        slot += len(op.recv_events)
    param_offsets = []
    pos = 1 if platform.has_ffts else 0
    for op in ops:
        param_offsets.append(pos)
        pos += len(op.params) + (3 if op.dynamic else 0) + len(op.send_events) + len(op.recv_events)

    dump = any(any(k in (op.debug_options or "") for k in DUMP_KEYWORDS) for op in ops)
    sk_aic = block if ration[0] else 0
    sk_aiv = block * (ration[1] if ration[0] else 1) if ration[1] else 0
    feed_needed = []
    for op, c in zip(ops, cores):
        # A dynamic op's block count is only known at run time, so it may always leave cores idle.
        fewer = op.dynamic or (c["aic"] and c["aic"] < sk_aic) or (c["aiv"] and c["aiv"] < sk_aiv)
        feed_needed.append(bool(opts.feed_sync_all and op.sync_all and fewer))
    workspace_size = 0
    if opts.feed_sync_all:
        blocks = block * (2 if ktype == "KERNEL_TYPE_MIX_AIC_1_2" else 1)
        base = FEED_SYNC_ALL_BASE
        while blocks * base <= len(ops) * 2 * FEED_CONFIG_BYTES:
            base *= 2
        workspace_size = blocks * base
    nxt = slot
    workspace_index = None
    if opts.feed_sync_all or dump:
        workspace_index, nxt = nxt, nxt + 1
    profiling_index = task_id_index = None
    if opts.profiling:
        profiling_index, task_id_index = nxt, nxt + 1
    params = {"ffts_slot": 0 if platform.has_ffts else None, "count": slot,
              "workspace_index": workspace_index, "workspace_size": workspace_size, "dump": dump,
              "dump_offset": workspace_size if dump else None,
              "profiling_index": profiling_index, "task_id_index": task_id_index}

    op_plans = []
    for op, c in zip(ops, cores):
        op_plans.append(_op_plan(op, c, param_offsets[op.index], op_params[op.index], dyn_params[op.index],
                                 notify[op.index], wait[op.index], feed_needed[op.index], split, opts))

    ctx = _Ctx(ki=ki, opts=opts, platform=platform, ktype=ktype, block=block, split=split,
               early_start=early_start, op_plans=op_plans, feed_needed=feed_needed, params=params,
               inner=inner, elide=elide)
    barriers: list = []
    sync_edges: list = []
    code = _code(ctx, two_stream, barriers, sync_edges)

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
        compile_options=_compile_options(ops, opts, early_start, dump, split),
        params=params, ops=op_plans, events=_events(ops, inner), sync_edges=sync_edges, barriers=barriers,
        link_order=_link_order(entries, op_plans), code=code,
    )


def _inner_events(ops) -> set:
    """Events sent by an op and received by a later op of the same SK need no GM semaphore."""
    sent, inner = set(), set()
    for op in ops:
        inner |= sent & set(op.recv_events)
        sent |= set(op.send_events)
    return inner


def _events(ops, inner) -> list:
    ids = sorted({e for op in ops for e in op.send_events + op.recv_events})
    return [{"id": e, "senders": [op.index for op in ops if e in op.send_events],
             "receivers": [op.index for op in ops if e in op.recv_events], "inner": e in inner} for e in ids]


def _op_plan(op: SubOp, cores, offset, params, dyn, notify, wait, feed, split, opts) -> dict:
    funcs = []
    for f in op.funcs:
        splits = []
        if split > 1:
            derived_from = f.object if op.split_mode is None else None
            for i, obj in enumerate(split_objects(f, split), start=1):
                splits.append({"index": i, "symbol": f"{f.func_name}_split{i}", "object": obj,
                               "derived_from": derived_from})
        funcs.append({"arch": f.arch, "key": f.key, "func_name": f.func_name, "object": f.object,
                      "text_size": f.text_size,
                      "preload_count": DYNAMIC_PRELOAD[f.arch] if op.dynamic else preload_count(f.text_size),
                      "splits": splits})
    op_type = op.op_type
    return {
        "index": op.index, "kernel_name": op.kernel_name, "kernel_type": op.kernel_type, "task_type": op.task_type,
        "block_dim": op.block_dim, "cores": cores, "stream_id": op.stream_id, "bin_path": op.bin_path,
        "json_path": op.json_path, "param_offset": offset, "params": params, "dynamic_params": dyn,
        "notify": notify, "wait": wait, "funcs": funcs,
        "dynamic_keys": [{"tiling_key": k.tiling_key, "kernel_type": k.kernel_type, "funcs": dict(k.funcs)}
                         for k in op.dynamic_keys],
        "send_events": list(op.send_events), "recv_events": list(op.recv_events),
        "split_mode_json": op.split_mode, "early_start_set": op.early_start_set,
        "early_start_wait": op.early_start_wait,
        "dcci_before": op.dcci_before or (op_type is not None and op_type in opts.dcci_before_kernel_start),
        "dcci_after": op.dcci_after or (op_type is not None and op_type in opts.dcci_after_kernel_end),
        "dcci_flags_json": {"before": op.dcci_before, "after": op.dcci_after},
        "dcci_disable": op.dcci_disable, "sync_all": op.sync_all, "feed_sync_all": feed,
        "debug_option": op.debug_options, "debug_size": op.debug_buf_size, "op_type": op_type,
    }


def _compile_options(ops, opts: SkOptions, early_start: int, dump: bool, split: int) -> list:
    flags = ["--cce-disable-kernel-global-attr-check"]
    if any(op.dynamic for op in ops):
        flags.append("-D__SUPER_KERNEL_DYNAMIC_BLOCK_NUM__")
    if early_start:
        flags += ["-D__ASCENDC_ENABLE_SET_NEXT_TASK_START", "-D__ASCENDC_ENABLE_WAIT_PRE_TASK_END",
                  "-D__ASCENDC_SUPERKERNEL_EARLY_START_V2"]
    if opts.feed_sync_all:
        flags.append("-D__ASCENDC_SUPERKERNEL_AUTO_SYNC_ALL__")
    flags.append("-DASCENDC_DUMP" if dump else "-DASCENDC_DUMP=0")
    flags += list(opts.compile_options)
    if split > 1:
        flags += ["-mllvm", "-cce-aicore-jump-expand=true", "--cce-long-call=true", "-mllvm",
                  "-cce-aicore-long-call"]
    return flags


def _link_order(entries, op_plans) -> list:
    seq = []
    for arch in (CUBE, VEC):
        for e in entries:
            if e["arch"] == arch:
                seq.append({"kind": "sk_entry", "arch": arch, "op": None, "object": e["object"],
                            "symbol": e["symbol"], "split": None, "derived_from": None})
        for op in op_plans:
            for f in op["funcs"]:
                if f["arch"] != arch:
                    continue
                seq.append({"kind": "sub", "arch": arch, "op": op["index"], "object": f["object"],
                            "symbol": f["func_name"], "split": 0, "derived_from": None})
                for s in f["splits"]:
                    seq.append({"kind": "sub", "arch": arch, "op": op["index"], "object": s["object"],
                                "symbol": s["symbol"], "split": s["index"], "derived_from": s["derived_from"]})
    seen, out = set(), []
    for item in seq:
        if item["object"] not in seen:
            seen.add(item["object"])
            out.append(item)
    return out


# --------------------------------------------------------------------------- code structure

@dataclasses.dataclass
class _Ctx:
    ki: KernelInfos
    opts: SkOptions
    platform: Platform
    ktype: str
    block: int
    split: int
    early_start: int
    op_plans: list
    feed_needed: list
    params: dict
    inner: set
    elide: bool = False


def _sync_kind(kernel_type: str) -> str:
    """Full cross-core sync by kernel type (facts §5.1): aic ffts, aiv ffts or SyncAll<false>."""
    kt = KERNEL_TYPES[kernel_type]
    if not (kt.cube_only or kt.vector_only):
        return "mix"
    return "aic" if kt.cube_only else "aiv"


def _arch_symbols(op: dict, arch: str, split: int) -> list:
    f = next(f for f in op["funcs"] if f["arch"] == arch)
    return [f["func_name"]] + [s["symbol"] for s in f["splits"]]


def _preload_steps(op: dict, split: int) -> list:
    steps = []
    for f in op["funcs"]:
        steps.append({"kind": "preload", "arch": f["arch"], "idx": idx_api(op["kernel_type"]),
                      "block": op["block_dim"], "symbols": _arch_symbols(op, f["arch"], split),
                      "count": f["preload_count"], "trailing_blank": False})
    return steps


def _dynamic_self_preload(ctx: _Ctx, op: dict) -> list:
    # Upstream preloads a dynamic op through its function pointers on the vector side only.
    steps = []
    if VEC in [f["arch"] for f in op["funcs"]]:
        steps.append({"kind": "preload", "arch": VEC, "idx": "ascendc", "block": op["cores"]["aiv"],
                      "symbols": _pointer_names("aiv_func_addr", ctx.split), "count": DYNAMIC_PRELOAD[VEC],
                      "trailing_blank": True})
    return steps


def _pointer_names(base: str, split: int) -> list:
    return [base] + [f"{base}_split{i}" for i in range(1, split)]


def _op_preloads(ctx: _Ctx, seq: list, k: int) -> list:
    if ctx.opts.preload_code != "per-func":
        return []
    op = seq[k]
    steps = []
    if op["task_type"] == "dynamic":
        steps += _dynamic_self_preload(ctx, op)
    elif k == 0:
        steps += _preload_steps(op, ctx.split)
    if k + 1 < len(seq) and seq[k + 1]["task_type"] != "dynamic":
        steps += _preload_steps(seq[k + 1], ctx.split)
    return steps


def _call_steps(ctx: _Ctx, op: dict) -> list:
    i = op["index"]
    steps = []
    if ctx.opts.feed_sync_all:
        if ctx.feed_needed[i]:
            steps.append({"kind": "feed_config", "index": i, "n_ops": len(ctx.op_plans)})
        else:
            steps.append({"kind": "feed_disable"})
    if ctx.opts.profiling:
        steps.append({"kind": "profile", "index": i + 1, "type": "0x8", "start": True})
    if op["task_type"] == "dynamic":
        # Upstream's feed-sync-all path for a dynamic op emits the config but no call.
        if not ctx.feed_needed[i]:
            steps.append({"kind": "dyn_call", "name": op["kernel_name"], "offset": op["param_offset"],
                          "split": ctx.split, "wait_lock": op["dynamic_params"]["wait_lock"],
                          "reset_arch": VEC if KERNEL_TYPES[op["kernel_type"]].vector_only else CUBE})
    else:
        blocks = []
        for f in op["funcs"]:
            blocks.append({"arch": f["arch"], "idx": idx_api(op["kernel_type"]), "block": op["block_dim"],
                           "symbols": _arch_symbols(op, f["arch"], ctx.split), "offset": op["param_offset"],
                           "dcci_before": op["dcci_before"] and op["dcci_disable"] is not True,
                           "dcci_after": op["dcci_after"] and op["dcci_disable"] is not True})
        steps.append({"kind": "call", "blocks": blocks, "feed": ctx.feed_needed[i]})
    return steps


def _debug_steps(ctx: _Ctx, op: dict, style: str, arch: str | None) -> list:
    steps = []
    if ctx.opts.debug_dcci_all:
        steps.append({"kind": "debug_dcci"})
    if ctx.opts.debug_sync_all:
        if style == "single":
            steps.append({"kind": "debug_sync", "style": style, "sync": _sync_kind(ctx.ktype)})
        else:
            steps.append({"kind": "debug_sync", "style": style, "sync": "aic" if arch == CUBE else "aiv"})
    if ctx.opts.profiling:
        steps.append({"kind": "profile", "index": op["index"] + 1, "type": "0x8", "start": False})
    return steps


def _notify_steps(ctx: _Ctx, op: dict, arch: str) -> list:
    return [{"kind": "notify", "arch": arch, "name": op["kernel_name"], "event": n["event"], "offset": n["offset"],
             "profiling": bool(ctx.opts.profiling)} for n in op["notify"] if not n["inner"]]


def _wait_steps(ctx: _Ctx, op: dict, arch: str) -> list:
    steps = [{"kind": "wait", "arch": arch, "name": op["kernel_name"], "event": w["event"], "offset": w["offset"],
              "profiling": bool(ctx.opts.profiling)} for w in op["wait"] if not w["inner"]]
    if steps:
        steps.append({"kind": "reason3", "sync": _sync_kind(op["kernel_type"])})
    return steps


def _main_arch(op: dict) -> str:
    return op["funcs"][0]["arch"]


def _dyn_switch(ctx: _Ctx, op: dict) -> dict:
    d = op["dynamic_params"]
    return {"kind": "dyn_switch", "name": op["kernel_name"], "args": [d["tiling_key"], d["block_num"], d["wait_lock"]],
            "split": ctx.split}


def _op_head(ctx: _Ctx, seq: list, k: int) -> list:
    """What opens op seq[k]: its comment, the tiling-key switch of a dynamic op, the preloads."""
    op = seq[k]
    steps = [{"kind": "op_begin", "name": op["kernel_name"]}]
    if op["task_type"] == "dynamic":
        steps.append(_dyn_switch(ctx, op))
    return steps + _op_preloads(ctx, seq, k)


def _single_stream_body(ctx: _Ctx, barriers: list) -> list:
    ops = ctx.op_plans
    tracker = elision.Tracker() if ctx.elide else None
    steps = []
    for k, op in enumerate(ops):
        steps += _op_head(ctx, ops, k)
        if k:
            prev = ops[k - 1]
            if tracker is None:
                steps += _single_barrier(ctx, prev, op, barriers)
            else:
                steps += _elision_barrier(ctx, tracker, prev, op, barriers)
            steps += _notify_steps(ctx, prev, _main_arch(prev))
            steps += _wait_steps(ctx, op, _main_arch(op))
        if tracker is not None:
            tracker.add(op["index"], _arches(op), *_resources(ctx, op))
        steps += _call_steps(ctx, op)
        steps += _debug_steps(ctx, op, "single", None)
    return steps


def _single_barrier(ctx: _Ctx, p: dict, c: dict, barriers: list) -> list:
    between = [p["index"], c["index"]]
    if p["task_type"] == "dynamic" or c["task_type"] == "dynamic":
        barriers.append({"between": between, "kind": "sync_all", "reason": "dynamic op cannot use early start"})
        return [{"kind": "sync_barrier", "reason": "dynamic", "sync": _sync_kind(ctx.ktype)}]
    if not ctx.early_start:
        barriers.append({"between": between, "kind": "sync_all", "reason": "early-start disabled"})
        return [{"kind": "sync_barrier", "reason": "early_start_disabled", "sync": _sync_kind(ctx.ktype)}]
    dp, dc = dev_class(p["kernel_type"]), dev_class(c["kernel_type"])
    barriers.append({"between": between, "kind": "early_start",
                     "reason": f"SetNextTaskStart/WaitPreTaskEnd, config {(dp << 2) | dc}"})
    return [_es_step(ctx, p, c, (dp << 2) | dc)]


def _es_step(ctx: _Ctx, p: dict, c: dict, config: int) -> dict:
    """The early-start barrier p -> c with `config`; upstream's is (dev(p) << 2) | dev(c).

    The producer types of the config set the flag: all their cores, or only the
    idle ones of p when p sets it itself (early-start=1 and the JSON flag).
    Every core waits; the consumer's own wait covers its active cores."""
    own_flags = ctx.early_start == 1   # mode 2 (V2DisableSubKernel): sub-kernels never set/wait themselves
    sets, waits = [], []
    dp, dc = config >> 2, config & 3
    p_arches, c_arches = _arches(p), _arches(c)
    for arch in (CUBE, VEC):
        if arch in elision.DEV_ARCHES[dp]:
            cond = (">=", idx_api(p["kernel_type"]) if arch == VEC else "raw", p["block_dim"]) \
                if own_flags and p["early_start_set"] and arch in p_arches else None
            sets.append({"arch": arch, "cond": cond, "action": "set"})
        else:
            sets.append({"arch": arch, "cond": None, "action": "aic_only" if arch == VEC else "aiv_only"})
    for arch in (CUBE, VEC):
        cond = (">=", idx_api(c["kernel_type"]) if arch == VEC else "raw", c["block_dim"]) \
            if own_flags and c["early_start_wait"] and arch in c_arches else None
        waits.append({"arch": arch, "cond": cond})
    return {"kind": "es_barrier", "set": sets, "config": config, "wait": waits, "extra": elision.es_extra(dp, dc)}


def _arches(op: dict) -> list:
    return [f["arch"] for f in op["funcs"]]


def _resources(ctx: _Ctx, op: dict) -> tuple:
    """(reads, writes) of an op for the hazard tracker: its declared tensors, and the
    events it exchanges with other ops of this SK (sender writes, receiver reads)."""
    t = ctx.ki.ops[op["index"]].tensors
    reads = {("tensor", n) for n in t.reads} | {("event", w["event"]) for w in op["wait"] if w["inner"]}
    writes = {("tensor", n) for n in t.writes} | {("event", n["event"]) for n in op["notify"] if n["inner"]}
    return reads, writes


def _sk_arches(ctx: _Ctx) -> tuple:
    ration = KERNEL_TYPES[ctx.ktype].ration
    return tuple(a for a, n in zip((CUBE, VEC), ration) if n)


def _elision_barrier(ctx: _Ctx, tracker: elision.Tracker, p: dict, c: dict, barriers: list) -> list:
    """sync-elision=1: no barrier, or the cheapest one that orders every hazard (sk.engine.elision).

    Safety, case by case:
      * dynamic p or c: upstream's full sync, unchanged. Its block count is only
        known at run time and its call path has its own SyncAll protocol; the
        full sync orders every core type, so nothing stays pending.
      * a sub-kernel that sets (p) or waits (c) the early-start flag itself
        (early-start=1): the pair must exist or its own call is unmatched (a
        set nobody consumes, or a wait that never returns). Kept; when p sets
        itself, p's types are producers of the config so its set is consumed.
      * an external event (GM semaphore notify after p, wait before c): block 0
        notifies/waits right after the barrier, relying on it to mean "p is
        done everywhere" as upstream has it. Kept, with at least upstream's
        orders.
      * otherwise, no hazard of c with any op since it was last ordered (the
        tracker) means the pair orders nothing c needs: elided. The set and the
        wait go together, so the generated code stays balanced.
      * a hazard: the barrier must provide (arch of the earlier access, arch of
        c's half) for each; the cheapest kind that does (below) is emitted and
        the tracker learns what it ordered.
    Everything else of the pair (notify/wait steps, preloads, feed-sync-all
    config) is emitted exactly as without elision. feed-sync-all needs no
    barrier of ours: each op's idle cores replay its SyncAlls from its own
    config word, and every core still runs the same sequence of flag
    operations, so mode-0 rounds pair up as before."""
    between = [p["index"], c["index"]]
    if p["task_type"] == "dynamic" or c["task_type"] == "dynamic":
        tracker.barrier(elision.ALL_ORDERS)
        return _single_barrier(ctx, p, c, barriers)
    if tuple(between) in elision.TEST_FORCE_ELIDE:
        barriers.append({"between": between, "kind": "elided", "reason": "forced by the test hook (unsafe)"})
        return [{"kind": "elided_barrier"}]
    hazards = tracker.hazards(c["index"], _arches(c), *_resources(ctx, c))
    required = frozenset(h.order for h in hazards)
    own = ctx.early_start == 1
    keep = []
    if own and p["early_start_set"]:
        keep.append(f"op {p['index']} sets the early-start flag itself")
    if own and c["early_start_wait"]:
        keep.append(f"op {c['index']} waits for the early-start flag itself")
    external = any(not n["inner"] for n in p["notify"]) or any(not w["inner"] for w in c["wait"])
    if external:
        keep.append("an external event is notified or waited for here")
    if not hazards and not keep:
        barriers.append({"between": between, "kind": "elided",
                         "reason": "sync-elision: no RAW/WAR/WAW hazard with any op not yet ordered before "
                                   f"op {c['index']}"})
        return [{"kind": "elided_barrier"}]
    shown = [h.describe() for h in hazards[:3]] + ([f"{len(hazards) - 3} more hazards"] if len(hazards) > 3 else [])
    why = "sync-elision: " + "; ".join(keep + shown)
    sk_arches = _sk_arches(ctx)
    dp, dc = dev_class(p["kernel_type"]), dev_class(c["kernel_type"])
    upstream = (dp << 2) | dc
    if ctx.early_start:
        # The early-start pair is the barrier; pick its config. An external event keeps at
        # least upstream's orders; a self-setting p must be a producer; with no hazard
        # (kept only for the flags) upstream's config is as good as any.
        if required or external:
            need = required | (elision.es_orders(upstream) if external else frozenset())
            must_from = _arches(p) if own and p["early_start_set"] else ()
            config = elision.cheapest_es_config(need, sk_arches, must_from, preferred=upstream)
        else:
            config = upstream
        tracker.barrier(elision.es_orders(config))
        barriers.append({"between": between, "kind": "early_start",
                         "reason": f"SetNextTaskStart/WaitPreTaskEnd, config {config}; {why}"})
        return [_es_step(ctx, p, c, config)]
    full = _sync_kind(ctx.ktype)
    same_type = required <= {(CUBE, CUBE), (VEC, VEC)}
    if external or len(sk_arches) == 1 or not same_type:
        # Cross-type orders need SyncAll<false>; a one-type SK's full sync already is that
        # type's ffts barrier, the cheapest there is.
        tracker.barrier(elision.sync_orders(full, sk_arches))
        barriers.append({"between": between, "kind": "sync_all", "reason": f"early-start disabled; {why}"})
        return [{"kind": "sync_barrier", "reason": "early_start_disabled", "sync": full}]
    # Same-type hazards only, in a MIX SK: each needed type's all-core ffts barrier, guarded to
    # that type, orders (a, a) (mode 0 over all cores of type a) and costs 2 flag operations
    # per type, against 6 for SyncAll<false>.
    arches = [a for a in (CUBE, VEC) if (a, a) in required]
    tracker.barrier(frozenset((a, a) for a in arches))
    kind = "aic_aiv_ffts" if len(arches) == 2 else "aic_ffts" if arches == [CUBE] else "aiv_ffts"
    barriers.append({"between": between, "kind": kind, "reason": f"early-start disabled; {why}"})
    return [{"kind": "typed_sync_barrier", "arches": arches}]


# ---- two streams

def _sides(op: dict) -> list:
    return [_SIDE[f["arch"]] for f in op["funcs"]]


def _sync_graph(ctx: _Ctx) -> tuple:
    """Dependencies between (op, side) nodes from stream order and events, then pruned.

    A cross-core edge a->b (cub:vec or vec:cub) is dropped when another edge of the same
    direction c->d has c at or after a on the sender side and d at or before b on the
    receiver side: waiting for c before d already orders a before b (upstream
    `optimize_sync_pass`: crossed and repeated C<->V edges)."""
    ops = ctx.op_plans
    deps = []
    last_on_stream: dict = {}
    for op in ops:
        s = op["stream_id"]
        if s in last_on_stream:
            deps.append((last_on_stream[s], op["index"]))
        last_on_stream[s] = op["index"]
    # Every event with both ends in the SK orders its sender before its receiver, even when
    # the sender comes later in fusion order (then it also keeps its GM semaphore).
    for op in ops:
        for e in op["recv_events"]:
            for src in ops:
                if e in src["send_events"] and src["index"] != op["index"]:
                    deps.append((src["index"], op["index"]))
    edges = []
    for a, b in deps:
        for sa in _sides(ops[a]):
            for sb in _sides(ops[b]):
                e = (a, sa, b, sb)
                if e not in edges:
                    edges.append(e)
    order = {side: [op["index"] for op in ops if side in _sides(op)] for side in ("cub", "vec")}
    pos = {side: {i: k for k, i in enumerate(lst)} for side, lst in order.items()}
    kept = []
    for e in edges:
        a, sa, b, sb = e
        if sa != sb and any(o != e and o[1] == sa and o[3] == sb and pos[sa][o[0]] >= pos[sa][a]
                            and pos[sb][o[2]] <= pos[sb][b] for o in edges):
            continue
        kept.append(e)
    kept.sort(key=lambda e: (e[0], e[2], e[1], e[3]))
    return kept, order


def _info(ops, edges, node, outgoing: bool) -> list:
    i, side = node
    out = []
    for a, sa, b, sb in edges:
        if outgoing and (a, sa) == (i, side):
            out.append([f"{ops[b]['kernel_name']}_{b}", f"{sa}:{sb}"])
        if not outgoing and (b, sb) == (i, side):
            out.append([f"{ops[a]['kernel_name']}_{a}", f"{sa}:{sb}"])
    return out


def _send_part(ctx: _Ctx, p: dict, side: str, edges, barriers: list, fallback: bool) -> list:
    ops = ctx.op_plans
    info = _info(ops, edges, (p["index"], side), True)
    notify_here = side == _sides(p)[0]
    external = [n for n in p["notify"] if not n["inner"]] if notify_here else []
    steps = []
    if info or external:
        steps.append({"kind": "rule1", "side": side, "name": p["kernel_name"], "info": info})
        for a, sa, b, sb in edges:
            if (a, sa) == (p["index"], side):
                barriers.append({"between": [a, b], "kind": "aic_ffts" if side == "cub" else "aiv_ffts",
                                 "reason": f"Rule 1: {sa}:{sb} dependency"})
        for direction in (("cub", "vec"), ("vec", "cub")):
            if side == direction[0] and any(v == f"{direction[0]}:{direction[1]}" for _, v in info):
                d = "c2v" if direction[0] == "cub" else "v2c"
                steps.append({"kind": "rule31", "dir": d, "name": p["kernel_name"], "info": info})
                for a, sa, b, sb in edges:
                    if (a, sa) == (p["index"], side) and sb != sa:
                        barriers.append({"between": [a, b], "kind": f"{d}_ffts",
                                         "reason": "Rule 3.1/3.2: cross-core event flag"})
        steps += _notify_steps(ctx, p, CUBE if side == "cub" else VEC)
    elif fallback:
        steps.append({"kind": "pipe_all"})
    return steps


def _stream_function(ctx: _Ctx, side: str, seq: list, edges, barriers: list) -> dict:
    arch = CUBE if side == "cub" else VEC
    ops = ctx.op_plans
    steps = []
    for k, op in enumerate(seq):
        steps += _op_head(ctx, seq, k)
        if k:
            prev = seq[k - 1]
            part = _send_part(ctx, prev, side, edges, barriers, fallback=True)
            if part and part[0]["kind"] == "pipe_all":
                barriers.append({"between": [prev["index"], op["index"]], "kind": "pipe_all",
                                 "reason": "no dependency between the ops: pipe barrier only"})
            steps += part
            steps += _wait_steps(ctx, op, arch)
        recv = _info(ops, edges, (op["index"], side), False)
        other = "vec" if side == "cub" else "cub"
        if any(v == f"{other}:{side}" for _, v in recv):
            steps.append({"kind": "rule32", "dir": "c2v" if side == "vec" else "v2c", "name": op["kernel_name"],
                          "info": recv})
        steps += _call_steps(ctx, op)
        steps += _debug_steps(ctx, op, "two", arch)
    steps += _send_part(ctx, seq[-1], side, edges, barriers, fallback=False)
    return {"name": f"auto_gen_{ctx.ki.kernel_name}_kernel_{'aic' if side == 'cub' else 'aiv'}", "arch": arch,
            "dynamic_locals": ctx.split if any(op["task_type"] == "dynamic" for op in seq) else None,
            "steps": steps}


def _reset_steps(ctx: _Ctx) -> list:
    steps = []
    for op in ctx.op_plans:
        arch = VEC if KERNEL_TYPES[op["kernel_type"]].vector_only else CUBE
        for w in op["wait"]:
            if not w["inner"]:
                steps.append({"kind": "reset_wait", "arch": arch, "idx": idx_api(op["kernel_type"]),
                              "offset": w["offset"]})
    return steps


def _code(ctx: _Ctx, two_stream: bool, barriers: list, sync_edges: list) -> dict:
    ops = ctx.op_plans
    name = ctx.ki.kernel_name
    zero = None
    if ctx.opts.feed_sync_all:
        zero = {"kind": "zero_workspace", "arch": VEC if ctx.ktype == "KERNEL_TYPE_MIX_AIV_1_0" else CUBE,
                "size": ctx.params["workspace_size"]}
    prologue, body, epilogue, functions = [], [], [], []
    if two_stream:
        edges, order = _sync_graph(ctx)
        sync_edges += [{"from": a, "to": b, "kind": f"{sa}:{sb}"} for a, sa, b, sb in edges]
        for side in ("cub", "vec"):
            seq = [ops[i] for i in order[side]]
            if seq:
                functions.append(_stream_function(ctx, side, seq, edges, barriers))
        if ctx.opts.profiling:
            prologue.append({"kind": "profile", "index": 0, "type": "0", "start": True})
        if zero:
            prologue.append(zero)
        if ctx.opts.preload_code == "max":
            prologue.append({"kind": "preload_all", "count": 8})
        body = [{"kind": "dispatch", "arch": f["arch"], "function": f["name"]} for f in functions]
    else:
        if zero:
            prologue.append(zero)
        if any(op["task_type"] == "dynamic" for op in ops):
            prologue.append({"kind": "dyn_locals", "split": ctx.split})
        if ctx.opts.preload_code == "max":
            prologue.append({"kind": "preload_all", "count": 8})
        if ctx.opts.profiling:
            prologue.append({"kind": "profile", "index": 0, "type": "0", "start": True})
        body = _single_stream_body(ctx, barriers)
    epilogue += _reset_steps(ctx)
    if ctx.opts.profiling:
        epilogue.append({"kind": "profile", "index": 0, "type": "0", "start": False})

    units, seen, declared = [], set(), set()
    for op in ops:
        declare = []
        for f in op["funcs"]:
            declare += _arch_symbols(op, f["arch"], ctx.split)
        if op["kernel_name"] in seen:
            # Upstream declares a kernel once per name. One name can still stand for copies
            # with their own entry symbols (sk run compiles a kernel once per scope location,
            # <key>_start/_middle/_end): those are declared too, nothing else.
            fresh = [s for s in declare if s not in declared]
            if fresh and op["task_type"] != "dynamic":
                units.append({"declare": fresh, "dynamic": None})
                declared.update(fresh)
            continue
        seen.add(op["kernel_name"])
        dynamic = None
        if op["task_type"] == "dynamic":
            for key in op["dynamic_keys"]:
                for arch, sym in key["funcs"].items():
                    extra = [sym] + [f"{sym}_split{i}" for i in range(1, ctx.split)]
                    declare += [s for s in extra if s not in declare]
            dynamic = _dynamic_impl(ctx, op)
        declared.update(declare)
        units.append({"declare": declare, "dynamic": dynamic})

    ration = KERNEL_TYPES[ctx.ktype].ration
    sections = []
    for arch, suffix in ((CUBE, "aic"), (VEC, "aiv")):
        if ration[0 if arch == CUBE else 1]:
            sections.append({"symbol": f"{name}_mix_{suffix}", "ktype": "K_TYPE_MIX_AIV_MAIN"
                             if ctx.ktype == "KERNEL_TYPE_MIX_AIV_1_0" else "K_TYPE_MIX_AIC_MAIN",
                             "ration": list(ration), "guard_arch": arch if all(ration) else None})
    p = ctx.params
    entry = {
        "name": f"auto_gen_{name}_kernel", "align": ctx.opts.func_align,
        "workspace_index": p["workspace_index"], "feed_base": bool(ctx.opts.feed_sync_all),
        "dump_offset": p["dump_offset"] if p["dump"] else None,
        "profiling_index": p["profiling_index"], "task_id_index": p["task_id_index"],
        "ffts": p["ffts_slot"] is not None, "prologue": prologue, "body": body, "epilogue": epilogue,
    }
    return {
        "header": {"run_cfg_arch": (VEC if ctx.ktype == "KERNEL_TYPE_MIX_AIV_1_0" else CUBE)
                   if ctx.split <= 1 else None,
                   "profiling": bool(ctx.opts.profiling), "units": units},
        "functions": functions, "entry": entry, "meta_sections": sections,
    }


def _dynamic_impl(ctx: _Ctx, op: dict) -> dict:
    branches = []
    for key in op["dynamic_keys"]:
        assigns = []
        for arch, sym in key["funcs"].items():
            var = "aic_func_addr" if arch == CUBE else "aiv_func_addr"
            assigns.append({"vars": _pointer_names(var, ctx.split),
                            "symbols": [sym] + [f"{sym}_split{i}" for i in range(1, ctx.split)]})
        branches.append({"tiling_key": key["tiling_key"], "assigns": assigns,
                         "kernel_type_value": KERNEL_TYPES[key["kernel_type"]].value})
    return {"name": op["kernel_name"], "index": op["index"], "split": ctx.split, "branches": branches,
            "num_blocks": ctx.block}


def load_and_plan(kernel_infos_path: str, soc: str | None = None) -> tuple:
    """Convenience: (KernelInfos, Plan) from a kernel_infos file."""
    ki = subop_mod.load_kernel_infos(kernel_infos_path)
    return ki, build_plan(ki, get_platform(soc))
