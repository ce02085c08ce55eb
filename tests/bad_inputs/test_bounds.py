"""Resource bounds: big and extreme inputs work or fail cleanly; a deadlock on the twin ends with an error.

  * `sk gen` of a SuperKernel of 1,200 sub-kernels (distinct objects and entry symbols);
  * split-mode=64 (63 split copies per op), debug-aic-num/aiv-num at the SoC's limits
    (and one over them, in the catalog);
  * `sk run` of a model whose fused SyncAll can never complete: the twin's watchdog ends
    it with exit 2 and an error naming the SuperKernel and the barrier.
Times are printed (pytest -s) for the record, never asserted.
"""

from __future__ import annotations

import json
import os
import shutil
import time

import pytest

from badinputs import ROOT, make_object, sk
from sk.tests.harness import needs_host_tools, needs_twin_sources

N_OPS = 1200


def _big_fusion(root, n, kernel_type="KERNEL_TYPE_AIV_ONLY"):
    """n ops, each its own object and entry symbol, one stream, split-mode 1."""
    os.makedirs(root, exist_ok=True)
    op_list = []
    for i in range(n):
        name = f"k{i:04d}"
        func = f"{name}__kernel0_middle"
        make_object(os.path.join(root, f"{name}.o"), [func], 256 + 16 * (i % 7))
        doc = {"kernelName": f"{name}__kernel0", "blockDim": 1 + i % 40, "sub_operator_params": ["x", "y"],
               "sub_operator_kernel_type": kernel_type, "split_mode": 1,
               "sub_operator_early_start_set_flag": False, "sub_operator_early_start_wait_flag": False,
               "sub_operator_kernel_name": {"AiCore": {"func_name": func, "obj_files": f"{name}.o"}}}
        with open(os.path.join(root, f"{name}.json"), "w") as f:
            json.dump(doc, f)
        op_list.append({"bin_path": f"{name}.o", "json_path": f"{name}.json", "stream_id": 0})
    path = os.path.join(root, "kernel_infos.json")
    with open(path, "w") as f:
        json.dump({"kernel_name": "te_superkernel_big", "super_kernel_options": "split-mode=1",
                   "op_list": op_list}, f)
    return path


def test_gen_of_1200_sub_kernels(tmp_path):
    ki = _big_fusion(str(tmp_path / "in"), N_OPS)
    out = tmp_path / "out"
    start = time.monotonic()
    res = sk(["gen", "--kernel-infos", ki, "--out-dir", str(out), "--plan-out", str(out / "plan.json")])
    took = time.monotonic() - start
    assert res.rc == 0, res.err
    plan = json.loads((out / "plan.json").read_text())
    assert len(plan["ops"]) == N_OPS and plan["block_dim"] == 40
    source = (out / "te_superkernel_big_kernel.cpp").read_text()
    assert "k1199__kernel0_middle" in source
    print(f"\nsk gen, {N_OPS} sub-kernels: {took:.1f} s, source {len(source)} bytes")


def test_gen_with_split_mode_64(tmp_path):
    from badinputs import fusion

    ki = fusion(tmp_path / "in", options="split-mode=64", split=64,
                ops=[("a", {"split_mode": 64}, {}), ("b", {"kernel_type": "KERNEL_TYPE_AIV_ONLY", "split_mode": 64}, {})])
    out = tmp_path / "out"
    res = sk(["gen", "--kernel-infos", ki, "--out-dir", str(out), "--plan-out", str(out / "plan.json")])
    assert res.rc == 0, res.err
    plan = json.loads((out / "plan.json").read_text())
    assert plan["split_mode"] == 64
    assert "a__kernel0_middle_split63" in (out / "te_superkernel_t_kernel.cpp").read_text()


@pytest.mark.parametrize("soc,aic,aiv", [("Ascend910_9391", 24, 48), ("Ascend910B3", 20, 40)])
def test_debug_core_nums_at_the_soc_limits(tmp_path, soc, aic, aiv):
    from badinputs import fusion

    ki = fusion(tmp_path / "in", options=f"debug-aic-num={aic}:debug-aiv-num={aiv}",
                ops=[("m", {"kernel_type": "KERNEL_TYPE_MIX_AIC_1_2", "block_dim": 8}, {})])
    out = tmp_path / "out"
    res = sk(["gen", "--kernel-infos", ki, "--out-dir", str(out), "--soc", soc, "--plan-out", str(out / "p.json")])
    assert res.rc == 0, res.err
    plan = json.loads((out / "p.json").read_text())
    assert (plan["kernel_type"], plan["block_dim"]) == ("KERNEL_TYPE_MIX_AIC_1_2", aic)


SYNCALL = os.path.join(ROOT, "tests", "e2e", "models", "syncall")


@needs_host_tools
@needs_twin_sources
@pytest.mark.skipif(not os.path.exists(os.path.join(SYNCALL, "model.json")),
                    reason="tests/e2e/models/syncall is not in this tree")
def test_sk_run_refuses_a_sync_all_hang_before_any_launch(tmp_path):
    """SyncAll in a sub-kernel on fewer cores than the SuperKernel, without feed-sync-all: the idle
    cores would never reach the barrier. The plan refuses it (exit 2, naming the op and the fix)
    before anything is compiled or launched; the twin's watchdog for hangs that get past the
    build is tested in sk/tests/test_twin.py."""
    doc = json.loads(open(os.path.join(SYNCALL, "model.json")).read())
    doc["super_kernels"][0]["options"] = "feed-sync-all=0"
    for k in doc["kernels"].values():
        shutil.copy(os.path.join(SYNCALL, k["src"]), tmp_path / k["src"])
    (tmp_path / "model.json").write_text(json.dumps(doc))
    start = time.monotonic()
    res = sk(["run", "--model", str(tmp_path / "model.json"), "--build-dir", str(tmp_path / "build"),
              "--prof-dir", str(tmp_path / "prof"), "--repeat", "1"],
             env={"SK_TWIN_TIMEOUT_MS": "1500"}, timeout=600)
    took = time.monotonic() - start
    assert res.rc == 2, res.out + res.err
    line = [ln for ln in res.err.splitlines() if ": error: " in ln]
    assert len(line) == 1, res.err
    for part in ("op_list[1] (gather)", "SyncAll<true>", "blockDim 4: 4 AIV cores", "block dim 8: 8 AIV cores",
                 "hangs", "feed-sync-all=1"):
        assert part in line[0], (part, line[0])
    assert "Traceback" not in res.err
    print(f"\nsk run with a SyncAll hang: refused, exit 2 after {took:.1f} s")
