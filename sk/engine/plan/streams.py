"""The stream shape of a SuperKernel: one stream or two real streams, and which events stay inside it."""

from __future__ import annotations

from sk.engine.options import SkOptions


def two_streams(ops, opts: SkOptions) -> bool:
    return bool(opts.stream_fusion) and len({op.stream_id for op in ops}) > 1


def inner_events(ops) -> set:
    """Events sent by an op and received by a later op of the same SK need no GM semaphore."""
    sent, inner = set(), set()
    for op in ops:
        inner |= sent & set(op.recv_events)
        sent |= set(op.send_events)
    return inner
