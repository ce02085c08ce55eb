"""What every part of the planner reads: the decisions taken so far (`Ctx`) and small
kernel-type facts about ops (early-start device class, block-index API, full sync kind)."""

from __future__ import annotations

import dataclasses

from sk.engine.kernel_types import CUBE, TABLE as KERNEL_TYPES, VEC
from sk.engine.options import SkOptions
from sk.engine.platforms import Platform
from sk.engine.subop import KernelInfos


@dataclasses.dataclass
class Ctx:
    ki: KernelInfos
    opts: SkOptions
    platform: Platform
    ktype: str
    block: int
    split: int
    early_start: int
    op_plans: list
    feed_needed: list
    params: dict
    inner: set
    elide: bool = False
    two_stream: bool = False   # facts §14.1's decision (streams.two_real_streams)


def dev_class(kernel_type: str) -> int:
    """Early-start device class: AIC=0, AIV=1, MIX=2 (facts §5.2)."""
    kt = KERNEL_TYPES[kernel_type]
    return 0 if kt.cube_only else 1 if kt.vector_only else 2


def idx_api(kernel_type: str) -> str:
    """Which block index an op's guard reads: AIV kinds use AscendC::GetBlockIdx(), the rest get_block_idx()."""
    return "ascendc" if KERNEL_TYPES[kernel_type].vector_only else "raw"


def sync_kind(kernel_type: str) -> str:
    """Full cross-core sync by kernel type (facts §5.1): aic ffts, aiv ffts or SyncAll<false>."""
    kt = KERNEL_TYPES[kernel_type]
    if not (kt.cube_only or kt.vector_only):
        return "mix"
    return "aic" if kt.cube_only else "aiv"


def arches(op: dict) -> list:
    """The core types an op record runs on, in the order of its funcs."""
    return [f["arch"] for f in op["funcs"]]


def sk_arches(ctx: Ctx) -> tuple:
    """The core types the SuperKernel launches."""
    ration = KERNEL_TYPES[ctx.ktype].ration
    return tuple(a for a, n in zip((CUBE, VEC), ration) if n)
