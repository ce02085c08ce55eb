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

_SIDE = {CUBE: "cub", VEC: "vec"}


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
        # A dynamic op's block count is only known at run time, so it may always leave cores idle.
        fewer = op.dynamic or bool(idle_sides(c, launched))
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

def _sides(op: dict) -> list:
    return [_SIDE[f["arch"]] for f in op["funcs"]]


def sync_graph(ctx: Ctx) -> tuple:
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


def stream_send(ctx: Ctx, p: dict, side: str, edges, records: list) -> list:
    """After op p on the `side` queue: the flags its dependants wait for (Rule 1, 3.1) and its notifies."""
    flags, notify = _send_parts(ctx, p, side, edges, records)
    return flags + notify


def _send_parts(ctx: Ctx, p: dict, side: str, edges, records: list) -> tuple:
    """(Rule 1 / 3.1 steps, notify steps) of op p on the `side` queue."""
    ops = ctx.op_plans
    info = _info(ops, edges, (p["index"], side), True)
    # Upstream's notify_block[arch]: only the queue of the op's event side notifies.
    notify_here = side == _SIDE[event_side(p)]
    external = [n for n in p["notify"] if not n["inner"]] if notify_here else []
    if not (info or external):
        return [], []
    steps = [{"kind": "rule1", "side": side, "name": p["kernel_name"], "info": info}]
    for a, sa, b, sb in edges:
        if (a, sa) == (p["index"], side):
            records.append({"between": [a, b], "kind": "aic_ffts" if side == "cub" else "aiv_ffts",
                            "reason": f"Rule 1: {sa}:{sb} dependency"})
    for direction in (("cub", "vec"), ("vec", "cub")):
        if side == direction[0] and any(v == f"{direction[0]}:{direction[1]}" for _, v in info):
            d = "c2v" if direction[0] == "cub" else "v2c"
            steps.append({"kind": "rule31", "dir": d, "name": p["kernel_name"], "info": info})
            for a, sa, b, sb in edges:
                if (a, sa) == (p["index"], side) and sb != sa:
                    records.append({"between": [a, b], "kind": f"{d}_ffts",
                                    "reason": "Rule 3.1/3.2: cross-core event flag"})
    return steps, (notify_steps(ctx, p, event_side(p)) if notify_here else [])


def stream_between(ctx: Ctx, p: dict, c: dict, side: str, edges, records: list) -> list:
    """Between consecutive ops p and c of the `side` queue, in upstream's order
    (gen_sync_and_event_code_for_two_stream): p's flags, or only a pipe barrier when p sends
    nothing; c's wait for the other queue's flag (Rule 3.2); p's notifies; c's external waits."""
    flags, notify = _send_parts(ctx, p, side, edges, records)
    if not (flags or notify):
        records.append({"between": [p["index"], c["index"]], "kind": "pipe_all",
                        "reason": "no dependency between the ops: pipe barrier only"})
        flags = [{"kind": "pipe_all"}]
    # Upstream's wait_block is the event side's, in whichever queue the op sits (dead code in the other).
    wait = wait_steps(ctx, c, event_side(c))
    if wait:
        wait.append({"kind": "reason3", "style": "two", "sync": sync_kind(c["kernel_type"])})
    return flags + stream_receive(ctx, c, side, edges) + notify + wait


def stream_receive(ctx: Ctx, op: dict, side: str, edges) -> list:
    """Before op's call on the `side` queue: the wait for a cross-core flag from the other queue (Rule 3.2)."""
    recv = _info(ctx.op_plans, edges, (op["index"], side), False)
    other = "vec" if side == "cub" else "cub"
    if any(v == f"{other}:{side}" for _, v in recv):
        return [{"kind": "rule32", "dir": "c2v" if side == "vec" else "v2c", "name": op["kernel_name"],
                 "info": recv}]
    return []
