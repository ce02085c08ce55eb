"""Fixtures the sk/tests modules share. Helpers to import live beside it: scenario.py (fusion
inputs and their plan), harness.py (`python -m sk` in a child process, host-tool checks)."""

import pytest

from sk.tests.harness import HOST_TOOLS
from sk.tests.scenario import plan_from, write_scenario

# An AIC-only op then a MIX 1:2 op, split-mode=4: both core sides, split copies and a MIX entry.
SPLIT_OPS = [("a", {"kernel_type": "KERNEL_TYPE_AIC_ONLY"}, {}), ("b", {"kernel_type": "KERNEL_TYPE_MIX_AIC_1_2"}, {})]


@pytest.fixture
def split_infos(tmp_path):
    """kernel_infos.json of SPLIT_OPS (split-mode=4), written under tmp_path/in."""
    return write_scenario(tmp_path / "in", SPLIT_OPS, options="split-mode=4")


@pytest.fixture
def split_plan(split_infos):
    """The plan `sk gen` builds from split_infos."""
    return plan_from(split_infos)


@pytest.fixture(scope="session")
def host_tools():
    """{"g++", "ld", "objcopy"}: their paths; the test is skipped where one is missing."""
    if not all(HOST_TOOLS.values()):
        pytest.skip("needs g++, ld and objcopy on PATH")
    return HOST_TOOLS


@pytest.fixture(scope="session")
def twin_runtime():
    """The CPU-twin runtime loaded into this process (one per process), built once per build dir."""
    from sk.twin import binding as twin

    return twin.Twin(twin.build_runtime(twin.default_build_dir()))
