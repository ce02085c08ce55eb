"""The stream shape of a SuperKernel: one logical stream or two real streams (facts §14.1).

Upstream decides it by walking the op list pair by pair (op, its predecessor),
never from the set of stream ids:
  * an op whose own send and recv lists share an id: error;
  * same stream as the predecessor, and the predecessor sends what this op
    receives: error (one stream is ordered already);
  * another stream, and no event joins the pair: two real streams when
    stream-fusion=1 (the walk stops there), else an error asking for it;
  * another stream joined by an event: still one logical stream. The shared
    ids are internal to the SK (no notify/wait outside) and the SK keeps the
    single-stream shape, with its inter-op barriers and early start.
"""

from __future__ import annotations

from sk.base.errors import SkError
from sk.engine.options import SkOptions


def check_own_pairs(ops) -> None:
    """No op may send and receive the same event (checked for every op, also past the point where the
    walk stops: an op waiting for its own event can never run)."""
    for op in ops:
        own = sorted(set(op.send_events) & set(op.recv_events))
        if own:
            raise SkError("an op sends and receives the same event (a send-recv event pair within one op)",
                          where=f"at {op.label}", value=own,
                          allowed="an event connects two different ops; remove the ids from its "
                                  "send_event_list or its recv_event_list")


def two_real_streams(ops, opts: SkOptions) -> bool:
    """The walk of facts §14.1 over consecutive op pairs (see the module docstring): True for the
    two-stream shape, False for one (logical) stream."""
    for prev, op in zip(ops, ops[1:]):
        shared = sorted(set(prev.send_events) & set(op.recv_events))
        if op.stream_id == prev.stream_id:
            if shared:
                raise _same_stream_pair(prev, op, shared)
        elif not shared:
            if opts.stream_fusion:
                return True
            raise SkError("super kernel do not support more than 2 real stream, use 'options=\"stream-fusion=1\"'",
                          where=f"at {op.label}", value=f"stream {prev.stream_id} -> stream {op.stream_id}",
                          allowed=f"no event joins it to the op before it: {prev.label} sends "
                                  f"{sorted(prev.send_events)}, {op.label} receives {sorted(op.recv_events)}; "
                                  "set stream-fusion=1 (two real streams), or let the earlier op send an event "
                                  "the later one receives (one logical stream)")
        # else: another stream joined by an event, one logical stream; the shared ids are inner
        # events (inner_events) and the walk goes on.
    return False


def check_stream_pairs(ops) -> None:
    """No event may join two ops of one stream, adjacent or not (upstream find_all_inner_event_id_set,
    after the walk, whatever shape it chose): the stream orders them already."""
    sender = {}  # event -> the earlier op that sends it (an event has one sender)
    for late in ops:
        for e in late.recv_events:
            early = sender.get(e)
            if early is not None and early.stream_id == late.stream_id:
                raise _same_stream_pair(early, late, sorted(set(early.send_events) & set(late.recv_events)))
        for e in late.send_events:
            sender.setdefault(e, late)


def _same_stream_pair(early, late, shared) -> SkError:
    return SkError("send/recv event pair within one stream", where=f"at {late.label}.recv_event_list", value=shared,
                   allowed=f"{early.label} sends it, and both ops are on stream {late.stream_id}, which already "
                           f"runs {early.label} first; drop the event, or put the ops on different streams")


def inner_events(ops) -> set:
    """Events sent by an op and received by a later op of the same SK need no GM semaphore.

    Among them the ids that join two streams into one logical stream: their
    sender is the receiver's predecessor."""
    sent, inner = set(), set()
    for op in ops:
        inner |= sent & set(op.recv_events)
        sent |= set(op.send_events)
    return inner
