"""exec_log: parsing Bazel 7's JSON execution log and judging cache hits."""

import pytest

import exec_log


def spawn_json(mnemonic, runner, hit, outputs, cacheable=True, label="//examples/quickstart:sk"):
    """One SpawnExec object as Bazel 7.7.1 writes it (fields trimmed to those the harness reads, plus noise)."""
    outs = ",\n".join(
        '    {"path": "%s", "digest": {"hash": "%s", "sizeBytes": "3", "hashFunctionName": "SHA-256"},'
        ' "isTool": false, "symlinkTargetPath": ""}' % (p, h) for p, h in outputs)
    return """{
  "commandArgs": ["bazel-out/k8-opt-exec-ST-d57f47055a04/bin/sk/sk", "subkernel"],
  "environmentVariables": [{"name": "PYTHONHASHSEED", "value": "0"}],
  "platform": {"properties": []},
  "remotable": %(c)s,
  "cacheable": %(c)s,
  "mnemonic": "%(m)s",
  "actualOutputs": [
%(outs)s
  ],
  "runner": "%(r)s",
  "cacheHit": %(hit)s,
  "status": "",
  "exitCode": 0,
  "remoteCacheable": %(c)s,
  "targetLabel": "%(label)s",
  "metrics": {"startTime": "2026-11-25T22:06:20.964Z"}
}
""" % {"m": mnemonic, "r": runner, "hit": "true" if hit else "false", "outs": outs,
       "c": "true" if cacheable else "false", "label": label}


LOG = "".join([
    spawn_json("SkCompile", "remote cache hit", True, [("bazel-out/k8/bin/a.o", "aa")]),
    spawn_json("SkGen", "remote cache hit", True, [("bazel-out/k8/bin/g_kernel.cpp", "bb"), ("bazel-out/k8/bin/g.json", "cc")]),
    spawn_json("SkLink", "linux-sandbox", False, [("bazel-out/k8/bin/sk.o", "dd")]),
    spawn_json("CppCompile", "linux-sandbox", False, [("bazel-out/k8/bin/x.o", "ee")]),
])


def test_parses_concatenated_objects_in_order():
    spawns = exec_log.parse_spawns(LOG)
    assert [s.mnemonic for s in spawns] == ["SkCompile", "SkGen", "SkLink", "CppCompile"]
    assert spawns[1].outputs == (("bazel-out/k8/bin/g.json", "cc"), ("bazel-out/k8/bin/g_kernel.cpp", "bb"))
    assert spawns[0].cache_hit and not spawns[2].cache_hit
    assert spawns[0].target == "//examples/quickstart:sk"


def test_verdict_counts_hits_and_names_local_executions():
    verdict = exec_log.CacheVerdict(exec_log.parse_spawns(LOG), ["SkCompile", "SkGen", "SkLink"])
    assert (verdict.hits, verdict.total) == (2, 3)
    assert verdict.share == pytest.approx(2 / 3)
    assert [o.mnemonic for o in verdict.offenders] == ["SkLink"]
    assert "linux-sandbox" in verdict.describe_offender(verdict.offenders[0])
    assert verdict.table() == "SkCompile 1/1, SkGen 1/1, SkLink 0/1"


def test_uncacheable_spawn_is_an_offender_with_the_reason():
    log = spawn_json("SkReport", "local", False, [("r.txt", "ff")], cacheable=False)
    verdict = exec_log.CacheVerdict(exec_log.parse_spawns(log), ["SkReport"])
    assert verdict.hits == 0 and len(verdict.offenders) == 1
    assert "not cacheable" in verdict.describe_offender(verdict.offenders[0])


def test_missing_mnemonics_guard_against_vacuous_checks():
    spawns = exec_log.parse_spawns(LOG)
    assert exec_log.missing_mnemonics(spawns, ["SkGen", "SkWrap", "SkReport"]) == ["SkReport", "SkWrap"]
    assert exec_log.CacheVerdict(spawns, ["SkWrap"]).total == 0


def test_output_digests_and_runner_counts():
    spawns = exec_log.parse_spawns(LOG)
    assert exec_log.output_digests(spawns, ["SkGen", "SkLink"]) == {
        "bazel-out/k8/bin/g.json": "cc", "bazel-out/k8/bin/g_kernel.cpp": "bb", "bazel-out/k8/bin/sk.o": "dd"}
    assert exec_log.runner_counts(spawns, ["SkLink", "SkWrap"]) == {"SkLink": {"linux-sandbox": 1}, "SkWrap": {}}


@pytest.mark.parametrize("text", ['[{"mnemonic": "SkGen"}]', '{"runner": "local"}', '{"mnemonic": "SkGen"} {'])
def test_rejects_what_bazel_does_not_write(text):
    with pytest.raises(exec_log.ExecLogError):
        exec_log.parse_spawns(text, "x.json")


def test_empty_log_has_no_spawns():
    assert exec_log.parse_spawns("  \n") == []
