"""Barrier policy: what orders each op after the one before it, and the decisions it rests on.

Single stream (facts §5.1, §5.2): early start between static ops, a full sync
otherwise; with sync-elision=1 the hazards decide (sk.engine.elision). Two
streams (facts §5.3): dependencies from stream order and events, pruned, then
the Rule 1 / 3.1 / 3.2 flags. Also here: the effective early-start mode, whether
sync-elision applies, which ops need feed-sync-all (facts §5.4), and the
notify/wait of events that leave the SuperKernel (facts §5.5).

Every inter-op decision is recorded in `records` (the plan's `barriers`) next
to the steps that carry it out.
"""

from __future__ import annotations

from sk.base.errors import SkError
from sk.engine import elision
from sk.engine.kernel_types import CUBE, VEC
from sk.engine.options import SkOptions
from sk.engine.plan.context import Ctx, arches, dev_class, idx_api, sk_arches, sync_kind
from sk.engine.plan.shape import idle_sides, sk_cores
from sk.engine.plan.syncinfo import C2V, V2C, SyncInfo



def early_start_mode(opts: SkOptions, two_stream: bool) -> int:
    """The effective early-start mode: the option, except that two streams disable it (facts §5.3)."""
    return 0 if two_stream else opts.early_start


def elision_mode(ops, opts: SkOptions, two_stream: bool, warnings: list) -> bool:
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

def feed_needed(ops, cores, ktype: str, block: int, opts: SkOptions) -> list:
    """Per op: does it get the feed-sync-all protocol (facts §5.4)?"""
    launched = sk_cores(ktype, block)
    needed = []
    for op, c in zip(ops, cores):
        # A dynamic op is called on every launched block of its sides (call_func_of_<op> runs it
        # wherever the block index is below the SuperKernel's block dim; the kernel reads its own
        # count from the tiling), so no launched core is left out of its SyncAll and it is never fed.
        # Upstream's generator, where it judges such an op fed, emits the feed configuration and no
        # call at all; sk calls it (sk/conformance/DIFFERENCES.md).
        fewer = not op.dynamic and bool(idle_sides(c, launched))
        needed.append(bool(opts.feed_sync_all and op.sync_all and fewer))
    return needed


# --------------------------------------------------------------------------- events leaving the SK

def event_side(op: dict) -> str:
    """The core side whose block 0 notifies, waits for and resets an op's external events: cube for the
    cube-only kinds, vector for every other (upstream gen_notify/wait_from_outside)."""
    return CUBE if dev_class(op["kernel_type"]) == 0 else VEC


def _event_step(ctx: Ctx, kind: str, op: dict, arch: str, events: list) -> list:
    """One `if ASCEND_IS_X { ... }` block with an op's external events of `kind` (notify or wait)."""
    external = [{"event": e["event"], "offset": e["offset"]} for e in events if not e["inner"]]
    if not external:
        return []
    return [{"kind": kind, "arch": arch, "name": op["kernel_name"], "events": external,
             "profiling": bool(ctx.opts.profiling)}]


def notify_steps(ctx: Ctx, op: dict, arch: str) -> list:
    return _event_step(ctx, "notify", op, arch, op["notify"])


def wait_steps(ctx: Ctx, op: dict, arch: str) -> list:
    return _event_step(ctx, "wait", op, arch, op["wait"])


def wait_extra_sync(p: dict, c: dict) -> str | None:
    """The sync after c's wait block when p sends nothing (upstream gen_wait_block_extra_sync): block 0
    of c's side waited, and the barrier that follows holds c's other cores only between these kinds."""
    pair = (dev_class(p["kernel_type"]), dev_class(c["kernel_type"]))
    if pair in ((0, 1), (0, 2)):
        return "syncall_aiv"
    if pair == (1, 0):
        return "aic"
    return None


# --------------------------------------------------------------------------- single stream

class SingleStream:
    """The barriers of the single-stream shape, pair by pair in op order."""

    def __init__(self, ctx: Ctx, records: list):
        self.ctx = ctx
        self.records = records
        self.tracker = elision.Tracker() if ctx.elide else None

    def between(self, p: dict, c: dict) -> list:
        """The steps between op p and the next op c: the barrier and the events, in upstream's order
        (gen_sync_and_event_code, whose branches test the whole send and receive lists, inner events too)."""
        ctx = self.ctx
        if self.tracker is None:
            barrier = single_barrier(ctx, p, c, self.records)
        else:
            barrier = elision_barrier(ctx, self.tracker, p, c, self.records)
        notify = notify_steps(ctx, p, event_side(p))
        wait = wait_steps(ctx, c, event_side(c))
        if p["send_events"] and c["recv_events"]:
            steps = barrier + notify
            if wait:
                steps += wait + [{"kind": "reason3", "style": "single", "sync": sync_kind(ctx.ktype)}]
            return steps
        steps = []
        if c["recv_events"]:
            extra = wait_extra_sync(p, c)
            steps += wait + ([{"kind": "wait_extra_sync", "sync": extra}] if extra else [])
        return steps + barrier + notify

    def entered(self, op: dict) -> None:
        """Op `op` is now past its barrier: its accesses are pending for the hazard tracker."""
        if self.tracker is not None:
            self.tracker.add(op["index"], arches(op), *resources(self.ctx, op))


def single_barrier(ctx: Ctx, p: dict, c: dict, records: list) -> list:
    between = [p["index"], c["index"]]
    if not ctx.early_start:
        records.append({"between": between, "kind": "sync_all", "reason": "early-start disabled"})
        return [{"kind": "sync_barrier", "reason": "early_start_disabled", "sync": sync_kind(ctx.ktype)}]
    dp, dc = dev_class(p["kernel_type"]), dev_class(c["kernel_type"])
    records.append({"between": between, "kind": "early_start",
                   "reason": f"SetNextTaskStart/WaitPreTaskEnd, config {(dp << 2) | dc}"})
    return [_es_step(ctx, p, c, (dp << 2) | dc)]


def _es_sides(op: dict) -> tuple:
    """The order of an op's own early-start blocks: upstream makes the vector side's first for the vector
    kinds and dynamic ops, the cube side's first otherwise (set_early_start_complement_blocks)."""
    return (VEC, CUBE) if op["task_type"] == "dynamic" or dev_class(op["kernel_type"]) == 1 else (CUBE, VEC)


def _es_step(ctx: Ctx, p: dict, c: dict, config: int) -> dict:
    """The early-start barrier p -> c with `config`; upstream's is (dev(p) << 2) | dev(c).

    The producer types of the config set the flag: all their cores, or only the
    idle ones of p when p sets it itself (early-start=1 and the JSON flag).
    Every core waits; the consumer's own wait covers its active cores. p's set
    blocks come in p's order, c's wait blocks in c's."""
    # Upstream guards by the sub-op JSON flags in both modes; in mode 2 (V2DisableSubKernel) a
    # sub-kernel compiled with the options it inherits has none (no early-start macros).
    own_flags = ctx.early_start != 0
    sets, waits = [], []
    dp = config >> 2
    p_arches, c_arches = arches(p), arches(c)
    for arch in _es_sides(p):
        if arch in elision.DEV_ARCHES[dp]:
            cond = (">=", idx_api(p["kernel_type"]) if arch == VEC else "raw", p["block_dim"]) \
                if own_flags and p["early_start_set"] and arch in p_arches else None
            sets.append({"arch": arch, "cond": cond, "action": "set"})
        else:
            sets.append({"arch": arch, "cond": None, "action": "aic_only" if arch == VEC else "aiv_only"})
    for arch in _es_sides(c):
        cond = (">=", idx_api(c["kernel_type"]) if arch == VEC else "raw", c["block_dim"]) \
            if own_flags and c["early_start_wait"] and arch in c_arches else None
        waits.append({"arch": arch, "cond": cond})
    return {"kind": "es_barrier", "set": sets, "config": config, "wait": waits}



def resources(ctx: Ctx, op: dict) -> tuple:
    """(reads, writes) of an op for the hazard tracker: its declared tensors, and the
    events it exchanges with other ops of this SK (sender writes, receiver reads)."""
    t = ctx.ki.ops[op["index"]].tensors
    reads = {("tensor", n) for n in t.reads} | {("event", w["event"]) for w in op["wait"] if w["inner"]}
    writes = {("tensor", n) for n in t.writes} | {("event", n["event"]) for n in op["notify"] if n["inner"]}
    return reads, writes


def elision_barrier(ctx: Ctx, tracker: elision.Tracker, p: dict, c: dict, records: list) -> list:
    """sync-elision=1: no barrier, or the cheapest one that orders every hazard (sk.engine.elision).

    Safety, case by case:
      * dynamic p or c: upstream's barrier, unchanged. Its block count is only
        known at run time and its call path has its own SyncAll protocol; the
        tracker learns the orders that barrier gives.
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
        steps = single_barrier(ctx, p, c, records)
        step = steps[0]
        tracker.barrier(elision.es_orders(step["config"]) if step["kind"] == "es_barrier"
                        else elision.sync_orders(step["sync"], sk_arches(ctx)))
        return steps
    hazards = tracker.hazards(c["index"], arches(c), *resources(ctx, c))
    required = frozenset(h.order for h in hazards)
    own = ctx.early_start != 0
    keep = []
    if own and p["early_start_set"]:
        keep.append(f"op {p['index']} sets the early-start flag itself")
    if own and c["early_start_wait"]:
        keep.append(f"op {c['index']} waits for the early-start flag itself")
    external = any(not n["inner"] for n in p["notify"]) or any(not w["inner"] for w in c["wait"])
    if external:
        keep.append("an external event is notified or waited for here")
    if not hazards and not keep:
        records.append({"between": between, "kind": "elided",
                       "reason": "sync-elision: no RAW/WAR/WAW hazard with any op not yet ordered before "
                                 f"op {c['index']}"})
        return [{"kind": "elided_barrier"}]
    shown = [h.describe() for h in hazards[:3]] + ([f"{len(hazards) - 3} more hazards"] if len(hazards) > 3 else [])
    why = "sync-elision: " + "; ".join(keep + shown)
    sk_types = sk_arches(ctx)
    dp, dc = dev_class(p["kernel_type"]), dev_class(c["kernel_type"])
    upstream = (dp << 2) | dc
    if ctx.early_start:
        # The early-start pair is the barrier; pick its config. An external event keeps at
        # least upstream's orders; a self-setting p must be a producer; with no hazard
        # (kept only for the flags) upstream's config is as good as any.
        if required or external:
            need = required | (elision.es_orders(upstream) if external else frozenset())
            must_from = arches(p) if own and p["early_start_set"] else ()
            config = elision.cheapest_es_config(need, sk_types, must_from, preferred=upstream)
        else:
            config = upstream
        tracker.barrier(elision.es_orders(config))
        records.append({"between": between, "kind": "early_start",
                       "reason": f"SetNextTaskStart/WaitPreTaskEnd, config {config}; {why}"})
        return [_es_step(ctx, p, c, config)]
    full = sync_kind(ctx.ktype)
    same_type = required <= {(CUBE, CUBE), (VEC, VEC)}
    if external or len(sk_types) == 1 or not same_type:
        # Cross-type orders need SyncAll<false>; a one-type SK's full sync already is that
        # type's ffts barrier, the cheapest there is.
        tracker.barrier(elision.sync_orders(full, sk_types))
        records.append({"between": between, "kind": "sync_all", "reason": f"early-start disabled; {why}"})
        return [{"kind": "sync_barrier", "reason": "early_start_disabled", "sync": full}]
    # Same-type hazards only, in a MIX SK: each needed type's all-core ffts barrier, guarded to
    # that type, orders (a, a) (mode 0 over all cores of type a) and costs 2 flag operations
    # per type, against 6 for SyncAll<false>.
    typed = [a for a in (CUBE, VEC) if (a, a) in required]
    tracker.barrier(frozenset((a, a) for a in typed))
    kind = "aic_aiv_ffts" if len(typed) == 2 else "aic_ffts" if typed == [CUBE] else "aiv_ffts"
    records.append({"between": between, "kind": kind, "reason": f"early-start disabled; {why}"})
    return [{"kind": "typed_sync_barrier", "arches": typed}]



# --------------------------------------------------------------------------- two streams

def sync_info(ctx: Ctx) -> SyncInfo:
    """The two-stream sync pairs of every op, as upstream derives and prunes them (sk.engine.plan.syncinfo)."""
    ops = ctx.op_plans
    return SyncInfo(ops, [any(not n["inner"] for n in op["notify"]) for op in ops])


def _notify_here(ctx: Ctx, info: SyncInfo, p: dict, side: str) -> list:
    """p's external notifies when this queue is the one that notifies them (upstream notify_block[arch])."""
    if not p["send_events"] or info.notify_queue[p["index"]] != side:
        return []
    return notify_steps(ctx, p, CUBE if side == "cub" else VEC)


def stream_send(ctx: Ctx, p: dict, side: str, info: SyncInfo, records: list) -> list:
    """After op p on the `side` queue (upstream gen_2_real_stream_send_code): nothing after the SK's last op;
    Rule 1 and a Rule 3.1 set per cross part when p's send names need them or p ends its stream and notifies
    outside; a pipe barrier when p sends to nobody and another op follows in the queue."""
    ops = ctx.op_plans
    i = p["index"]
    if i == ops[-1]["index"]:
        return []
    cross = C2V if side == "cub" else V2C
    same = {"cub:cub", V2C} if side == "cub" else {"vec:vec", C2V}
    need = i in info.last_of_stream and any(not n["inner"] for n in p["notify"])
    sets = []
    for j, value in info.send[i].items():
        parts = value.split(";")
        if same & set(parts):
            need = True
        if cross in parts:
            need = True
            sets.append(j)
    if need:
        shown = info.pairs(i, True)
        steps = [{"kind": "rule1", "side": side, "name": p["kernel_name"], "info": shown}]
        for j in info.send[i]:
            records.append({"between": [i, j], "kind": "aic_ffts" if side == "cub" else "aiv_ffts",
                            "reason": f"Rule 1: {info.send[i][j]} dependency"})
        d = "c2v" if side == "cub" else "v2c"
        for j in sets:
            steps.append({"kind": "rule31", "dir": d, "name": p["kernel_name"], "info": shown})
            records.append({"between": [i, j], "kind": f"{d}_ffts", "reason": "Rule 3.1/3.2: cross-core flag"})
        return steps
    if not info.send[i] and i != info.queue[side][-1]:
        nxt = info.queue[side][info.queue[side].index(i) + 1]
        records.append({"between": [i, nxt], "kind": "pipe_all", "reason": "no dependency between the ops: "
                                                                           "pipe barrier only"})
        return [{"kind": "pipe_all"}]
    return []


def stream_receive(ctx: Ctx, op: dict, side: str, info: SyncInfo) -> list:
    """Before op's call on the `side` queue: a Rule 3.2 wait per source whose name holds a cross part
    arriving on this side (upstream gen_2_real_stream_recv_code)."""
    cross = V2C if side == "cub" else C2V
    shown = info.pairs(op["index"], False)
    return [{"kind": "rule32", "dir": "v2c" if side == "cub" else "c2v", "name": op["kernel_name"], "info": shown}
            for value in info.recv[op["index"]].values() if cross in value.split(";")]


def stream_between(ctx: Ctx, p: dict, c: dict, side: str, info: SyncInfo, records: list) -> list:
    """Between consecutive ops p and c of the `side` queue, in upstream's order
    (gen_sync_and_event_code_for_two_stream): p's flags, c's Rule 3.2 waits, p's notifies, then, when c
    receives events, c's external waits and a sync by c's kernel type."""
    steps = stream_send(ctx, p, side, info, records) + stream_receive(ctx, c, side, info)
    steps += _notify_here(ctx, info, p, side)
    if c["recv_events"]:
        # Upstream's wait_block is the event side's, in whichever queue the op sits (dead code in the other).
        wait = wait_steps(ctx, c, event_side(c))
        if wait:
            steps += wait + [{"kind": "reason3", "style": "two", "sync": sync_kind(c["kernel_type"])}]
    return steps


def stream_end(ctx: Ctx, p: dict, side: str, info: SyncInfo, records: list) -> list:
    """After the last op of a queue: its flags and its notifies."""
    return stream_send(ctx, p, side, info, records) + _notify_here(ctx, info, p, side)
