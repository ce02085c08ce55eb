"""The race check on the examples (and the Ascend C and two-stream e2e models): built and run under
ThreadSanitizer, every example is clean and still bit-exact. That the check catches a missing barrier is
shown by sk/runtime's race_check_test and sk's elision twin tests, and here by the two-stream model
without the event that orders its streams."""

import json
import os

import pytest

from sk.tests.harness import MOE_MODEL, REPO, bazel_model, run_sk

# The MoE example as the model file Bazel writes from its BUILD (only under `tools/bazel test`), and
# the e2e model that is a model file itself. The quickstart's fused-vs-separate check is
# //examples/quickstart:compare_test.
STREAMS = "tests/e2e/models/streams/model.json"
MODELS = [MOE_MODEL, "tests/e2e/models/ascendc/model.json", STREAMS]


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


def _unordered_streams(tmp_path):
    """The two-stream model without the event that orders its streams."""
    path = os.path.join(REPO, STREAMS)
    doc = json.loads(open(path).read())
    for k in doc["kernels"].values():
        k["src"] = os.path.join(os.path.dirname(path), k["src"])
    for op in doc["ops"]:
        op.pop("send_events", None)
        op.pop("recv_events", None)
    unordered = tmp_path / "model.json"
    unordered.write_text(json.dumps(doc))
    return unordered


def test_two_streams_without_their_event_race(tmp_path):
    # c1 (cube, stream 0) writes c and v1 (vector, stream 1) reads it: only event 5 orders them.
    unordered = _unordered_streams(tmp_path)
    res = run_sk("run", "--model", unordered, "--tsan", "--repeat", "1", "--build-dir", tmp_path / "build",
                 "--prof-dir", tmp_path / "prof", cwd=REPO, timeout=900)
    assert "ThreadSanitizer: data race" in res.stderr, res.stderr[-4000:]
    assert res.returncode != 0

