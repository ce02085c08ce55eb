"""The param_base layout (facts §3.2): which slot of the SuperKernel's argument array holds what.

Slot 0 is the FFTS base address where the SoC has one. Then, per op in fusion
order: its sub_operator_params, for a dynamic op its tiling key, block num and
wait lock, a notify lock per sent event and a wait lock per received event.
After all ops: the SK workspace (feed-sync-all or dump), the profiling buffer
and the task id. Computed once; everything else reads the offsets from here.
"""

from __future__ import annotations

import dataclasses

from sk.engine.platforms import Platform
from sk.engine.subop import dumps

FEED_SYNC_ALL_BASE = 512
FEED_CONFIG_BYTES = 64


@dataclasses.dataclass
class OpSlots:
    offset: int          # first slot of the op (its first param)
    params: list         # [{name: "<param>_<index>", offset}]
    dynamic: dict | None  # {tiling_key, block_num, wait_lock} for a dynamic op
    notify: list         # [{event, offset, inner}] per sent event
    wait: list           # [{event, offset, inner}] per received event


@dataclasses.dataclass
class Layout:
    ops: list            # OpSlots per op
    params: dict         # the plan's `params` record


def dump_needed(ops) -> bool:
    """Whether any op dumps: the SK then needs a workspace."""
    return any(dumps(op.debug_options) for op in ops)


# Upstream's dump cores on a c220 part (ascendc_common_utility.get_dump_core_num; 108 on c310).
DUMP_CORE_NUM = 75


def sk_debug(pairs) -> tuple:
    """(debugOptions, debugBufSize) of the SuperKernel from each op's (debugOptions, debugBufSize): the
    dumping ops' options, each part once in order, and their largest buffer; ("", 0) when none dumps
    (upstream SuperOperatorInfos)."""
    parts, size = [], 0
    for options, buf in pairs:
        if dumps(options):
            parts += [p for p in options.split(",") if p not in parts]
            size = max(size, buf)
    return ",".join(parts), size


def feed_workspace_size(n_ops: int, ktype: str, block: int) -> int:
    """feed-sync-all config bytes (facts §5.4): 512 B per block, doubled until it holds every op's config."""
    blocks = block * (2 if ktype == "KERNEL_TYPE_MIX_AIC_1_2" else 1)
    base = FEED_SYNC_ALL_BASE
    while blocks * base <= n_ops * 2 * FEED_CONFIG_BYTES:
        base *= 2
    return blocks * base


def param_layout(ops, platform: Platform, inner: set, *, workspace: bool, workspace_size: int, dump: bool,
                 profiling: bool) -> Layout:
    slot = 1 if platform.has_ffts else 0
    slots = []
    for op in ops:
        offset = slot
        params = [{"name": f"{p}_{op.index}", "offset": offset + k} for k, p in enumerate(op.params)]
        slot += len(op.params)
        dynamic = None
        if op.dynamic:
            dynamic = {"tiling_key": slot, "block_num": slot + 1, "wait_lock": slot + 2}
            slot += 3
        notify = [{"event": e, "offset": slot + k, "inner": e in inner} for k, e in enumerate(op.send_events)]
        slot += len(op.send_events)
        wait = [{"event": e, "offset": slot + k, "inner": e in inner} for k, e in enumerate(op.recv_events)]
        slot += len(op.recv_events)
        slots.append(OpSlots(offset=offset, params=params, dynamic=dynamic, notify=notify, wait=wait))
    nxt = slot
    workspace_index = None
    if workspace:
        workspace_index, nxt = nxt, nxt + 1
    profiling_index = task_id_index = None
    if profiling:
        profiling_index, task_id_index = nxt, nxt + 1
    params = {"ffts_slot": 0 if platform.has_ffts else None, "count": slot,
              "workspace_index": workspace_index, "workspace_size": workspace_size, "dump": dump,
              "dump_offset": workspace_size if dump else None,
              "profiling_index": profiling_index, "task_id_index": task_id_index}
    return Layout(ops=slots, params=params)
