"""The SoC table: upstream's list of SuperKernel parts (docs/cann-flow.md) and what each implies."""

import pytest

from sk.base.errors import SkError
from sk.engine import platforms
from sk.engine.plan import validate

# Every part of the short SoCs ADK's is_support_super_kernel accepts, as CANN names them.
A2 = ("Ascend910B1", "Ascend910B2", "Ascend910B2C", "Ascend910B3", "Ascend910B4", "Ascend910B4-1")
A3 = ("Ascend910_9391", "Ascend910_9392", "Ascend910_9381", "Ascend910_9382", "Ascend910_9372", "Ascend910_9362")


@pytest.mark.parametrize("soc", A2 + A3)
def test_a2_a3_parts_are_c220_with_an_ffts_slot_and_two_vector_cores_per_cube(soc):
    p = platforms.get_platform(soc)
    assert (p.soc, p.short_soc) == (soc, "Ascend910B" if soc in A2 else "Ascend910_93")
    assert (p.chip, p.npu_arch, p.has_ffts) == ("c220", 2201, True)
    assert p.vector_core_cnt == 2 * p.ai_core_cnt and p.ai_core_cnt in (20, 24)
    validate.check_soc(p)  # the generator takes every one of them


def test_the_a2_bins_core_counts():
    # 9391/9392 are 910B1 bins, 9381/9382 B2, 9372 B3, 9362 B4 (and B2C / B4-1 their B2 / B4).
    counts = {soc: platforms.get_platform(soc).ai_core_cnt for soc in A2 + A3}
    assert [s for s, n in counts.items() if n == 20] == ["Ascend910B3", "Ascend910B4", "Ascend910B4-1",
                                                          "Ascend910_9372", "Ascend910_9362"]


def test_ascend950_is_c310_without_an_ffts_slot():
    p = platforms.get_platform("Ascend950PR_9579")
    assert (p.short_soc, p.chip, p.npu_arch, p.has_ffts) == ("Ascend950", "c310", 3510, False)
    assert (p.ai_core_cnt, p.vector_core_cnt) == (28, 56)


def test_the_table_is_upstreams_list_and_nothing_else():
    assert set(platforms.KNOWN_SOCS) == set(A2 + A3 + ("Ascend950PR_9579",))
    assert platforms.get_platform(None).soc == platforms.DEFAULT_SOC == "Ascend910_9391"


def test_an_unknown_part_names_the_known_ones():
    with pytest.raises(SkError, match="unknown SoC") as err:
        platforms.get_platform("Ascend910B5")
    assert "Ascend910B4-1" in str(err.value) and "Ascend950PR_9579" in str(err.value)


def test_c310_sk_compile_options_add_upstreams_no_dcache_flush(tmp_path):
    from sk.tests.scenario import scenario_plan

    # After the attr-check flag, as compile_super_kernel adds it.
    flags = scenario_plan(tmp_path / "c310", [("a", {}, {})], soc="Ascend950PR_9579").compile_options
    at = flags.index("--cce-disable-kernel-global-attr-check")
    assert flags[at + 1] == "--cce-no-dcache-flush"
    assert "--cce-no-dcache-flush" not in scenario_plan(tmp_path / "c220", [("a", {}, {})]).compile_options
