"""The plan's per-op records, its event table and the link order of the objects."""

from __future__ import annotations

import math

from sk.engine.kernel_types import CUBE, VEC
from sk.engine.options import SkOptions
from sk.engine.plan.layout import OpSlots
from sk.engine.subop import SubOp, split_objects

ICACHE_LINE = 2048
PRELOAD_CAP = 16 * 1024
DYNAMIC_PRELOAD = {CUBE: 16, VEC: 8}   # AIC ICache 16 x 2 KB, AIV 8 x 2 KB


def preload_count(text_size: int) -> int:
    return math.ceil(min(text_size, PRELOAD_CAP) / ICACHE_LINE)


def dcci_calls(op: SubOp, opts: SkOptions) -> tuple:
    """(disabled, before, after): whether the op's dcci calls are off, and which it gets (upstream
    init_of_sub_operator_info): a static op's own sub-op JSON flags, which its SK-mode compile set
    from the options it inherited; a dynamic op's from the option lists by its op type."""
    if not op.dynamic:
        disabled = bool(op.dcci_disable)
        return disabled, op.dcci_before and not disabled, op.dcci_after and not disabled
    listed = (lambda names: op.op_type is not None and op.op_type in names)
    if listed(opts.dcci_disable_on_kernel):
        return True, False, False
    return False, listed(opts.dcci_before_kernel_start), listed(opts.dcci_after_kernel_end)


def op_record(op: SubOp, cores: dict, slots: OpSlots, feed: bool, split: int, opts: SkOptions) -> dict:
    """The plan's record of one op (see the `ops` entry of the schema in sk.engine.plan)."""
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
    _, dcci_before, dcci_after = dcci_calls(op, opts)
    return {
        "index": op.index, "kernel_name": op.kernel_name, "kernel_type": op.kernel_type, "task_type": op.task_type,
        "block_dim": op.block_dim, "cores": cores, "stream_id": op.stream_id, "bin_path": op.bin_path,
        "json_path": op.json_path, "param_offset": slots.offset, "params": slots.params,
        "dynamic_params": slots.dynamic, "notify": slots.notify, "wait": slots.wait, "funcs": funcs,
        "dynamic_keys": [{"tiling_key": k.tiling_key, "kernel_type": k.kernel_type, "funcs": dict(k.funcs)}
                         for k in op.dynamic_keys],
        "send_events": list(op.send_events), "recv_events": list(op.recv_events),
        "split_mode_json": op.split_mode, "early_start_set": op.early_start_set,
        "early_start_wait": op.early_start_wait,
        "dcci_before": dcci_before, "dcci_after": dcci_after,
        "dcci_flags_json": {"before": op.dcci_before, "after": op.dcci_after},
        "dcci_disable": op.dcci_disable, "sync_all": op.sync_all, "feed_sync_all": feed,
        "debug_option": op.debug_options, "debug_size": op.debug_buf_size, "op_type": op_type,
    }


def events(ops, inner) -> list:
    ids = sorted({e for op in ops for e in op.send_events + op.recv_events})
    return [{"id": e, "senders": [op.index for op in ops if e in op.send_events],
             "receivers": [op.index for op in ops if e in op.recv_events], "inner": e in inner} for e in ids]


def link_order(entries, op_plans) -> list:
    """Upstream's PerCubeHerVecWithSuper order: [cube entry, cube subs, vector entry, vector subs], then the
    dynamic ops' objects (gen_super_kernel_link_obj_sequence appends its dynamic bins last).

    A split copy made at link time (derived_from) has one line per symbol it renames, the same object on
    each: a dynamic op's copy renames every tiling-key function of the op (upstream's
    gen_symbol_rename_file), a copy shared by an op's two sides both sides' functions."""
    seq = []

    def add(op, f):
        seq.append({"kind": "sub", "arch": f["arch"], "op": op["index"], "object": f["object"],
                    "symbol": f["func_name"], "split": 0, "derived_from": None})
        for s in f["splits"]:
            symbols = [s["symbol"]]
            if s["derived_from"] and op["task_type"] == "dynamic":
                symbols += [f"{sym}_split{s['index']}" for k in op["dynamic_keys"] for sym in k["funcs"].values()]
            for symbol in dict.fromkeys(symbols):
                seq.append({"kind": "sub", "arch": f["arch"], "op": op["index"], "object": s["object"],
                            "symbol": symbol, "split": s["index"], "derived_from": s["derived_from"]})

    for arch in (CUBE, VEC):
        for e in entries:
            if e["arch"] == arch:
                seq.append({"kind": "sk_entry", "arch": arch, "op": None, "object": e["object"],
                            "symbol": e["symbol"], "split": None, "derived_from": None})
        for op in op_plans:
            if op["task_type"] != "dynamic":
                for f in op["funcs"]:
                    if f["arch"] == arch:
                        add(op, f)
    for op in op_plans:
        if op["task_type"] == "dynamic":
            for f in op["funcs"]:
                add(op, f)
    seen, out = set(), []
    for item in seq:
        key = (item["object"], item["symbol"]) if item["derived_from"] else item["object"]
        if key not in seen:
            seen.add(key)
            out.append(item)
    return out

