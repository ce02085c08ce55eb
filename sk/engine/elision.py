"""Dependency-aware barrier elision (option `sync-elision=1`; ours, beyond upstream): the ordering model.

Upstream puts a barrier between every two consecutive sub-ops (facts §5.1,
§5.2). With sync-elision=1, sk.engine.plan uses the tensors each op declares
(kernel_infos `op_list[i].tensors`, sk.engine.subop) to drop the barriers that order
nothing and to narrow the others to the core types that need them. This
module holds what that rests on: which orders each barrier kind provides,
the hazard tracking, and the cost used to pick the cheapest barrier. sk.engine.plan
makes the decisions (and documents each one).

Orders (CPU-twin semantics, facts §13)
--------------------------------------
An op runs as up to two halves: on the AIC cores ("cube") and on the AIV
cores ("vec"); MIX ops have both. Each core runs the ops of the SK in program
order, but two different cores are unordered unless a barrier orders them. A
barrier provides a set of *orders* (a, t): every core of type a finished what
it did before the barrier before any core of type t goes past it. Every set
and wait of a barrier is executed by every core of the type: the plan emits
them unguarded, or split between a sub-kernel's own early-start call on its
active cores and the SK's call guarded to the idle ones (`idx >= blockDim`).
  * (a, a): a mode-0 set then a wait on one flag by all cores of type a
    (SetNextTaskStart + the WaitPreTaskEnd wait on SYNC_AIC_FLAG 11 /
    SYNC_AIV_ONLY_ALL 14; the AIC / AIV ffts barrier; SyncAll<true>): mode 0
    raises every core's counter only once all cores of the type have set.
  * (cube, vec): WaitPreTaskEnd with an AIC producer and an AIV consumer: each
    AIC waits on 11 (all AICs set), then sets SYNC_AIC_AIV_FLAG 13 in mode 2,
    which each AIV of its AI core waits for. (vec, cube) likewise through 14
    and SYNC_AIV_FLAG 12 (the AIC waits until all AIVs of its core set 12,
    each after its own wait on 14).
  * SyncAll<false> on a MIX SK: AIVs arrive on 12, AICs barrier on 11, AICs
    release their AIVs on 13: all four orders.

Tracking
--------
`pending[t]` holds the accesses (op half, tensors read and written) not yet
known to happen before later work on core type t. A new op half on t has a
hazard with a pending access on t when they share a tensor and at least one
writes it (RAW, WAR, WAW); the barrier before it must then provide
(arch of the access, t). Every op half enters `pending` of both types (it is
unordered even against other cores of its own type). After a barrier with
orders O, an access e leaves `pending[t]` when (e.arch, t) is in O, or when
(a, t) is in O for a type a that e had already left: e then happened before
every later action of every a core, among them that core's set in this
barrier (the transitivity of chained barriers). Because accesses stay pending
until a barrier really orders them, a dependency on any op since the last
barrier that ordered it is seen: elision is transitive-safe, and a barrier
that is kept covers older hazards as well as the one with the previous op.

Events with both ends in the SK (no GM semaphore code, facts §5.5) are
modelled as a resource the sender writes and the receiver reads.
"""

from __future__ import annotations

import dataclasses

from sk.engine.kernel_types import CUBE, VEC

ARCHES = (CUBE, VEC)
ALL_ORDERS = frozenset((a, t) for a in ARCHES for t in ARCHES)
# Early-start device class (sk.engine.plan.dev_class) -> the core types it stands for.
DEV_ARCHES = {0: (CUBE,), 1: (VEC,), 2: (CUBE, VEC)}
_SHORT = {CUBE: "cube", VEC: "vec"}


def _es_parts(config: int) -> tuple:
    dp, dc = config >> 2, config & 3
    from_aic, from_aiv = dp in (0, 2), dp in (1, 2)
    to_aic, to_aiv = dc in (0, 2), dc in (1, 2)
    return from_aic, from_aiv, to_aic, to_aiv


def es_orders(config: int) -> frozenset:
    """Orders of SetNextTaskStart on the producer types + WaitPreTaskEndImpl<config>."""
    from_aic, from_aiv, to_aic, to_aiv = _es_parts(config)
    orders = set()
    if from_aic:
        orders.add((CUBE, CUBE))
    if from_aiv:
        orders.add((VEC, VEC))
    if from_aic and to_aiv:
        orders.add((CUBE, VEC))
    if from_aiv and to_aic:
        orders.add((VEC, CUBE))
    return frozenset(orders)


def es_cost(config: int) -> int:
    """Flag operations one core of each type performs (sets + waits), summed over the two types."""
    from_aic, from_aiv, to_aic, to_aiv = _es_parts(config)
    sets = from_aic + from_aiv
    waits_aic = from_aic + (from_aic and to_aiv) + (from_aiv and to_aic)
    waits_aiv = from_aiv + (from_aiv and to_aic) + (from_aic and to_aiv)
    return sets + waits_aic + waits_aiv


def cheapest_es_config(required: frozenset, sk_arches, must_from=(), preferred: int | None = None) -> int:
    """The cheapest early-start config whose orders cover `required`.

    Only configs whose producer and consumer types exist in the SK are
    candidates; `must_from` are types that must be producers (a sub-kernel
    that sets the early-start flag itself must be matched by the wait).
    Ties go to `preferred` (upstream's config for the pair), then the lower
    config value, so the choice is deterministic."""
    best = None
    for dp in (0, 1, 2):
        for dc in (0, 1, 2):
            if not set(DEV_ARCHES[dp]) <= set(sk_arches) or not set(DEV_ARCHES[dc]) <= set(sk_arches):
                continue
            if not set(must_from) <= set(DEV_ARCHES[dp]):
                continue
            config = (dp << 2) | dc
            if not required <= es_orders(config):
                continue
            key = (es_cost(config), config != preferred, config)
            if best is None or key < best[0]:
                best = (key, config)
    if best is None:
        raise ValueError(f"no early-start config covers {sorted(required)} on {sorted(sk_arches)}")
    return best[1]


def sync_orders(kind: str, sk_arches) -> frozenset:
    """Orders of a full sync by SK kernel type (facts §5.1): SyncAll<false>, or the one type's ffts barrier."""
    if kind == "mix":
        return ALL_ORDERS
    arch = CUBE if kind == "aic" else VEC
    return frozenset({(arch, arch)}) if arch in sk_arches else frozenset()


def order_text(order: tuple) -> str:
    return f"{_SHORT[order[0]]}->{_SHORT[order[1]]}"


@dataclasses.dataclass(frozen=True)
class Access:
    op: int
    arch: str
    reads: frozenset
    writes: frozenset


@dataclasses.dataclass(frozen=True)
class Hazard:
    kind: str           # "RAW", "WAR" or "WAW"
    resource: tuple     # ("tensor", name) or ("event", id)
    earlier: int        # op index
    later: int
    order: tuple        # (arch of the earlier half, arch of the later half)

    def describe(self) -> str:
        what, name = self.resource
        thing = f"tensor '{name}'" if what == "tensor" else f"event {name}"
        verbs = {"RAW": ("writes", "reads"), "WAR": ("reads", "writes"), "WAW": ("writes", "writes")}[self.kind]
        return (f"{self.kind} on {thing} (op {self.earlier} {verbs[0]}, op {self.later} {verbs[1]}; "
                f"{order_text(self.order)})")


class Tracker:
    """Accesses not yet ordered before later work, per core type (see the module docstring)."""

    def __init__(self) -> None:
        self.pending: dict = {a: [] for a in ARCHES}

    def add(self, op: int, arches, reads, writes) -> None:
        for arch in arches:
            access = Access(op, arch, frozenset(reads), frozenset(writes))
            for t in ARCHES:
                self.pending[t].append(access)

    def hazards(self, op: int, arches, reads, writes) -> list:
        """Hazards of a new op (its halves on `arches`) against the pending accesses, sorted."""
        reads, writes = frozenset(reads), frozenset(writes)
        found = set()
        for t in arches:
            for e in self.pending[t]:
                for kind, common in (("RAW", e.writes & reads), ("WAR", e.reads & writes), ("WAW", e.writes & writes)):
                    for resource in common:
                        found.add(Hazard(kind, resource, e.op, op, (e.arch, t)))
        return sorted(found, key=lambda h: (h.earlier, h.kind, h.resource, h.order))

    def barrier(self, orders: frozenset) -> None:
        before = {t: {(e.op, e.arch) for e in self.pending[t]} for t in ARCHES}
        for t in ARCHES:
            via = [a for a in ARCHES if (a, t) in orders]
            self.pending[t] = [e for e in self.pending[t]
                               if (e.arch, t) not in orders and all((e.op, e.arch) in before[a] for a in via)]


def barrier_counts(plan: dict) -> dict:
    """Barriers of a plan JSON: {"naive": inter-op barriers upstream places, "elided", "kept", "by_kind"}.

    Single-stream plans record one entry per pair of consecutive ops, elided
    or not, so `naive` is the entry count; two-stream plans are never elided."""
    barriers = plan.get("barriers", [])
    by_kind: dict = {}
    for b in barriers:
        by_kind[b["kind"]] = by_kind.get(b["kind"], 0) + 1
    elided = by_kind.get("elided", 0)
    return {"naive": len(barriers), "elided": elided, "kept": len(barriers) - elided,
            "by_kind": dict(sorted(by_kind.items()))}
