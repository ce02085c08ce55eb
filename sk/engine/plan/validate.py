"""Input checks before any decision: options against sub-op JSON flags, events, entry symbols.

Everything here raises SkError (or appends a warning). The one decision taken
on the way is the stream shape: upstream's check of the stream topology is what
decides it (sk.engine.plan.streams)."""

from __future__ import annotations

import os

from sk.base.errors import SkError
from sk.engine.options import SkOptions
from sk.engine.plan import streams
from sk.engine.plan.ops import dcci_calls
from sk.engine.platforms import Platform
from sk.engine.subop import KernelInfos

SUPPORTED_SOC_FAMILIES = ("Ascend910B", "Ascend910_93")


def check_soc(platform: Platform) -> None:
    if platform.short_soc not in SUPPORTED_SOC_FAMILIES:
        raise SkError("SuperKernel is not supported on this SoC", where="--soc", value=platform.soc,
                      allowed="Atlas A2/A3 parts (Ascend910B*, Ascend910_93*)")


def validate(ki: KernelInfos, opts: SkOptions, platform: Platform, warnings: list) -> bool:
    """Every input check. The stream walk among them decides the shape: True for two real streams."""
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
    for op in ops:
        if op.dynamic and (op.early_start_set or op.early_start_wait):
            # Its tiling key, and so whether it calls SetNextTaskStart/WaitPreTaskEnd, is only known at
            # run time: upstream refuses it (gen_dynamic_op_call_func).
            raise SkError("a dynamic op does not support early start",
                          where=f"at {op.label} {op.json_path}: sub_operator_early_start_set_flag/_wait_flag",
                          value={"set": op.early_start_set, "wait": op.early_start_wait},
                          allowed="false for both: compile the tiling-sink kernel without "
                                  "SetNextTaskStart/WaitPreTaskEnd calls")
    streams.check_own_pairs(ops)
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
    _check_entry_symbols(ops)
    two_stream = streams.two_real_streams(ops, opts)
    streams.check_stream_pairs(ops)
    _check_event_order(ops, senders, two_stream)
    run = 0
    for op in ops:
        run = run + 1 if dcci_calls(op, opts)[0] else 0
        if run == 2:
            warnings.append(f"{op.label} and the op before it both have their dcci disabled "
                            "(dcci-disable-on-kernel): consecutive sub-ops without dcci risk stale data-cache lines")
    for op in ops:
        op.check_split_copies(opts.split_mode)
    return two_stream


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

