"""Faulty kernels and tiling functions through `sk run`: each ends in bounded time with exit 2 and a
message naming it.

A model of two ops fused into one SuperKernel: `fill` (correct) and `bad`
(the fault). The separate run launches `bad` on its own and fails there,
naming the run, the launch, the kernel, core side and block; with the fault
only in the SuperKernel's copy (the twin's SK-mode define) the fused run
fails, naming the sub-kernel too. A faulty host tiling function of a tiling-sink op fails the
unfused run's host call, or (faulting only from its third call on) the SuperKernel run's AI CPU
tiling task, naming the op, the task and the launch.
"""

from __future__ import annotations

import json
import os
import shutil
import time

import pytest

from badinputs import sk

needs_gxx = pytest.mark.skipif(shutil.which("g++") is None or shutil.which("ld") is None,
                               reason="needs the host g++ and ld")

FILL = """#include "kernel_operator.h"
extern "C" __global__ __aicore__ void fill(GM_ADDR x, GM_ADDR y) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    const int64_t n = 1024 / AscendC::GetBlockNum(), b = AscendC::GetBlockIdx() * n;
    for (int64_t i = b; i < b + n; ++i) ((__gm__ float*)y)[i] = ((__gm__ const float*)x)[i] + 1.0f;
}
"""

BAD = """#include "kernel_operator.h"
static int deeper(volatile int n) {{ volatile char pad[256]; pad[0] = (char)n; return deeper(n + 1) + pad[0]; }}
extern "C" __global__ __aicore__ void bad(GM_ADDR y, GM_ADDR z) {{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    __gm__ float* out = (__gm__ float*)z;
    (void)deeper;
    if ({cond}) {{ {fault}; }}
    out[AscendC::GetBlockIdx()] = ((__gm__ const float*)y)[AscendC::GetBlockIdx()];
}}
"""

FAULTS = {
    "crash": ("*(volatile int*)nullptr = 1", ["SIGSEGV", "null pointer"]),
    "write_before": ("out[-5] = 1.0f", ["offset -20 of GM tensor 'z' (4096 bytes)", "before its start"]),
    "write_after": ("out[1024] = 1.0f", ["offset 4096 of GM tensor 'z' (4096 bytes)", "past its end"]),
    "stack_overflow": ("out[0] = (float)deeper(0)", ["stack overflow"]),
    "trap": ("__builtin_trap()", ["SIGILL"]),
    "endless_loop": ("volatile int k = 0; while (true) { k = k + 1; }", ["never returned", "endless loop"]),
}


def _model(tmp_path, fault: str, sk_only: bool) -> str:
    cond = "AscendC::GetBlockIdx() == 2"
    if sk_only:
        cond = "g_superKernelIsSkMode && " + cond
    code, _ = FAULTS[fault]
    (tmp_path / "fill.cpp").write_text(FILL)
    body = BAD.format(cond=cond, fault=code)
    if sk_only:
        body = body.replace('#include "kernel_operator.h"\n', '#include "kernel_operator.h"\n'
                            "#ifdef __ASCENDC_ENABLE_SUPER_KERNEL__\nstatic const bool g_superKernelIsSkMode = true;\n"
                            "#else\nstatic const bool g_superKernelIsSkMode = false;\n#endif\n")
    (tmp_path / "bad.cpp").write_text(body)
    t = {"dtype": "float32", "shape": [1024]}
    doc = {
        "name": "faulty",
        "tensors": {"x": t, "y": t, "z": t},
        "kernels": {
            "fill": {"src": "fill.cpp", "kernel_type": "AIV_ONLY", "block_dim": 4, "inputs": ["x"], "outputs": ["y"]},
            "bad": {"src": "bad.cpp", "kernel_type": "AIV_ONLY", "block_dim": 4, "inputs": ["y"], "outputs": ["z"]},
        },
        "ops": [{"name": "fill_1", "kernel": "fill", "bind": {"x": "x", "y": "y"}},
                {"name": "bad_1", "kernel": "bad", "bind": {"y": "y", "z": "z"}}],
        "super_kernels": [{"name": "faulty_sk", "ops": ["fill_1", "bad_1"], "options": ""}],
    }
    path = tmp_path / "model.json"
    path.write_text(json.dumps(doc))
    return str(path)


@pytest.fixture(scope="module")
def build_dir(tmp_path_factory):
    """One build directory for the module: the twin runtime is built once (its stamp), kernels again."""
    return tmp_path_factory.mktemp("build")


def _run(tmp_path, model, build_dir):
    start = time.monotonic()
    res = sk(["run", "--model", model, "--build-dir", str(build_dir), "--prof-dir",
              str(tmp_path / "prof"), "--repeat", "1"], env={"SK_TWIN_TIMEOUT_MS": "1000"}, timeout=300)
    return res, time.monotonic() - start


@needs_gxx
@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_faulty_kernel_fails_sk_run_naming_it(tmp_path, build_dir, fault):
    res, took = _run(tmp_path, _model(tmp_path, fault, sk_only=False), build_dir)
    assert res.rc == 2, (res.rc, res.out, res.err)
    assert "Traceback" not in res.err and "internal error" not in res.err
    lines = [ln for ln in res.err.splitlines() if ": error: " in ln]
    assert len(lines) == 1, res.err
    line = lines[0]
    assert "Separate run, launch 2 of 2: kernel bad_1" in line, line
    assert "AIV 2" in line, line
    for word in FAULTS[fault][1]:
        assert word in line, (word, line)
    assert took < 120, took
    print(f"\n{fault}: exit 2 after {took:.1f} s (build included)")


@needs_gxx
@pytest.mark.parametrize("fault", ["crash", "write_after", "endless_loop"])
def test_a_fault_inside_a_superkernel_names_the_sub_kernel(tmp_path, build_dir, fault):
    res, _ = _run(tmp_path, _model(tmp_path, fault, sk_only=True), build_dir)
    assert res.rc == 2, (res.rc, res.out, res.err)
    line = [ln for ln in res.err.splitlines() if ": error: " in ln][0]
    assert "SuperKernel run, launch 1 of 1: kernel faulty_sk" in line, line
    if fault == "endless_loop":
        assert "AIV 2 (sub-kernel bad_end)" in line, line
    else:
        assert "(sub-kernel bad_end) on AIV 2 (block 2)" in line, line


REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
TILING_MODEL = os.path.join(REPO, "tests", "e2e", "models", "tiling_sink", "model.json")
TILING_FAULTS = {
    "segfault": ("*(volatile int*)nullptr = 1;", ["crashed: SIGSEGV", "null pointer"]),
    "abort": ("abort();", ["crashed: SIGABRT"]),
    "trap": ("__builtin_trap();", ["crashed: SIGILL"]),
    "endless_loop": ("for (volatile int k = 0;; k = k + 1) {}", ["never returned", "timeout 1000 ms"]),
}


def _tiling_model(tmp_path, fault: str, in_task: bool) -> str:
    """The tiling_sink model with its grouped kernel's tiling function faulty (from its third call on when
    in_task: the unfused run calls it twice, so the SuperKernel run's tiling task meets the fault)."""
    doc = json.loads(open(TILING_MODEL).read())
    base = os.path.dirname(TILING_MODEL)
    for k in doc["kernels"].values():
        k["src"] = os.path.normpath(os.path.join(base, k["src"]))
    grouped = doc["kernels"]["grouped"]
    original = os.path.normpath(os.path.join(base, grouped["tiling_srcs"][0]))
    shutil.copy(os.path.join(os.path.dirname(original), "grouped.h"), tmp_path / "grouped.h")
    when = "++calls > 2" if in_task else "true"
    code = open(original).read().replace(
        'extern "C" int grouped_tiling(SkTilingContext* ctx) {',
        '#include <cstdlib>\nstatic int calls = 0;\nextern "C" int grouped_tiling(SkTilingContext* ctx) {\n'
        f"    if ({when}) {{ {TILING_FAULTS[fault][0]} }}")
    (tmp_path / "grouped_tiling.cpp").write_text(code)
    grouped["tiling_srcs"] = [str(tmp_path / "grouped_tiling.cpp")]
    path = tmp_path / "model.json"
    path.write_text(json.dumps(doc))
    return str(path)


@needs_gxx
@pytest.mark.parametrize("fault", sorted(TILING_FAULTS))
def test_a_faulty_tiling_function_fails_sk_run_naming_the_op(tmp_path, build_dir, fault):
    res, took = _run(tmp_path, _tiling_model(tmp_path, fault, in_task=False), build_dir)
    assert res.rc == 2, (res.rc, res.out, res.err)
    assert "Traceback" not in res.err and "internal error" not in res.err
    lines = [ln for ln in res.err.splitlines() if ": error: " in ln]
    assert len(lines) == 1, res.err
    line = lines[0]
    assert "Separate run, launch 3 of 8: tiling function grouped_tiling of op 2 (grouped_a)" in line, line
    for word in TILING_FAULTS[fault][1]:
        assert word in line, (word, line)
    assert took < 120, took
    print(f"\n{fault} (host call): exit 2 after {took:.1f} s (build included)")


@needs_gxx
@pytest.mark.parametrize("fault", ["segfault", "endless_loop"])
def test_a_faulty_tiling_task_fails_the_superkernel_run_naming_the_task_and_op(tmp_path, build_dir, fault):
    res, took = _run(tmp_path, _tiling_model(tmp_path, fault, in_task=True), build_dir)
    assert res.rc == 2, (res.rc, res.out, res.err)
    line = [ln for ln in res.err.splitlines() if ": error: " in ln][0]
    assert "SuperKernel run, launch 1 of 2: kernel moe_a" in line, line
    assert "task 'tiling_a' failed: its tiling function grouped_tiling of op 2 (grouped_a)" in line, line
    for word in TILING_FAULTS[fault][1]:
        assert word in line, (word, line)
    assert "detached" not in line, line
    assert took < 120, took
    print(f"\n{fault} (tiling task): exit 2 after {took:.1f} s (build included): {line}")
