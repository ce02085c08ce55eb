"""The tiling-sink example (examples/moe_dynamic) under ThreadSanitizer: the AI CPU tiling tasks and SDMA
prefetch tasks run as threads beside the SuperKernels and talk to them only through GM words; the race
checker sees every word, tiling buffer and routing output ordered, and the outputs stay bit-exact."""

import os

from sk.tests.harness import REPO, bazel_model, run_sk

MODEL = os.path.join("examples", "moe_dynamic", "_sk_model", "compare", "model.json")


def test_tiling_sink_example_is_race_free_under_tsan(tmp_path):
    res = run_sk("run", "--model", bazel_model(MODEL), "--tsan", "--repeat", "1", "--build-dir", tmp_path / "build",
                 "--prof-dir", tmp_path / "prof", cwd=REPO, timeout=900)
    assert "ThreadSanitizer" not in res.stderr, res.stderr[-4000:]
    assert res.returncode == 0, res.stderr[-4000:]
    assert "outputs identical" in res.stdout
