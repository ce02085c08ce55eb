"""The race check on the examples (and the Ascend C e2e model): built and run under ThreadSanitizer, every
example is clean and still bit-exact. (That the check catches a missing
barrier is shown by sk/runtime's race_check_test and sk's elision twin tests.)"""

import os

import pytest

from sk.tests.harness import REPO, run_sk

# The examples that are also self-contained model files (the quickstart is declared in BUILD only;
# its fused-vs-separate check is //examples/quickstart:compare_test).
MODELS = ["examples/moe/model.json", "tests/e2e/models/ascendc/model.json"]


@pytest.mark.parametrize("model", MODELS)
def test_example_is_race_free_under_tsan(model, tmp_path):
    path = os.path.join(REPO, model)
    assert os.path.exists(path), f"{model} must be in the runfiles (data of this test)"
    res = run_sk("run", "--model", path, "--tsan", "--repeat", "1", "--build-dir", tmp_path / "build",
                 "--prof-dir", tmp_path / "prof", cwd=REPO, timeout=900)
    assert "ThreadSanitizer" not in res.stderr, res.stderr[-4000:]
    assert res.returncode == 0, res.stderr[-4000:]
    assert "outputs identical" in res.stdout
