"""`sk gen` against upstream's golden scenarios (see ../shared/conformance/README.md).

Data location: sk/tests/conformance_data.py. Absent data skips with where it looked.
Deliberate deviations are listed in sk/conformance/DIFFERENCES.md.
"""

import json
import pathlib

import pytest

from sk.render.conformance_compare import json_without_sha, missing_options, normalise
from sk.render.outputs import write_outputs
from sk.tests.conformance_data import DATA, SCENARIOS, WHY_ABSENT
from sk.tests.harness import run_sk
from sk.tests.scenario import plan_from

REPO = pathlib.Path(__file__).resolve().parents[2]


def _differences() -> set:
    """Scenarios listed as deliberate deviations (lines '- <scenario>: reason')."""
    path = REPO / "sk" / "conformance" / "DIFFERENCES.md"
    if not path.exists():
        return set()
    return {line[2:].split(":", 1)[0].strip() for line in path.read_text().splitlines()
            if line.startswith("- test_sk_")}


# Goldens amended where upstream's output is wrong and sk differs on purpose (sk/conformance/DIFFERENCES.md,
# "Goldens amended"): scenario -> [(the golden's text, sk's text)]. Each golden text must occur exactly once;
# the amended golden is then compared exactly, so nothing else may differ.
AMENDMENTS = {
    # The dynamic op is_inf calls SyncAll under feed-sync-all=1: upstream writes its feed configuration and
    # never calls it. sk calls it as upstream's generator calls a dynamic op it does not feed
    # (gen_feed_syncall_var_init_code's `false` path, then gen_kernel_call_block): feed off, the call
    # (after the two-stream SyncAll), the tiling lock's release.
    "test_sk_2_stream_2_ops_dynamic_send_recv_with_synal_all_1_aic_only": [(
        "\n"
        "    AscendC::g_superKernelAutoSyncAllSyncIdx = 0;\n"
        "    AscendC::g_superKernelAutoSyncAllEnable = true;\n"
        "    if ASCEND_IS_AIC {\n"
        "        AscendC::g_superKernelAutoSyncAllConfigGmAddr = AscendC::g_superKernelAutoSyncAllConfigGmBaseAddr"
        " + 0 * 64;\n"
        "    }\n"
        "    if ASCEND_IS_AIV {\n"
        "        AscendC::g_superKernelAutoSyncAllConfigGmAddr = AscendC::g_superKernelAutoSyncAllConfigGmBaseAddr"
        " + 2 * 64 + 0 * 64;\n"
        "    }\n"
        "    RecordProfiling(1, 0x8, true);\n"
        "    RecordProfiling(1, 0x8, false);\n",
        "    AscendC::g_superKernelAutoSyncAllEnable = false;\n"
        "    RecordProfiling(1, 0x8, true);\n"
        "        AscendC::SyncAll<false>(); // reason: double stream need syncall to wait switch func\n"
        "    call_func_of_is_inf__kernel0(1, aiv_func_addr, aiv_func_addr_split1, aiv_func_addr_split2,"
        " aiv_func_addr_split3, aic_func_addr, aic_func_addr_split1, aic_func_addr_split2, aic_func_addr_split3,"
        " dy_blockNum);\n"
        "    if ASCEND_IS_AIC {\n"
        "\n"
        "        if (AscendC::GetBlockIdx() == 0) {\n"
        "            __gm__ volatile uint64_t* lockAddr = reinterpret_cast<__gm__ uint64_t*>(param_base[6]);\n"
        "            *lockAddr = 0;\n"
        "            dcci(lockAddr, 0, 2);\n"
        "        }\n"
        "    }\n"
        "    RecordProfiling(1, 0x8, false);\n",
    )],
}


def golden_source(name: str) -> str:
    """The golden source of `name`, with its documented amendments applied."""
    text = (DATA / name / "expect_sk_code.cc").read_text()
    for theirs, ours in AMENDMENTS.get(name, []):
        assert text.count(theirs) == 1, f"{name}: the amended text no longer occurs once in the golden"
        text = text.replace(theirs, ours)
    return text


def test_amendments_are_documented():
    listed = (REPO / "sk" / "conformance" / "DIFFERENCES.md").read_text()
    for name in AMENDMENTS:
        assert f"`{name}`" in listed.split("## Goldens amended", 1)[1].split("\n## ", 1)[0], name


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    cache = {}

    def gen(name):
        if name not in cache:
            plan = plan_from(DATA / name / "kernel_infos.json")
            out = tmp_path_factory.mktemp(name)
            files = write_outputs(plan, str(out), str(out / "plan.json"))
            cache[name] = {k: pathlib.Path(v).read_text() for k, v in files.items()}
        return cache[name]
    return gen


def _skip_if_absent():
    if DATA is None:
        pytest.skip(WHY_ABSENT)


def test_scenarios_present():
    _skip_if_absent()
    index = json.loads((DATA / "INDEX.json").read_text())
    assert len(SCENARIOS) == index["scenario_count"] == 22


PARAMS = SCENARIOS or ["<no data>"]


@pytest.mark.parametrize("name", PARAMS)
def test_source_exact(name, generated):
    _skip_if_absent()
    if name in _differences():
        pytest.xfail("listed in sk/conformance/DIFFERENCES.md")
    golden = golden_source(name)
    ours = generated(name)["source"]
    assert ours.splitlines(True) == golden.splitlines(True)


@pytest.mark.parametrize("name", PARAMS)
def test_source_normalised(name, generated):
    _skip_if_absent()
    golden = normalise(golden_source(name))
    assert normalise(generated(name)["source"]) == golden


@pytest.mark.parametrize("name", PARAMS)
def test_kernel_json(name, generated):
    _skip_if_absent()
    golden = json.loads((DATA / name / "expect_compiled_json.json").read_text())
    ours = json.loads(generated(name)["kernel_json"])
    assert json_without_sha(ours) == json_without_sha(golden)


@pytest.mark.parametrize("name", PARAMS)
def test_compile_options(name, generated):
    _skip_if_absent()
    golden = json.loads((DATA / name / "expect_compile_options.json").read_text())["golden_options"]
    ours = json.loads(generated(name)["compile_options"])
    assert missing_options(golden, ours) == []
    # -DASCENDC_DUMP and -DASCENDC_DUMP=0 must never both appear.
    assert not {"-DASCENDC_DUMP", "-DASCENDC_DUMP=0"} <= set(ours)


@pytest.mark.parametrize("name", PARAMS)
def test_no_input_path_leaks(name, generated):
    _skip_if_absent()
    for kind, text in generated(name).items():
        assert str(DATA) not in text and "/" + name + "/" not in text, kind


def _cli_gen(scenario: pathlib.Path, out: pathlib.Path, cwd: pathlib.Path, seed: str):
    proc = run_sk("gen", "--kernel-infos", scenario / "kernel_infos.json", "--out-dir", out,
                  "--plan-out", out / "plan.json", cwd=cwd, env={"PYTHONHASHSEED": seed})
    assert proc.returncode == 0, proc.stderr
    return {p.name: p.read_bytes() for p in sorted(out.iterdir())}


@pytest.mark.parametrize("name", ["test_sk_2_stream_4_ops_remove_crossed_cub_to_vec",
                                  "test_sk_2_stream_2_ops_dynamic_send_recv_with_synal_all_1_aic_only"])
def test_cli_output_is_deterministic(name, tmp_path):
    _skip_if_absent()
    (tmp_path / "a").mkdir()
    (tmp_path / "b" / "deeper").mkdir(parents=True)
    first = _cli_gen(DATA / name, tmp_path / "out1", tmp_path / "a", "1")
    second = _cli_gen(DATA / name, tmp_path / "out2", tmp_path / "b" / "deeper", "4242")
    assert first == second
    for blob in first.values():
        assert str(tmp_path).encode() not in blob and str(DATA).encode() not in blob
