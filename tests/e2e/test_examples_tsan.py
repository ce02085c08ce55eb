"""The race check on the examples (and the Ascend C e2e model): built and run under ThreadSanitizer, every
example is clean and still bit-exact. (That the check catches a missing
barrier is shown by sk/runtime's race_check_test and sk's elision twin tests.)"""

import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODELS = ["examples/quickstart/model.json", "examples/moe/model.json", "tests/e2e/models/ascendc/model.json"]


@pytest.mark.parametrize("model", MODELS)
def test_example_is_race_free_under_tsan(model, tmp_path):
    path = os.path.join(REPO, model)
    assert os.path.exists(path), f"{model} must be in the runfiles (data of this test)"
    res = subprocess.run(
        [sys.executable, "-m", "sk", "run", "--model", path, "--tsan", "--repeat", "1",
         "--build-dir", str(tmp_path / "build"), "--prof-dir", str(tmp_path / "prof")],
        capture_output=True, text=True, cwd=REPO, timeout=900,
    )
    assert "ThreadSanitizer" not in res.stderr, res.stderr[-4000:]
    assert res.returncode == 0, res.stderr[-4000:]
    assert "outputs identical" in res.stdout
