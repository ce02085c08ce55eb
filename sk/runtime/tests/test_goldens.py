"""Every upstream golden SuperKernel source compiles unchanged against the
twin's kernel_operator.h, and runs on the twin with its golden topology:
no deadlock, no leftover flag, every sub-kernel called exactly on the cores
its guard selects, split copies chosen by core id."""

from __future__ import annotations

import json
import os
from pathlib import Path
import re
import subprocess

import pytest

from sk.toolflow import toolargv
from sk.twin import binding as twin

REPO = Path(__file__).resolve().parents[3]
NUM_PARAMS = 32
RECORD_SLOT = NUM_PARAMS - 1
MAX_WORKERS = 256
BUFFER_BYTES = 64 * 1024


def conformance_dir() -> tuple[Path | None, str]:
    """The conformance data, or None and why it is absent."""
    explicit = os.environ.get("SK_CONFORMANCE_DIR")
    if explicit:
        return Path(explicit), ""
    marker = os.environ.get("SK_CONFORMANCE_MARKER")
    if marker:
        reason = Path(marker).read_text().strip()
        if reason:
            return None, reason
        return Path(marker).parent / "data", ""
    beside = REPO.parent / "shared" / "conformance"
    if beside.is_dir():
        return beside, ""
    return None, f"upstream conformance data not found at {beside}; set SK_CONFORMANCE_DIR"


DATA, WHY_ABSENT = conformance_dir()
SCENARIOS = sorted(p.parent.name for p in DATA.glob("*/expect_sk_code.cc")) if DATA else []

pytestmark = pytest.mark.skipif(DATA is None, reason=WHY_ABSENT or "no conformance data")

DECL = re.compile(r'^extern "C"\s+__aicore__ void (\w+)\(uint64_t args_offset\);', re.M)
ENTRY = re.compile(r'^extern "C"\s+__global__ .*void (\w+)\(void\)', re.M)
CORE = re.compile(r"if ASCEND_IS_(AIC|AIV)")
GUARD = re.compile(r"if \((get_block_idx|AscendC::GetBlockIdx)\(\) < (\d+)\)")
CALL = re.compile(r"^\s*(\w+)\((\d+)\);\s*$")
SPLIT = re.compile(r"^(\w+)_split(\d+)$")


def golden_options(scenario: Path) -> list[str]:
    options = json.loads((scenario / "expect_compile_options.json").read_text())
    return [o for o in options.get("golden_options", []) if o.startswith("-D")]


def harness(functions: list[str]) -> str:
    """Definitions of the sub-kernels a golden declares: each records which
    worker called it with which offset, in the table at param_base[31]."""
    lines = ['#include "kernel_operator.h"', "namespace {",
             "void Record(int id, uint64_t offset) {",
             f"  auto* table = reinterpret_cast<uint64_t*>(((GM_ADDR*)get_para_base())[{RECORD_SLOT}]);",
             f"  uint64_t* slot = table + (id * {MAX_WORKERS} + sk_twin_worker_index()) * 2;",
             "  slot[0] += 1;",
             "  slot[1] = offset;",
             "}", "}  // namespace"]
    for i, name in enumerate(functions):
        lines.append(f'extern "C" void {name}(uint64_t args_offset) {{ Record({i}, args_offset); }}')
    return "\n".join(lines) + "\n"


def expected_calls(source: str, families: set[str]) -> dict[str, list[tuple[str, str, int, int]]]:
    """family -> [(core type, guard, bound, offset)] from the golden's call blocks."""
    found: dict[str, list[tuple[str, str, int, int]]] = {}
    core = guard = None
    bound = 0
    for line in source.splitlines():
        if m := CORE.search(line):
            core = m.group(1)
        if m := GUARD.search(line):
            guard, bound = m.group(1), int(m.group(2))
        if (m := CALL.match(line)) and m.group(1) in families:
            site = (core, guard, bound, int(m.group(2)))
            if site not in found.setdefault(m.group(1), []):
                found[m.group(1)].append(site)
    return found


def dynamic_calls(source: str) -> tuple[dict[int, int], dict[str, list[tuple[str, str, int, int]]]]:
    """For a golden with a dynamic op: the GM words its switch reads (slot ->
    value that selects the golden's tiling key) and the sites its call_func
    reaches through function pointers."""
    switch = re.search(r"switch_func_of_\w+\(param_base\[(\d+)\], param_base\[(\d+)\], param_base\[(\d+)\]", source)
    if switch is None:
        return {}, {}
    assert len(re.findall(r"^static __aicore__ void switch_func_of_", source, re.M)) == 1
    key = int(re.search(r"\*tilingKeyAddr == (\d+)", source).group(1))
    blocks = int(re.search(r"uint64_t numBlocks = (\d+);", source).group(1))
    kernel_type = int(re.search(r"dy_block_num = \(\(uint64_t\)(\d+)\) << 32", source).group(1))
    offsets = [int(o) for o in re.findall(r"^\s*call_func_of_\w+\((\d+),", source, re.M)]
    cores = {0: [("AIV", "AscendC::GetBlockIdx")], 4: [("AIV", "AscendC::GetBlockIdx")],
             1: [("AIC", "get_block_idx")], 5: [("AIC", "get_block_idx")],
             6: [("AIC", "get_block_idx"), ("AIV", "get_block_idx")],
             7: [("AIC", "get_block_idx"), ("AIV", "get_block_idx")]}[kernel_type]
    sites: dict[str, list[tuple[str, str, int, int]]] = {}
    for family in set(re.findall(r"_func_addr = \(uint64_t\)\((\w+)\);", source)):
        if SPLIT.match(family) is None:
            sites[family] = [(core, guard, blocks, off) for off in offsets for core, guard in cores]
    words = {int(switch.group(1)): key, int(switch.group(2)): blocks, int(switch.group(3)): 1}
    return words, sites


def worker_identity(label: str, aiv_ration: int) -> tuple[str, int, int]:
    """(type, block idx, AscendC::GetBlockIdx) of a worker label."""
    kind, _, where = label.partition(" ")
    block, _, sub = where.partition(".")
    block_idx = int(block)
    if kind == "AIC":
        return kind, block_idx, block_idx
    return kind, block_idx, block_idx * aiv_ration + int(sub or 0)


@pytest.mark.parametrize("name", SCENARIOS)
def test_golden_compiles_and_runs(name, runtime, tmp_path):
    scenario = DATA / name
    source = (scenario / "expect_sk_code.cc").read_text()
    meta = json.loads((scenario / "expect_compiled_json.json").read_text())
    block_dim = int(meta["blockDim"])
    aic, aiv = twin.parse_ration(meta["taskRation"])
    functions = list(dict.fromkeys(DECL.findall(source)))
    entry = ENTRY.search(source).group(1)

    (tmp_path / "golden.cc").write_text(source)
    (tmp_path / "harness.cc").write_text(harness(functions))
    compile_log = tmp_path / "compile.log"
    argv = toolargv.twin_compile_argv(twin.compiler(), str(tmp_path / "golden.cc"), str(tmp_path / "golden.o"),
                                      include_dir=str(twin.INCLUDE_DIR), extra=golden_options(scenario))
    result = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    compile_log.write_text(result.stdout)
    assert result.returncode == 0, result.stdout
    # Upstream's own code warns (unused variables); the twin's headers must not.
    assert "kernel_operator.h" not in result.stdout and "sk_twin.h" not in result.stdout, result.stdout

    lib = twin.build_kernel_library([tmp_path / "golden.o", tmp_path / "harness.cc"], tmp_path / "golden.so")
    kernels = runtime.load_kernels(lib)

    buffers = [runtime.alloc(BUFFER_BYTES) for _ in range(NUM_PARAMS)]
    for buf in buffers:
        buf.write((1).to_bytes(8, "little"))  # wait locks released, tiling key 1
    words, dynamic_sites = dynamic_calls(source)
    for slot, value in words.items():
        buffers[slot].write(value.to_bytes(8, "little"))
    record = buffers[RECORD_SLOT]
    record.write(bytes(BUFFER_BYTES))
    spec = twin.LaunchSpec(name=entry, entry=runtime.symbol(kernels, entry), block_dim=block_dim,
                           ration=(aic, aiv), params=buffers, timeout_ms=20000)
    launched = runtime.launch(spec, check=False)
    assert launched.ok, launched.error
    assert launched.residual == ""

    uses_preload = re.search(r"\bpreload\(|PreLoad\(", source) is not None
    assert (launched.counters["preload"] > 0) == uses_preload

    table = record.read()
    calls: dict[str, dict[int, tuple[int, int]]] = {}
    for fid, fname in enumerate(functions):
        for worker in range(len(launched.workers)):
            off = (fid * MAX_WORKERS + worker) * 16
            count = int.from_bytes(table[off:off + 8], "little")
            if count:
                calls.setdefault(fname, {})[worker] = (count, int.from_bytes(table[off + 8:off + 16], "little"))

    copies: dict[str, list[str]] = {}
    for fname in functions:
        m = SPLIT.match(fname)
        copies.setdefault(m.group(1) if m else fname, []).append(fname)
    expected = expected_calls(source, set(functions))
    expected.update(dynamic_sites)
    for family, members in copies.items():
        split = len(members)
        sites = sorted({site for f in members for site in expected.get(f, [])}, key=str)
        want: dict[int, int] = {}  # worker -> number of call sites that select it
        offsets = {site[3] for site in sites}
        for worker, label in enumerate(launched.workers):
            kind, block_idx, logical = worker_identity(label, aiv)
            for core, guard, bound, _ in sites:
                idx = block_idx if guard == "get_block_idx" else logical
                if kind == core and idx < bound:
                    want[worker] = want.get(worker, 0) + 1
        got: dict[int, str] = {}
        for fname in members:
            for worker, (count, offset) in calls.get(fname, {}).items():
                assert count == want[worker], f"{fname} ran {count} times on {launched.workers[worker]}"
                assert offset in offsets, f"{fname} got args_offset {offset}, golden passes {offsets}"
                assert worker not in got, f"{launched.workers[worker]} ran {got.get(worker)} and {fname}"
                got[worker] = fname
        assert set(got) == set(want), f"{family}: called on {sorted(got)}, guards select {sorted(want)}"
        # Split copies: copy k runs where get_coreid() % split == k (core id = rank here).
        for worker, fname in got.items():
            m = SPLIT.match(fname)
            copy = int(m.group(2)) if m else 0
            _, _, logical = worker_identity(launched.workers[worker], aiv)
            assert copy == logical % split, f"{launched.workers[worker]} ran {fname}"
    for buf in buffers:
        buf.free()


def test_all_scenarios_are_present():
    assert len(SCENARIOS) == 22
