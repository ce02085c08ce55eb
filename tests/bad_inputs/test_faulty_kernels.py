"""Faulty kernels through `sk run`: each ends in bounded time with exit 2 and a message naming it.

A model of two ops fused into one SuperKernel: `fill` (correct) and `bad`
(the fault). The separate run launches `bad` on its own and fails there,
naming the run, the launch, the kernel, core side and block; with the fault
only in the SuperKernel's copy (the twin's SK-mode define) the fused run
fails, naming the sub-kernel too.
"""

from __future__ import annotations

import json
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
