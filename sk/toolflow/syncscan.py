"""Which inter-core APIs a sub-kernel calls, read from its preprocessed source.

Upstream does not look at the object for this (bisheng inlines SyncAll,
SetNextTaskStart and WaitPreTaskEnd, so no symbol shows them): it runs the
compiler with `-E` and the same flags once for the cube side and once for the
vector side, whatever the kernel's type, joins the two texts and counts calls
in them (facts §14.3; ADK kernel_info_infer.py). We do the same on both
toolchains, with upstream's patterns and thresholds on the joined counts:

* SyncAll: one `SyncAll<x>();` is enough; a bare `SyncAll();` must occur
  more than HEADER_OCCURRENCES times;
* SetNextTaskStart / WaitPreTaskEnd (optionally with template arguments):
  more than HEADER_OCCURRENCES times.

HEADER_OCCURRENCES is what the toolchain's own kernel_operator.h contributes
to the two texts: Ascend C's interface headers declare each API once per
translation unit. The CPU twin's header (sk/runtime/include) declares them the
same way, so the one rule counts the same calls on both toolchains;
//sk:syncscan_test preprocesses the twin header alone and fails if it stops
contributing exactly one per text.

The result file of a compile (`--sync-out`) carries the counts per side and
the three answers; wrap and pack read it (`--sync-scan`).
"""

from __future__ import annotations

import json
import re
from collections import namedtuple

from sk.base.errors import SkError
from sk.base import infile, jsonload

SIDES = ("cube", "vec")  # the texts upstream preprocesses and joins for every kernel
HEADER_OCCURRENCES = 2    # one declaration in each of the two texts

PATTERNS = {
    "sync_all_templated": re.compile(r"SyncAll\s*<\w+>\s*\(\s*\)\s*;"),
    "sync_all": re.compile(r"SyncAll\s*\(\s*\)\s*;"),
    "set_next_task_start": re.compile(r"SetNextTaskStart\s*(?:<[^;{]*>)?\s*\(\s*\)\s*;"),
    "wait_pre_task_end": re.compile(r"WaitPreTaskEnd\s*(?:<[^;{]*>)?\s*\(\s*\)\s*;"),
}


class SyncCalls(namedtuple("SyncCalls", "sync_all set_next_task_start wait_pre_task_end")):
    """Whether the kernel calls each API (on any of its compile units)."""

    __slots__ = ()

    def __or__(self, other):
        return SyncCalls(*(a or b for a, b in zip(self, other)))


NONE = SyncCalls(False, False, False)


def count(text: str) -> dict[str, int]:
    """Matches of each pattern in preprocessed source."""
    return {name: len(pattern.findall(text)) for name, pattern in PATTERNS.items()}


def decide(counts: dict[str, int]) -> SyncCalls:
    """Upstream's thresholds (facts §14.3) applied to the joined texts' counts."""
    return SyncCalls(
        sync_all=counts["sync_all_templated"] >= 1 or counts["sync_all"] > HEADER_OCCURRENCES,
        set_next_task_start=counts["set_next_task_start"] > HEADER_OCCURRENCES,
        wait_pre_task_end=counts["wait_pre_task_end"] > HEADER_OCCURRENCES,
    )


def document(side_counts: dict[str, dict[str, int]]) -> dict:
    """The scan file: counts per side ("cube", "vec") and the answers for the two texts joined."""
    joined = {name: sum(counts[name] for counts in side_counts.values()) for name in PATTERNS}
    calls = decide(joined)
    return {"counts": side_counts, "header_occurrences": HEADER_OCCURRENCES, **calls._asdict()}


def read(path: str) -> SyncCalls:
    """The answers of a scan file written by `sk subkernel compile --sync-out`."""
    try:
        doc = jsonload.loads(infile.read_text(path))
    except OSError as err:
        raise SkError("cannot read the sync scan file", where=path, value=err.strerror) from None
    except ValueError as err:
        raise SkError("the sync scan file is not JSON", where=path, value=str(err)) from None
    try:
        values = [doc[field] for field in SyncCalls._fields]
    except (KeyError, TypeError):
        values = None
    if values is None or not all(isinstance(v, bool) for v in values):
        raise SkError("not a sync scan file", where=path,
                      allowed="pass the --sync-out file of `sk subkernel compile` for this kernel")
    return SyncCalls(*values)


def write_text(doc: dict) -> str:
    return json.dumps(doc, indent=2, sort_keys=True) + "\n"
