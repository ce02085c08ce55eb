"""Ops that cannot run correctly in the SuperKernel's launch, refused at build time.

Upstream fuses these and the device hangs or computes half a result; here the
build fails with the op, the reason and the fix.
  * A sub-kernel that calls SyncAll (sub_op_with_sync_all) waits for every core
    of the types SyncAll covers in the whole launch (facts §13, mode 0). An op
    on fewer of those cores than the SuperKernel launches leaves the others out
    of the barrier, and it never completes, unless feed-sync-all=1 lets the
    idle cores replay the op's SyncAlls (facts §5.4, §8.1). A dynamic op is
    not checked: every launched block of its sides calls it (its count comes
    from its tiling at run time, facts §3.1), so none is left out.
  * A dynamic op calling SyncAll with a vector tiling key in a 1:2
    SuperKernel: the entry calls it on half the vector cores only
    (_check_dynamic_sync_all), and a dynamic op is never fed.
  * A MIX_AIC_1_2 op gives work to two vector sub-blocks per AI core. In a
    SuperKernel whose summary kernel type is MIX_AIC_1_1 (facts §3.1 picks it
    whenever the ops need no more vector than cube cores) each AI core has one
    vector core, so the second sub-block's work never runs. Option
    allow-mix-1-2-in-1-1=1 (ours) keeps upstream's behaviour.
"""

from __future__ import annotations

from sk.base.errors import SkError
from sk.engine.kernel_types import TABLE as KERNEL_TYPES
from sk.engine.options import SkOptions
from sk.engine.plan.shape import idle_sides, sk_cores

_CORES = {"aic": "AIC", "aiv": "AIV"}


def check(ops, cores, ktype: str, block: int, opts: SkOptions) -> None:
    launched = sk_cores(ktype, block)
    for op, c in zip(ops, cores):
        if op.sync_all and not op.dynamic and not opts.feed_sync_all:
            short = idle_sides(c, launched)
            if short:
                raise SkError(
                    f"sub-kernel calls {_sync_all_kind(op.kernel_type)} but runs on fewer of those cores than "
                    "the SuperKernel launches, so the cores it leaves idle never reach the barrier and it "
                    "hangs",
                    where=f"at {op.label} (sub_op_with_sync_all, {op.kernel_type})",
                    value=f"blockDim {op.block_dim}: {_count(c, short)} against the SuperKernel's "
                          f"{ktype} block dim {block}: {_count(launched, short)}",
                    allowed="set feed-sync-all=1 (the idle cores then take part in its SyncAll), or give "
                            "the op the SuperKernel's core count")
        if op.sync_all and op.dynamic:
            _check_dynamic_sync_all(op, launched, block)
        if not opts.allow_mix_1_2_in_1_1 and ktype == "KERNEL_TYPE_MIX_AIC_1_1":
            types = dict.fromkeys([op.kernel_type] + [k.kernel_type for k in op.dynamic_keys])
            if "KERNEL_TYPE_MIX_AIC_1_2" in types:
                raise SkError(
                    "a MIX_AIC_1_2 sub-op in a SuperKernel whose kernel type is MIX_AIC_1_1: its second vector "
                    "sub-block does not exist there (one vector core per AI core), so the work it gives to "
                    "vector sub-block 1 never runs",
                    where=f"at {op.label}", value=f"{op.kernel_type} in a KERNEL_TYPE_MIX_AIC_1_1 SuperKernel",
                    allowed="make the SuperKernel 1:2 (debug-aic-num=N:debug-aiv-num=2N, or fuse ops that "
                            "need more vector than cube cores), or set allow-mix-1-2-in-1-1=1 to fuse it as "
                            "upstream does")


def _check_dynamic_sync_all(op, launched: dict, block: int) -> None:
    # call_func_of_<op> runs a tiling key of a vector kind on the vector cores whose
    # AscendC::GetBlockIdx() is below the SuperKernel's block dim (upstream's test), which in a 1:2
    # SuperKernel is half of them; the cube side and the MIX kinds reach every launched core. A
    # dynamic op is never fed (barriers.feed_needed), so the other half never reaches its SyncAll.
    vector_keys = [k.kernel_type for k in op.dynamic_keys if KERNEL_TYPES[k.kernel_type].vector_only] or \
        ([op.kernel_type] if KERNEL_TYPES[op.kernel_type].vector_only else [])
    if vector_keys and launched["aiv"] > block:
        raise SkError(
            f"dynamic sub-kernel calls {_sync_all_kind(vector_keys[0])}, but the SuperKernel calls a vector "
            f"kernel of a dynamic op (call_func_of_{op.kernel_name}) on only the first {block} of its "
            f"{launched['aiv']} vector cores, so the others never reach the barrier and it hangs; "
            "feed-sync-all does not cover a dynamic op",
            where=f"at {op.label} (sub_op_with_sync_all, tiling-sink)",
            value=f"{vector_keys[0]} in a KERNEL_TYPE_MIX_AIC_1_2 SuperKernel of block dim {block}",
            allowed="fuse it where the SuperKernel is not 1:2 (no op with a cube side, or "
                    "debug-aic-num=N:debug-aiv-num=N), or launch it on its own")


def _sync_all_kind(kernel_type: str) -> str:
    kt = KERNEL_TYPES[kernel_type]
    if kt.vector_only:
        return "SyncAll<true> (all AIV cores of the launch)"
    if kt.cube_only:
        return "SyncAll (all AIC cores of the launch)"
    return "SyncAll<false> (all AIC and AIV cores of the launch)"


def _count(cores: dict, sides: list) -> str:
    return " and ".join(f"{cores[s]} {_CORES[s]} cores" for s in sides)
