"""Two real streams: the sync pairs between ops, as upstream's generator derives and prunes them (facts §5.3).

Upstream (GA SuperOperatorInfos) gives every op a `send_info` and a
`recv_info`: ordered maps from the other op (named `<kernelName>_<index>`) to
one sync name made of core-side pairs joined by ';'. The name of a pair of ops
depends only on their kinds (cube, vector or MIX; `gen_sync_name`): MIX->MIX
is "cub:vec;vec:cub", MIX->cube "vec:cub", MIX->vector "cub:vec", cube->MIX
"cub:vec", vector->MIX "vec:cub", otherwise "<kind>:<kind>". The pairs come
from, in this order:
  1. stream order: each op after the previous op of its stream;
  2. events with both ends in the SK: the (last) sender before the (last)
     receiver;
  3. a MIX op that notifies outside: when the next op in fusion order is a
     cube op, the notify moves to the cube queue; when the next op is on the
     other stream and not already a target, the pair (op, next) is added, so
     the notify happens after the next op could start (upstream
     `insert_sync_for_notify`).
Then `optimize_sync_pass` prunes cross-core parts: a C->V (V->C) part is
dropped when a later sender's part reaches an earlier receiver in that
direction (crossed lines), and of several C->V (V->C) parts one op sends or
receives only the nearest is kept. A pruned name that loses its last part is
removed. The prune runs on names collected before it applies them, so a
MIX->MIX pair pruned in both directions keeps the name the second direction
left (upstream's behaviour, reproduced).

The rendering (barriers.stream_*) reads these maps: Rule 1 (same-side full
sync) after an op whose send names hold a part ending on its side's queue or
a cross part leaving it, Rule 3.1 (cross-core set) per target with a part
leaving this side, Rule 3.2 (cross-core wait) per source with a part arriving
here.
"""

from __future__ import annotations

from sk.base.errors import SkError
from sk.engine.plan.context import dev_class

CUB, VEC, MIX = "cub", "vec", "mix"
C2V, V2C = "cub:vec", "vec:cub"


def task_kind(op: dict) -> str:
    return (CUB, VEC, MIX)[dev_class(op["kernel_type"])]


def sync_name(pre: dict, cur: dict) -> str:
    a, b = task_kind(pre), task_kind(cur)
    if a == MIX and b == MIX:
        return f"{C2V};{V2C}"
    if a == MIX:
        return V2C if b == CUB else C2V
    if b == MIX:
        return C2V if a == CUB else V2C
    return f"{a}:{b}"


def _without(name: str, part: str) -> str:
    return ";".join(p for p in name.split(";") if p != part)


class SyncInfo:
    """send/recv maps of every op (by op index) and the two core-type queues."""

    def __init__(self, ops: list, notifies_outside: list):
        self.ops = ops
        self.send = {op["index"]: {} for op in ops}
        self.recv = {op["index"]: {} for op in ops}
        self.queue = {CUB: [op["index"] for op in ops if task_kind(op) in (CUB, MIX)],
                      VEC: [op["index"] for op in ops if task_kind(op) in (VEC, MIX)]}
        self.last_of_stream: set = set()
        # The queue whose block 0 notifies an op's external events (a MIX op moves to the cube queue
        # when a cube op follows it).
        self.notify_queue = {op["index"]: (CUB if task_kind(op) == CUB else VEC) for op in ops}
        self._by_stream()
        self._by_event()
        self._for_notify(notifies_outside)
        self._prune_crossed()
        self._prune_repeated(sending=True)
        self._prune_repeated(sending=False)

    def name(self, i: int) -> str:
        return f"{self.ops[i]['kernel_name']}_{i}"

    def _pair(self, a: int, b: int) -> None:
        value = sync_name(self.ops[a], self.ops[b])
        self.send[a][b] = value
        self.recv[b][a] = value

    def _by_stream(self) -> None:
        streams: dict = {}
        for op in self.ops:
            streams.setdefault(op["stream_id"], []).append(op["index"])
        for seq in streams.values():
            self.last_of_stream.add(seq[-1])
            for a, b in zip(seq, seq[1:]):
                self._pair(a, b)

    def _by_event(self) -> None:
        senders, receivers = {}, {}
        for op in self.ops:
            for e in op["send_events"]:
                senders[e] = op["index"]
            for e in op["recv_events"]:
                receivers[e] = op["index"]
        for e, a in senders.items():
            if e in receivers:
                if receivers[e] == a:
                    raise SkError("an op sends and receives the same event", where=f"at op_list[{a}]", value=e)
                self._pair(a, receivers[e])

    def _for_notify(self, notifies_outside: list) -> None:
        for op in self.ops[:-1]:
            i = op["index"]
            if task_kind(op) != MIX or not notifies_outside[i]:
                continue
            nxt = self.ops[i + 1]
            if task_kind(nxt) == CUB:
                self.notify_queue[i] = CUB
            if nxt["stream_id"] != op["stream_id"] and nxt["index"] not in self.send[i]:
                self._pair(i, nxt["index"])

    def _pos(self, side: str, i: int) -> int:
        # Upstream's get_idx: the op's place in a queue, 0 when it is not in that queue.
        q = self.queue[side]
        return q.index(i) if i in q else 0

    def _apply(self, edits: list) -> None:
        for owner, other, in_recv, value in edits:
            table = (self.recv if in_recv else self.send)[owner]
            if value:
                table[other] = value
            else:
                table.pop(other, None)

    def _crossed(self, a: int, b: int, part: str) -> bool:
        """Is a's `part` to b crossed: does an earlier receiver of b's queue get that part from a later
        sender of a's queue?"""
        src, dst = part.split(":")
        a_pos, b_pos = self._pos(src, a), self._pos(dst, b)
        for r in reversed(self.queue[dst][:b_pos]):
            for s, value in self.recv[r].items():
                if part in value and self._pos(dst, r) < b_pos and self._pos(src, s) > a_pos:
                    return True
        return False

    def _prune_crossed(self) -> None:
        edits = []
        for side, part in ((CUB, C2V), (VEC, V2C)):
            for a in self.queue[side]:
                for b, value in self.send[a].items():
                    for p in value.split(";"):
                        if p in part and self._crossed(a, b, part):  # upstream's substring test
                            rest = _without(value, part)
                            edits += [(a, b, False, rest), (b, a, True, rest)]
        self._apply(edits)

    def _prune_repeated(self, sending: bool) -> None:
        table = self.send if sending else self.recv
        for side, part, other in ((VEC, V2C, CUB), (CUB, C2V, VEC)) if sending else \
                ((VEC, C2V, CUB), (CUB, V2C, VEC)):
            edits = []
            for i in self.queue[side]:
                if len(table[i]) <= 1:
                    continue
                hits = [(j, value, self._pos(other, j)) for j, value in table[i].items() if part in value]
                if len(hits) <= 1:
                    continue
                # Senders keep the nearest receiver, receivers the nearest (latest) sender.
                hits.sort(key=lambda h: h[2], reverse=not sending)
                for j, value, _ in hits[1:]:
                    rest = _without(value, part)
                    edits += [(i, j, not sending, rest), (j, i, sending, rest)]
            self._apply(edits)

    def pairs(self, i: int, sending: bool) -> list:
        """[[name of the other op, sync name], ...] in upstream's order (for the generated comments)."""
        table = self.send if sending else self.recv
        return [[self.name(j), v] for j, v in table[i].items()]

    def edges(self) -> list:
        """The plan's sync_edges: one per part of every kept name."""
        return [{"from": a, "to": b, "kind": p} for a, table in self.send.items() for b, v in table.items()
                for p in v.split(";")]
