"""The race check on the examples (and the Ascend C e2e model): built and run under ThreadSanitizer, every
example is clean and still bit-exact. (That the check catches a missing
barrier is shown by sk/runtime's race_check_test and sk's elision twin tests.)"""

import os

import pytest

from sk.tests.harness import MOE_MODEL, REPO, bazel_model, run_sk

# The MoE example as the model file Bazel writes from its BUILD (only under `tools/bazel test`), and
# the e2e model that is a model file itself. The quickstart's fused-vs-separate check is
# //examples/quickstart:compare_test.
MODELS = [MOE_MODEL, "tests/e2e/models/ascendc/model.json"]


@pytest.mark.parametrize("model", MODELS)
def test_example_is_race_free_under_tsan(model, tmp_path):
    if model == MOE_MODEL:
        path = bazel_model(model)
    else:
        path = os.path.join(REPO, model)
        assert os.path.exists(path), f"{model} must be in the runfiles (data of this test)"
    res = run_sk("run", "--model", path, "--tsan", "--repeat", "1", "--build-dir", tmp_path / "build",
                 "--prof-dir", tmp_path / "prof", cwd=REPO, timeout=900)
    assert "ThreadSanitizer" not in res.stderr, res.stderr[-4000:]
    assert res.returncode == 0, res.stderr[-4000:]
    assert "outputs identical" in res.stdout
