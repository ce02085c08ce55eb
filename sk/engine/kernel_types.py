"""The Ascend C kernel types: one record per type, read by every module that needs a kernel-type fact.

Facts §1.2 (KernelType integers), §2.2 (sub-op JSON keys), §3.1 (task ration and
the summary rules that consume it), §7 (kernel JSON coreType/magic). The
keys a sub-op JSON names a type's code by follow the chip (upstream's
`dav-{chip_version}-cube/vec` for a MIX type, `AiCore` otherwise), so they are
derived from the platform's chip here (KernelType.arch_keys), not tabled. The
Starlark copy (rules/private/kernel_types.bzl) is rendered from this table and
checked against it by //sk:kernel_types_test.
"""

from dataclasses import dataclass

from sk.base.errors import SkError

CUBE, VEC = "cube", "vec"
PREFIX = "KERNEL_TYPE_"


@dataclass(frozen=True)
class KernelType:
    name: str                 # KERNEL_TYPE_...
    value: int                # upstream's KernelType integer, printed in generated code
    ration: tuple[int, int]   # (cube cores, vector cores) per block
    core_type: str            # kernel JSON core_type
    json_core_type: str       # kernel JSON coreType
    magic: str                # kernel JSON magic
    runtime_core_type: str    # the runtime's "Core Type" column of op statistics
    mix: bool                 # a MIX type: intercoreSync, MIX entry macros

    @property
    def short(self) -> str:
        return self.name[len(PREFIX):]

    @property
    def sides(self) -> tuple[str, ...]:
        """The core sides an op of this type has code for (those its ration occupies), cube first."""
        return tuple(side for side, n in zip((CUBE, VEC), self.ration) if n)

    def arch_keys(self, chip: str) -> tuple[tuple[str, str], ...]:
        """((core side, key in sub_operator_kernel_name), ...) for a SoC of `chip` (sk.engine.platforms)."""
        return tuple((side, mix_key(chip, side) if self.mix else AI_CORE_KEY) for side in self.sides)

    @property
    def cube_only(self) -> bool:
        return self.ration[1] == 0

    @property
    def vector_only(self) -> bool:
        return self.ration[0] == 0

    @property
    def task_ration(self) -> str:
        return f"{self.ration[0]}:{self.ration[1]}"

    def cores(self, block_dim: int) -> dict[str, int]:
        """Cores of each side an op of this type occupies when launched on block_dim blocks."""
        return {"aic": block_dim * self.ration[0], "aiv": block_dim * self.ration[1]}


# Upstream reads a non-MIX op's code under "AiCore" and a MIX op's under f"dav-{chip_version}-cube/vec"
# (GA super_kernel_sub_op_infos.py, ADK super_kernel_sub_op_compile.py split_sub_kernel_objs).
AI_CORE_KEY = "AiCore"
MIX_KEY_PREFIX = "dav-"


def mix_key(chip: str, side: str) -> str:
    """The key of a MIX op's `side` code on a SoC of `chip`: dav-c220-cube, dav-c310-vec, ..."""
    return f"{MIX_KEY_PREFIX}{chip}-{side}"


def allowed_keys(chip: str) -> tuple[str, ...]:
    """Every core-type key a sub-op JSON may hold for a SoC of `chip`."""
    return (AI_CORE_KEY, mix_key(chip, CUBE), mix_key(chip, VEC))


TABLE: dict[str, KernelType] = {kt.name: kt for kt in (
    KernelType("KERNEL_TYPE_AIV_ONLY", 0, (0, 1), "AIV", "VectorCore",
               "RT_DEV_BINARY_MAGIC_ELF_AIVEC", "AI_VECTOR_CORE", False),
    KernelType("KERNEL_TYPE_AIC_ONLY", 1, (1, 0), "AIC", "AiCore",
               "RT_DEV_BINARY_MAGIC_ELF_AICUBE", "AI_CORE", False),
    KernelType("KERNEL_TYPE_MIX_AIV_1_0", 4, (0, 1), "MIX_AIV", "MIX",
               "RT_DEV_BINARY_MAGIC_ELF", "MIX_AIV", True),
    KernelType("KERNEL_TYPE_MIX_AIC_1_0", 5, (1, 0), "MIX_AIC", "MIX",
               "RT_DEV_BINARY_MAGIC_ELF", "MIX_AIC", True),
    KernelType("KERNEL_TYPE_MIX_AIC_1_1", 6, (1, 1), "MIX_AIC", "MIX",
               "RT_DEV_BINARY_MAGIC_ELF", "MIX_AIC", True),
    KernelType("KERNEL_TYPE_MIX_AIC_1_2", 7, (1, 2), "MIX_AIC", "MIX",
               "RT_DEV_BINARY_MAGIC_ELF", "MIX_AIC", True),
)}
NAMES = tuple(TABLE)


def lookup(value: str, where: str) -> KernelType:
    """The record for KERNEL_TYPE_X or X; SkError naming `where` and the allowed names otherwise."""
    kt = TABLE.get(value) if isinstance(value, str) else None
    if kt is None and isinstance(value, str):
        kt = TABLE.get(PREFIX + value)
    if kt is None:
        raise SkError("unsupported kernel type", where=where, value=value,
                      allowed="use one of: " + ", ".join(NAMES))
    return kt


def render_bzl() -> str:
    """rules/private/kernel_types.bzl: the names Starlark validates BUILD attributes against."""
    names = "".join(f'    "{kt.short}",\n' for kt in TABLE.values())
    return ("# Generated from sk/engine/kernel_types.py (python -m sk.engine.kernel_types > this file);\n"
            "# //sk:kernel_types_test fails when the two differ.\n"
            '"""Kernel types a sk_sub_kernel may declare (KERNEL_TYPE_ without the prefix)."""\n\n'
            f"KERNEL_TYPES = [\n{names}]\n")


if __name__ == "__main__":
    print(render_bzl(), end="")
