"""The race check (issue 4 item 6): with runtime and kernels built under
ThreadSanitizer, a fused kernel whose inter-op barrier was removed is
reported as a data race, and the same kernel with its barrier (ffts or early
start) is clean."""

from pathlib import Path
import os
import subprocess
import sys

import pytest

from sk.tests.harness import child_env
from sk.twin import binding as twin

RACE = Path(os.path.abspath(__file__)).parent / "race"


@pytest.fixture(scope="module")
def tsan_runtime():
    return twin.build_runtime(twin.default_build_dir(), tsan=True)


def run_under_tsan(runtime_lib: Path, barrier: int, tmp_path: Path) -> subprocess.CompletedProcess:
    kernel_lib = twin.build_kernel_library(
        [RACE / "producer_consumer.cc"], tmp_path / f"pc_{barrier}.so", defines=[f"BARRIER={barrier}"], tsan=True
    )
    env = child_env(base=twin.tsan_env())
    return subprocess.run(
        [sys.executable, str(RACE / "run_race.py"), str(runtime_lib), str(kernel_lib)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, timeout=300,
    )


def test_missing_barrier_is_reported_as_a_data_race(tsan_runtime, tmp_path):
    proc = run_under_tsan(tsan_runtime, 0, tmp_path)
    assert "launched ok" in proc.stdout, proc.stderr[-4000:]
    assert "WARNING: ThreadSanitizer: data race" in proc.stderr
    assert "consumer_middle" in proc.stderr and "producer_middle" in proc.stderr


@pytest.mark.parametrize("barrier", [1, 2], ids=["ffts_barrier", "early_start"])
def test_kernel_with_its_barrier_is_clean(tsan_runtime, tmp_path, barrier):
    proc = run_under_tsan(tsan_runtime, barrier, tmp_path)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "launched ok" in proc.stdout
    assert "ThreadSanitizer" not in proc.stderr, proc.stderr[-4000:]


def test_tsan_runtime_refuses_to_load_without_libtsan(tsan_runtime):
    if "libtsan" in Path("/proc/self/maps").read_text():
        pytest.skip("this process already has libtsan")
    with pytest.raises(twin.SkError, match="needs libtsan loaded first"):
        twin.Twin(tsan_runtime)
