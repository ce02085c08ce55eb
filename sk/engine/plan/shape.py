"""The SuperKernel's shape: the cores each op occupies, the SK kernel type and block dim (facts §3.1)."""

from __future__ import annotations

import math

from sk.base.errors import SkError
from sk.engine.kernel_types import TABLE as KERNEL_TYPES
from sk.engine.options import SkOptions
from sk.engine.platforms import Platform
from sk.engine.subop import SubOp


def op_cores(op: SubOp, platform: Platform) -> dict:
    """{aic, aiv}: the cores the op runs on."""
    kt = KERNEL_TYPES[op.kernel_type]
    if not op.dynamic:
        return kt.cores(op.block_dim)
    # A dynamic op may use every core of its sides (a 1:2 op at most twice the AI cores in vector cores).
    aic = platform.ai_core_cnt if kt.ration[0] else 0
    aiv = 0 if not kt.ration[1] else platform.vector_core_cnt if not kt.ration[0] else \
        min(kt.ration[1] * platform.ai_core_cnt, platform.vector_core_cnt)
    return {"aic": aic, "aiv": aiv}


def sk_shape(ops, cores, opts: SkOptions, platform: Platform) -> tuple:
    """(SK kernel type, block dim) from the ops' core counts, then the debug-aic/aiv-num overrides (facts §1.4)."""
    types = {op.kernel_type for op in ops}
    max_aic = max(c["aic"] for c in cores)
    max_aiv = max(c["aiv"] for c in cores)
    if all(KERNEL_TYPES[t].vector_only for t in types):
        ktype, block = "KERNEL_TYPE_MIX_AIV_1_0", max_aiv
    elif all(KERNEL_TYPES[t].cube_only for t in types):
        ktype, block = "KERNEL_TYPE_MIX_AIC_1_0", max_aic
    elif types == {"KERNEL_TYPE_MIX_AIC_1_1"}:
        ktype, block = "KERNEL_TYPE_MIX_AIC_1_1", max_aic
    elif max_aiv <= max_aic:
        ktype, block = "KERNEL_TYPE_MIX_AIC_1_1", max_aic
    else:
        ktype, block = "KERNEL_TYPE_MIX_AIC_1_2", max(max_aic, math.ceil(max_aiv / 2))
    aic, aiv = opts.debug_aic_num, opts.debug_aiv_num
    if not (aic or aiv):
        return ktype, block
    where = "options 'debug-aic-num'/'debug-aiv-num'"
    if aic > platform.ai_core_cnt:
        raise SkError("debug-aic-num exceeds the SoC's AI cores", where=where, value=aic,
                      allowed=f"at most {platform.ai_core_cnt} on {platform.soc}")
    if aiv > platform.vector_core_cnt:
        raise SkError("debug-aiv-num exceeds the SoC's vector cores", where=where, value=aiv,
                      allowed=f"at most {platform.vector_core_cnt} on {platform.soc}")
    # Against the shape the SK has without the options (upstream
    # check_debug_aic_aiv_num_exceed_sub_op_aic_aiv_num): each side it launches needs its cores.
    need = sk_cores(ktype, block)
    shown = f"without the options the SuperKernel is {KERNEL_TYPES[ktype].short} on {block} blocks"
    for side, given, other, name in (("aic", aic, "aiv", "cube"), ("aiv", aiv, "aic", "vector")):
        if not need[side] or given >= need[side]:
            continue
        if not given:
            raise SkError(f"debug-{other}-num alone leaves no {name} cores for the {name} sub-ops", where=where,
                          value=aiv if side == "aic" else aic,
                          allowed=f"also set debug-{side}-num >= {need[side]} ({shown})")
        raise SkError(f"debug-{side}-num is below the {name} cores the SuperKernel needs", where=where, value=given,
                      allowed=f"at least {need[side]} ({shown})")
    if aic and not aiv:
        ktype, block = "KERNEL_TYPE_MIX_AIC_1_0", aic
    elif aiv and not aic:
        ktype, block = "KERNEL_TYPE_MIX_AIV_1_0", aiv
    elif aic == aiv:
        ktype, block = "KERNEL_TYPE_MIX_AIC_1_1", aic
    else:
        ktype, block = "KERNEL_TYPE_MIX_AIC_1_2", aic
    return ktype, block


def sk_cores(ktype: str, block: int) -> dict:
    """{aic, aiv}: the cores the SuperKernel launches (a 1:2 SK two vector cores per AI core)."""
    ration = KERNEL_TYPES[ktype].ration
    return {"aic": block if ration[0] else 0,
            "aiv": block * (ration[1] if ration[0] else 1) if ration[1] else 0}


def idle_sides(cores: dict, launched: dict) -> list:
    """The core types ("aic", "aiv") an op runs on where it leaves launched cores idle."""
    return [side for side in ("aic", "aiv") if cores[side] and cores[side] < launched[side]]
