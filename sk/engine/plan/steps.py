"""The step tree `Plan.code` that the templates render (sk/render/templates/steps.j2 has the kinds).

Each op contributes its head (comment, a dynamic op's tiling switch, preloads),
the barrier steps decided in sk.engine.plan.barriers, its call and its debug
steps; the entry function wraps the ops (single stream) or dispatches to one
function per core-type queue (two streams, facts §5.3).
"""

from __future__ import annotations

from sk.engine.kernel_types import CUBE, TABLE as KERNEL_TYPES, VEC
from sk.engine.plan import barriers
from sk.engine.plan.context import Ctx, idx_api, sync_kind
from sk.engine.plan.ops import DYNAMIC_PRELOAD

PRELOAD_ALL_LINES = 8   # preload-code=max: AscendC::PreLoad(8)


def _arch_symbols(op: dict, arch: str, split: int) -> list:
    f = next(f for f in op["funcs"] if f["arch"] == arch)
    return [f["func_name"]] + [s["symbol"] for s in f["splits"]]


def _preload_steps(op: dict, split: int) -> list:
    steps = []
    for f in op["funcs"]:
        steps.append({"kind": "preload", "arch": f["arch"], "idx": idx_api(op["kernel_type"]),
                      "block": op["block_dim"], "symbols": _arch_symbols(op, f["arch"], split),
                      "count": f["preload_count"], "trailing_blank": False, "dcci_before": False,
                      "dcci_after": False})
    return steps


def _dynamic_self_preload(ctx: Ctx, op: dict) -> list:
    # Upstream (tpl_of_gen_switch_case_call) preloads a dynamic op through its function pointers
    # when the SuperKernel is a vector one, whatever preload-code says, with the op's call block
    # (gen_call_func, its dcci options included) around the preloads.
    if ctx.ktype != "KERNEL_TYPE_MIX_AIV_1_0":
        return []
    return [{"kind": "preload", "arch": VEC, "idx": "ascendc", "block": op["cores"]["aiv"],
             "symbols": _pointer_names("aiv_func_addr", ctx.split), "count": DYNAMIC_PRELOAD[VEC],
             "trailing_blank": True, "dcci_before": op["dcci_before"], "dcci_after": op["dcci_after"]}]


def _pointer_names(base: str, split: int) -> list:
    return [base] + [f"{base}_split{i}" for i in range(1, split)]


def _op_preloads(ctx: Ctx, seq: list, k: int) -> list:
    if ctx.opts.preload_code != "per-func":
        return []
    op = seq[k]
    steps = []
    if k == 0 and op["task_type"] != "dynamic":
        steps += _preload_steps(op, ctx.split)
    if k + 1 < len(seq) and seq[k + 1]["task_type"] != "dynamic":
        steps += _preload_steps(seq[k + 1], ctx.split)
    return steps


def _switch_sync(ctx: Ctx, op: dict, side: str | None) -> str | None:
    """The sync before a dynamic op's call in two real streams: every core that passed the tiling switch
    waits for the others before block 0 resets the lock (gen_kernel_call_block). Upstream's SyncAll<false>
    waits for all cube and vector cores; where the SuperKernel has both and the op only one of them, the
    op sits in that queue's function alone and the other core type never arrives (it would hang), so its
    own queue's cores sync among themselves (sk/conformance/DIFFERENCES.md)."""
    if not ctx.two_stream:
        return None
    if all(KERNEL_TYPES[ctx.ktype].ration) and not all(KERNEL_TYPES[op["kernel_type"]].ration):
        return "aic" if side == "cub" else "aiv"
    return "mix"


def _call_steps(ctx: Ctx, op: dict, side: str | None = None) -> list:
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
        # Always called (never fed: barriers.feed_needed). Two real streams: every core waits until
        # all have passed the switch (gen_kernel_call_block).
        steps.append({"kind": "dyn_call", "name": op["kernel_name"], "offset": op["param_offset"],
                      "split": ctx.split, "wait_lock": op["dynamic_params"]["wait_lock"],
                      "switch_sync": _switch_sync(ctx, op, side), "dcci_before": op["dcci_before"],
                      "dcci_after": op["dcci_after"],
                      "reset_arch": VEC if KERNEL_TYPES[op["kernel_type"]].vector_only else CUBE})
    else:
        blocks = []
        for f in op["funcs"]:
            blocks.append({"arch": f["arch"], "idx": idx_api(op["kernel_type"]), "block": op["block_dim"],
                           "symbols": _arch_symbols(op, f["arch"], ctx.split), "offset": op["param_offset"],
                           "dcci_before": op["dcci_before"], "dcci_after": op["dcci_after"]})
        steps.append({"kind": "call", "blocks": blocks, "feed": ctx.feed_needed[i]})
    return steps


def _debug_steps(ctx: Ctx, op: dict, style: str, arch: str | None) -> list:
    steps = []
    if ctx.opts.debug_dcci_all:
        steps.append({"kind": "debug_dcci"})
    if ctx.opts.debug_sync_all:
        if style == "single":
            steps.append({"kind": "debug_sync", "style": style, "sync": sync_kind(ctx.ktype)})
        else:
            steps.append({"kind": "debug_sync", "style": style, "sync": "aic" if arch == CUBE else "aiv"})
    if ctx.opts.profiling:
        steps.append({"kind": "profile", "index": op["index"] + 1, "type": "0x8", "start": False})
    return steps



def _dyn_switch(ctx: Ctx, op: dict) -> dict:
    d = op["dynamic_params"]
    return {"kind": "dyn_switch", "name": op["kernel_name"], "args": [d["tiling_key"], d["block_num"], d["wait_lock"]],
            "split": ctx.split}


def _op_head(ctx: Ctx, seq: list, k: int) -> list:
    """What opens op seq[k]: its comment, the tiling-key switch of a dynamic op, the preloads."""
    op = seq[k]
    steps = [{"kind": "op_begin", "name": op["kernel_name"]}]
    if op["task_type"] == "dynamic":
        steps.append(_dyn_switch(ctx, op))
        steps += _dynamic_self_preload(ctx, op)
        if k == 0 and not ctx.two_stream:
            # The first op of one stream has no barrier before it: all cores wait for the switch
            # (gen_switch_case_call_block_of_dynamic_op, "reason3 ... when no pre op").
            steps.append({"kind": "dyn_first_sync"})
    return steps + _op_preloads(ctx, seq, k)


def _single_stream_body(ctx: Ctx, records: list) -> list:
    ops = ctx.op_plans
    policy = barriers.SingleStream(ctx, records)
    steps = []
    for k, op in enumerate(ops):
        steps += _op_head(ctx, ops, k)
        if k:
            steps += policy.between(ops[k - 1], op)
        policy.entered(op)
        steps += _call_steps(ctx, op)
        steps += _debug_steps(ctx, op, "single", None)
    return steps


def _stream_function(ctx: Ctx, side: str, seq: list, info, records: list) -> dict:
    arch = CUBE if side == "cub" else VEC
    # preload-code=max: each queue's function preloads its own code, after its locals (facts §14.2).
    steps = [{"kind": "preload_all", "count": PRELOAD_ALL_LINES}] if ctx.opts.preload_code == "max" else []
    for k, op in enumerate(seq):
        steps += _op_head(ctx, seq, k)
        if k:
            steps += barriers.stream_between(ctx, seq[k - 1], op, side, info, records)
        else:
            steps += barriers.stream_receive(ctx, op, side, info)
        steps += _call_steps(ctx, op, side)
        steps += _debug_steps(ctx, op, "two", arch)
    steps += barriers.stream_end(ctx, seq[-1], side, info, records)
    return {"name": f"auto_gen_{ctx.ki.kernel_name}_kernel_{'aic' if side == 'cub' else 'aiv'}", "arch": arch,
            # Every queue function holds the locals when any op of the SuperKernel is dynamic.
            "dynamic_locals": ctx.split if any(op["task_type"] == "dynamic" for op in ctx.op_plans) else None,
            "steps": steps}


def _reset_steps(ctx: Ctx) -> list:
    steps = []
    for op in ctx.op_plans:
        arch = barriers.event_side(op)  # where the op waited (upstream gen_clear_wait_sync_addr_code)
        for w in op["wait"]:
            if not w["inner"]:
                steps.append({"kind": "reset_wait", "arch": arch, "idx": "raw" if arch == CUBE else "ascendc",
                              "offset": w["offset"]})
    return steps


def code(ctx: Ctx, two_stream: bool, records: list, sync_edges: list) -> dict:
    ops = ctx.op_plans
    name = ctx.ki.kernel_name
    zero = None
    if ctx.opts.feed_sync_all:
        zero = _zero_workspace(ctx)
    prologue, body, epilogue, functions = [], [], [], []
    if two_stream:
        info = barriers.sync_info(ctx)
        sync_edges += info.edges()
        for side in ("cub", "vec"):
            seq = [ops[i] for i in info.queue[side]]
            if seq:
                functions.append(_stream_function(ctx, side, seq, info, records))
        if ctx.opts.profiling:
            prologue.append({"kind": "profile", "index": 0, "type": "0", "start": True})
        if zero:
            prologue.append(zero)
        body = [{"kind": "dispatch", "arch": f["arch"], "function": f["name"]} for f in functions]
    else:
        if zero:
            prologue.append(zero)
        if any(op["task_type"] == "dynamic" for op in ops):
            prologue.append({"kind": "dyn_locals", "split": ctx.split})
        if ctx.opts.preload_code == "max":
            prologue.append({"kind": "preload_all", "count": PRELOAD_ALL_LINES})
        if ctx.opts.profiling:
            prologue.append({"kind": "profile", "index": 0, "type": "0", "start": True})
        body = _single_stream_body(ctx, records)
    epilogue += _reset_steps(ctx)
    if ctx.opts.profiling:
        epilogue.append({"kind": "profile", "index": 0, "type": "0", "start": False})

    units, seen, declared = [], set(), set()
    for op in ops:
        declare = []
        if op["task_type"] == "dynamic":
            # Upstream declares each tiling key's functions, in the table's order, vector side first,
            # and nothing else (gen_switch_case_block_of_dynamic_op).
            for key in op["dynamic_keys"]:
                for sym in _key_symbols(key):
                    declare += [sym] + [f"{sym}_split{i}" for i in range(1, ctx.split)]
        else:
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
        # Upstream gen_super_dump_code: a dump shared by both sides of a MIX 1:1/1:2 SK is a mix dump.
        "dump_mix": all(KERNEL_TYPES[ctx.ktype].ration),
        "profiling_index": p["profiling_index"], "task_id_index": p["task_id_index"],
        "ffts": p["ffts_slot"] is not None, "prologue": prologue, "body": body, "epilogue": epilogue,
    }
    return {
        "header": {"run_cfg_arch": (VEC if ctx.ktype == "KERNEL_TYPE_MIX_AIV_1_0" else CUBE)
                   if ctx.split <= 1 else None,
                   "profiling": bool(ctx.opts.profiling), "units": units},
        "functions": functions, "entry": entry, "meta_sections": sections,
    }


def _zero_workspace(ctx: Ctx) -> dict:
    """feed-sync-all's config words zeroed at the start (upstream gen_clear_syncall_worskspace): by the cube
    side in a cube-only SK, else by the vector side; in a MIX 1:1/1:2 SK the vector side then hands over to
    the cube side with an AIV->AIC flag, and in 1:2 each vector core zeroes half a block's share."""
    ration = KERNEL_TYPES[ctx.ktype].ration
    size = ctx.params["workspace_size"]
    if not ration[1]:
        return {"kind": "zero_workspace", "arch": CUBE, "size": size}
    plat = ctx.platform
    return {"kind": "zero_workspace", "arch": VEC, "size": size // ration[1] if ration[0] else size,
            "hand_over": bool(ration[0]), "align_v2": bool(ration[0]) and plat.ub_copy_align_v2,
            "pipe_s_wait": bool(ration[0]) and plat.flag_wait_takes_pipe}


def _dynamic_impl(ctx: Ctx, op: dict) -> dict:
    branches = []
    for key in sorted(op["dynamic_keys"], key=lambda k: k["tiling_key"]):
        assigns = []
        for arch, sym in sorted(key["funcs"].items(), key=lambda a: a[0] != VEC):
            var = "aic_func_addr" if arch == CUBE else "aiv_func_addr"
            assigns.append({"vars": _pointer_names(var, ctx.split),
                            "symbols": [sym] + [f"{sym}_split{i}" for i in range(1, ctx.split)]})
        branches.append({"tiling_key": key["tiling_key"], "assigns": assigns,
                         "kernel_type_value": KERNEL_TYPES[key["kernel_type"]].value})
    return {"name": op["kernel_name"], "index": op["index"], "split": ctx.split, "branches": branches,
            "search": _key_search(branches), "num_blocks": ctx.block}


def _key_symbols(key: dict) -> list:
    """A tiling key's functions, vector side first (upstream's order for a MIX key)."""
    return [sym for _, sym in sorted(key["funcs"].items(), key=lambda a: a[0] != VEC)]


def _key_search(branches: list) -> dict:
    """Upstream's search over the sorted tiling keys (gen_binary_search_block): one key is an `==` test,
    two an `==` test with the other as its `else` (the fallback: any other key runs it), more split at
    the middle key with a `<` test. Leaves name branches by index."""
    def node(lo: int, hi: int) -> dict:
        if hi - lo == 1:
            return {"eq": branches[lo]["tiling_key"], "then": lo, "else": None}
        if hi - lo == 2:
            return {"eq": branches[lo]["tiling_key"], "then": lo, "else": lo + 1}
        mid = lo + (hi - lo) // 2
        return {"lt": branches[mid]["tiling_key"], "left": node(lo, mid), "right": node(mid, hi)}
    return node(0, len(branches))
