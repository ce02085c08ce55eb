"""The kernel-type table and its Starlark copy."""

import pathlib

import pytest

from sk.base.errors import SkError
from sk.engine import kernel_types

BZL = pathlib.Path(__file__).resolve().parents[2] / "rules" / "private" / "kernel_types.bzl"


def test_starlark_copy_is_rendered_from_the_table():
    assert BZL.read_text() == kernel_types.render_bzl(), (
        "rules/private/kernel_types.bzl is stale: python -m sk.engine.kernel_types > rules/private/kernel_types.bzl")


def test_lookup_takes_both_spellings_and_names_the_allowed_types():
    assert kernel_types.lookup("AIV_ONLY", "x") is kernel_types.lookup("KERNEL_TYPE_AIV_ONLY", "x")
    with pytest.raises(SkError, match=r"unsupported kernel type.*AIC_ONLY") as e:
        kernel_types.lookup("VECTOR", "attr kernel_type")
    assert "attr kernel_type" in str(e.value).lower()


@pytest.mark.parametrize("kt", kernel_types.TABLE.values(), ids=lambda kt: kt.short)
def test_each_record_is_consistent(kt):
    # The sides an op has compiled code for are the sides its ration occupies.
    assert {s for s, _ in kt.arch_keys("c220")} == {s for s, n in zip((kernel_types.CUBE, kernel_types.VEC), kt.ration) if n}
    assert kt.mix == kt.name.startswith("KERNEL_TYPE_MIX_")
    assert kt.cores(3) == {"aic": 3 * kt.ration[0], "aiv": 3 * kt.ration[1]}


@pytest.mark.parametrize("chip", ["c220", "c310"])
def test_core_type_keys_follow_the_chip(chip):
    # Upstream's keys: "AiCore" for a non-MIX op, dav-<chip_version>-cube/vec for a MIX op's two sides.
    table = kernel_types.TABLE
    assert table["KERNEL_TYPE_AIV_ONLY"].arch_keys(chip) == (("vec", "AiCore"),)
    assert table["KERNEL_TYPE_AIC_ONLY"].arch_keys(chip) == (("cube", "AiCore"),)
    assert table["KERNEL_TYPE_MIX_AIV_1_0"].arch_keys(chip) == (("vec", f"dav-{chip}-vec"),)
    assert table["KERNEL_TYPE_MIX_AIC_1_0"].arch_keys(chip) == (("cube", f"dav-{chip}-cube"),)
    for name in ("KERNEL_TYPE_MIX_AIC_1_1", "KERNEL_TYPE_MIX_AIC_1_2"):
        assert table[name].arch_keys(chip) == (("cube", f"dav-{chip}-cube"), ("vec", f"dav-{chip}-vec"))
    assert kernel_types.allowed_keys(chip) == ("AiCore", f"dav-{chip}-cube", f"dav-{chip}-vec")
