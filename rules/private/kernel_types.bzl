# Generated from sk/engine/kernel_types.py (python -m sk.engine.kernel_types > this file);
# //sk:kernel_types_test fails when the two differ.
"""Kernel types a sk_sub_kernel may declare (KERNEL_TYPE_ without the prefix)."""

KERNEL_TYPES = [
    "AIV_ONLY",
    "AIC_ONLY",
    "MIX_AIV_1_0",
    "MIX_AIC_1_0",
    "MIX_AIC_1_1",
    "MIX_AIC_1_2",
]
