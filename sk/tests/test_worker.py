"""sk as a Bazel persistent worker: the JSON protocol, and the same outputs as a fresh `python -m sk`."""

import io
import json
import os

import pytest

from sk.cli import worker
from sk.tests.harness import run_sk


def test_requests_are_read_however_they_are_laid_out():
    text = '{"arguments": ["version"], "requestId": 1}\n{\n  "arguments": [\n  "options"],\n "requestId": 2}\n\n'
    assert [r["requestId"] for r in worker._requests(io.StringIO(text))] == [1, 2]


def test_a_stream_that_is_not_work_requests_ends_the_worker_with_a_clear_line(capsys):
    for bad, says in (('{"arguments": ["version"]}\n{"arguments": [nope]}\n', "is not JSON"),
                      ('["version"]\n', "must be a JSON object"), ('{"arguments": [\n', "incomplete")):
        with pytest.raises(worker.ProtocolError, match=says):
            list(worker._requests(io.StringIO(bad)))
    read, write = os.pipe()
    assert worker.serve(io.StringIO('{"arguments": [nope]}\n'), stdout_fd=write) == 1
    os.close(read)
    assert "is not JSON" in capsys.readouterr().err


def test_a_request_gets_the_commands_output_and_exit_status(tmp_path):
    ok = worker.handle({"arguments": ["options", "split-mode=2"], "requestId": 7})
    assert ok["exitCode"] == 0 and ok["requestId"] == 7 and '"split-mode": 2' in ok["output"]
    bad = worker.handle({"arguments": ["options", "split-mode=99"]})
    assert bad["exitCode"] == 2 and bad["requestId"] == 0 and "split-mode" in bad["output"]
    usage = worker.handle({"arguments": ["no-such-command"]})
    assert usage["exitCode"] == 2 and "invalid choice" in usage["output"]
    cwd = os.getcwd()
    assert worker.handle({"arguments": ["version"], "sandboxDir": str(tmp_path)})["exitCode"] == 0
    assert os.getcwd() == cwd  # back where it was after a sandboxed request


def test_the_worker_process_speaks_the_protocol_and_writes_what_sk_writes(tmp_path, split_infos):
    infos = split_infos
    fresh = tmp_path / "fresh"
    run_sk("gen", "--kernel-infos", infos, "--out-dir", fresh, "--plan-out", fresh / "plan.json", check=True)
    sandbox = tmp_path / "sandbox"
    sandbox.mkdir()
    params = sandbox / "gen.params"  # Bazel hands a worker the param file's lines as its arguments
    params.write_text("\n".join(["gen", "--kernel-infos", infos, "--out-dir", "out", "--plan-out", "out/plan.json"]))
    requests = [
        {"arguments": ["gen", "--kernel-infos", infos, "--out-dir", "out", "--plan-out", "out/plan.json"],
         "requestId": 1, "sandboxDir": str(sandbox)},
        {"arguments": ["options", "stream-funsion=1"], "requestId": 2},
        {"arguments": ["@gen.params"], "requestId": 3, "sandboxDir": str(sandbox)},
    ]
    proc = run_sk("--persistent_worker", cwd=tmp_path, input="".join(json.dumps(r) + "\n" for r in requests),
                  timeout=120)
    assert proc.returncode == 0, proc.stderr
    responses = [json.loads(line) for line in proc.stdout.splitlines()]  # nothing else on the protocol stream
    assert [(r["requestId"], r["exitCode"]) for r in responses] == [(1, 0), (2, 2), (3, 0)]
    assert "did you mean 'stream-fusion'" in responses[1]["output"]
    for name in sorted(os.listdir(fresh)):
        assert (sandbox / "out" / name).read_bytes() == (fresh / name).read_bytes(), name


@pytest.mark.parametrize("request_, says", [
    ({"arguments": "version", "requestId": 3}, "'arguments' must be a list of strings"),
    ({"arguments": ["version", 7], "requestId": 3}, "'arguments' must be a list of strings"),
    ({"arguments": ["version"], "requestId": 3, "sandboxDir": "/no/such/sandbox"}, "is not a directory"),
    ({"arguments": ["version"], "requestId": 3, "sandboxDir": 5}, "'sandboxDir' must be a string"),
])
def test_a_bad_request_gets_an_error_response_and_the_worker_lives_on(request_, says):
    response = worker.handle(request_)
    assert response["exitCode"] == 2 and response["requestId"] == 3 and says in response["output"], response
    assert worker.handle({"arguments": ["version"], "requestId": 4})["exitCode"] == 0


def test_the_worker_process_answers_bad_requests_and_goes_on(tmp_path):
    requests = [{"arguments": "version", "requestId": 1},
                {"arguments": ["version"], "requestId": 2, "sandboxDir": str(tmp_path / "missing")},
                {"arguments": ["version"], "requestId": 3}]
    proc = run_sk("--persistent_worker", cwd=tmp_path, input="".join(json.dumps(r) + "\n" for r in requests),
                  timeout=120)
    assert proc.returncode == 0, proc.stderr
    responses = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [(r["requestId"], r["exitCode"]) for r in responses] == [(1, 2), (2, 2), (3, 0)]

