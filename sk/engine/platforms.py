"""The SoCs a SuperKernel can be generated for, and what the generator needs to know of each.

The SoC is an explicit input of `sk gen` (`--soc`, default `DEFAULT_SOC`). What
matters to code generation and to the tool argv:
  * ai_core_cnt / vector_core_cnt: the core counts a dynamic-shape sub-op is
    assumed to use (it is "full core", facts §3.1) and the upper bounds of
    debug-aic-num / debug-aiv-num;
  * has_ffts: c220 parts pass the FFTS base address in param_base[0], so
    sub-op parameters start at offset 1 (facts §3.2); c310 has no FFTS slot;
  * chip / npu_arch: c220 / 2201 (Atlas A2/A3) or c310 / 3510 (Ascend950)
    select the dav-<chip>-{cube,vec} compile targets and c310's compile flags
    (sk.toolflow.toolargv).

The list is upstream's (docs/cann-flow.md): every part of the short SoCs
Ascend910B, Ascend910_93 and Ascend950 that ADK's is_support_super_kernel
accepts, named as CANN's platform names them. Core counts: each A3 part and
A2 variant has its A2 bin's (910B1/B2 and their relatives 24 cube / 48
vector cores, 910B3/B4 20/40; 9391/9392 are B1 bins, 9381/9382 B2, 9372 B3,
9362 B4); Ascend910_9391 (the conformance SoC) shows its 48 vector cores in
the dynamic AIV golden (block dim 48). Ascend950PR_9579: 28 cube and 56
vector cores, as its platform configuration reports them.
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


def _a2(soc: str, cube: int) -> Platform:
    return Platform(soc, "Ascend910B", "c220", 2201, cube, 2 * cube, True)


def _a3(soc: str, cube: int) -> Platform:
    return Platform(soc, "Ascend910_93", "c220", 2201, cube, 2 * cube, True)


_SOCS = {
    p.soc: p for p in (
        _a2("Ascend910B1", 24), _a2("Ascend910B2", 24), _a2("Ascend910B2C", 24),
        _a2("Ascend910B3", 20), _a2("Ascend910B4", 20), _a2("Ascend910B4-1", 20),
        _a3("Ascend910_9391", 24), _a3("Ascend910_9392", 24), _a3("Ascend910_9381", 24),
        _a3("Ascend910_9382", 24), _a3("Ascend910_9372", 20), _a3("Ascend910_9362", 20),
        Platform("Ascend950PR_9579", "Ascend950", "c310", 3510, 28, 56, False),
    )
}
DEFAULT_SOC = "Ascend910_9391"
KNOWN_SOCS = tuple(sorted(_SOCS))


def get_platform(soc: str | None = None) -> Platform:
    soc = DEFAULT_SOC if soc is None else soc
    if soc not in _SOCS:
        raise SkError("unknown SoC", where="--soc", value=soc, allowed="known SoCs: " + ", ".join(KNOWN_SOCS))
    return _SOCS[soc]
