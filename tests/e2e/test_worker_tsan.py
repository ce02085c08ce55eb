"""`sk run --tsan` in sk's persistent worker: answered, and the worker lives on (issue 24).

`run --tsan` once re-ran itself by exec, which in sk's worker replaced the worker process and lost
the protocol pipe. It runs a child now. Its own target: a ThreadSanitizer build takes minutes on a
busy machine, and the examples' race check (test_examples_tsan.py) uses what its time allows.
"""

import json
import os

from sk.tests.harness import REPO, run_sk

STREAMS = os.path.join(REPO, "tests", "e2e", "models", "streams", "model.json")


def test_run_tsan_in_the_persistent_worker_answers_and_the_worker_lives_on(tmp_path):
    assert os.path.exists(STREAMS), "tests/e2e/models/streams must be in the runfiles (data of this test)"
    requests = [
        {"arguments": ["run", "--model", STREAMS, "--tsan", "--repeat", "1", "--build-dir", str(tmp_path / "build"),
                       "--prof-dir", str(tmp_path / "prof")], "requestId": 1},
        {"arguments": ["version"], "requestId": 2},
    ]
    proc = run_sk("--persistent_worker", cwd=REPO, input="".join(json.dumps(r) + "\n" for r in requests),
                  timeout=900)
    assert proc.returncode == 0, proc.stderr[-4000:]
    responses = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [(r["requestId"], r["exitCode"]) for r in responses] == [(1, 0), (2, 0)], proc.stdout[-4000:]
    assert "outputs identical" in responses[0]["output"] and "ThreadSanitizer" not in responses[0]["output"]
    assert responses[1]["output"].startswith("sk=")
