"""The SoCs a SuperKernel can be generated for, and what the generator needs to know of each.

The SoC is an explicit input of `sk gen` (`--soc`, default `DEFAULT_SOC`). What
matters to code generation:
  * ai_core_cnt / vector_core_cnt: the core counts a dynamic-shape sub-op is
    assumed to use (it is "full core", facts §3.1) and the upper bounds of
    debug-aic-num / debug-aiv-num;
  * has_ffts: c220 parts pass the FFTS base address in param_base[0], so
    sub-op parameters start at offset 1 (facts §3.2);
  * chip / npu_arch: c220 / 2201 select the dav-c220-{cube,vec} compile targets.

Counts: Ascend910_9391 (the conformance SoC) has 48 vector cores, visible in the
dynamic AIV golden (block dim 48); its cube count cannot be seen in the goldens
(it must be <= 32) and 24 is the A3 die's AI-core count, consistent with the
dynamic AIC golden needing feed-sync-all. The Atlas A2 parts (910B1..B4) use
their published cube/vector core counts.
"""

from __future__ import annotations

import dataclasses

from sk.base.errors import SkError


@dataclasses.dataclass(frozen=True)
class Platform:
    soc: str
    short_soc: str
    chip: str
    npu_arch: int
    ai_core_cnt: int
    vector_core_cnt: int
    has_ffts: bool

    # Generator facts that follow from the chip (upstream CommonUtility.is_c310 checks in super_kernel.py).
    @property
    def flag_wait_takes_pipe(self) -> bool:
        """wait_flag_dev names the pipe it blocks (`wait_flag_dev(PIPE_S, flag)`): c310."""
        return self.chip == "c310"

    @property
    def ub_copy_align_v2(self) -> bool:
        """UB->GM copies use copy_ubuf_to_gm_align_v2 (byte lengths): c310."""
        return self.chip == "c310"

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


_SOCS = {
    p.soc: p for p in (
        Platform("Ascend910_9391", "Ascend910_93", "c220", 2201, 24, 48, True),
        Platform("Ascend910B1", "Ascend910B", "c220", 2201, 24, 48, True),
        Platform("Ascend910B2", "Ascend910B", "c220", 2201, 24, 48, True),
        Platform("Ascend910B3", "Ascend910B", "c220", 2201, 20, 40, True),
        Platform("Ascend910B4", "Ascend910B", "c220", 2201, 20, 40, True),
    )
}
DEFAULT_SOC = "Ascend910_9391"
KNOWN_SOCS = tuple(sorted(_SOCS))


def get_platform(soc: str | None = None) -> Platform:
    soc = DEFAULT_SOC if soc is None else soc
    if soc not in _SOCS:
        raise SkError("unknown SoC", where="--soc", value=soc, allowed="known SoCs: " + ", ".join(KNOWN_SOCS))
    return _SOCS[soc]
