"""API misuse seeded into a kernel written the way CANN's operators are (op_kernel/ layout, binary
config, template tiling keys, TPipe/TQue, GET_TILING_DATA) is still named when `sk run --model`
runs it on the twin: a misaligned DataCopy, a repeatTime over 255, buffers past the Unified Buffer.

The kernel is examples/cann_ops' ScaledAdd, staged as sk_cann_op stages it, with one line changed
per case; the unchanged kernel runs clean and meets numpy's reference, so each failure is the seed's.
"""

from __future__ import annotations

import json
import os
import shutil

import numpy as np
import pytest

from badinputs import ROOT, sk

EXAMPLE = os.path.join(ROOT, "examples", "cann_ops")
HEADER = os.path.join("scaled_add", "scaled_add.h")

# (line in scaled_add.h, its seeded replacement, what the run must say)
SEEDS = {
    "misaligned_datacopy": (
        "DataCopy(x, xGm_[at], n);",
        "DataCopy(x[1], xGm_[at], n);",
        ["DataCopy", "not a multiple of 32"],
    ),
    "repeat_over_255": (
        "Add(xf, xf, yf, n);",
        "Add(xf, xf, yf, (uint64_t)64, 300, {1, 1, 1, 8, 8, 8});",
        ["Add", "repeatTime 300 is outside 0..255"],
    ),
    "ub_overflow": (
        "pipe_.InitBuffer(xf_, ubFactor_ * sizeof(float));",
        "pipe_.InitBuffer(xf_, 200 * 1024);",
        ["TPipe::InitBuffer", "Unified Buffer"],
    ),
}


def _stage(root, seed=None):
    """The op staged as sk_cann_op does (<stage>/scaled_add/, its shared folder beside it), a model of
    one op (variant 0: float, mode add, ReLU) and its data; returns the model file."""
    stage = os.path.join(root, "stage")
    shutil.copytree(os.path.join(EXAMPLE, "scaled_add", "op_kernel"), os.path.join(stage, "scaled_add"))
    shutil.copytree(os.path.join(EXAMPLE, "elementwise_common", "op_kernel"), os.path.join(stage, "elementwise_common"))
    if seed is not None:
        old, new, _ = SEEDS[seed]
        path = os.path.join(stage, HEADER)
        text = open(path).read()
        assert text.count(old) == 1, f"{old!r} is no longer once in {HEADER}: update the seed"
        with open(path, "w") as f:
            f.write(text.replace(old, new))
    shutil.copy(os.path.join(EXAMPLE, "scaled_add", "op_host", "config", "ascend910b", "scaled_add_binary.json"),
                os.path.join(root, "scaled_add_binary.json"))
    data = os.path.join(root, "data")
    os.makedirs(data)
    for name in ("a.npy", "b.npy", "tiling_sa.bin", "h_golden.npy"):
        shutil.copy(os.path.join(EXAMPLE, "data", name), data)
    model = {
        "name": "misuse",
        "kernels": {
            "sa_k": {
                "src": "stage/scaled_add/scaled_add.cpp", "cann_kernel": "scaled_add",
                "binary_config": "scaled_add_binary.json", "variant": "0", "tpl_args": "mode=0,useRelu=1",
                "entry": "sa_k", "op_type": "ScaledAdd", "kernel_type": "KERNEL_TYPE_AIV_ONLY", "block_dim": 8,
                "inputs": ["x", "y"], "outputs": ["z"], "tiling": True, "workspace": True,
                "output_shape": False, "copts": [],
            },
        },
        "ops": [{"name": "sa", "kernel": "sa_k", "bind": {"x": "a", "y": "b", "z": "h"},
                 "tiling": {"file": "data/tiling_sa.bin"}, "workspace_bytes": 256}],
        "super_kernels": [{"name": "one", "ops": ["sa"], "options": ""}],
        "tensors": {
            "a": {"dtype": "float32", "shape": [2048], "file": "data/a.npy"},
            "b": {"dtype": "float32", "shape": [2048], "file": "data/b.npy"},
            "h": {"dtype": "float32", "shape": [2048], "expected": "data/h_golden.npy"},
        },
    }
    path = os.path.join(root, "model.json")
    with open(path, "w") as f:
        json.dump(model, f, indent=1)
    return path


def _run(tmp_path, model):
    return sk(["run", "--model", model, "--repeat", "1", "--build-dir", str(tmp_path / "build"),
               "--prof-dir", str(tmp_path / "prof"), "--outputs-dir", str(tmp_path / "out")],
              cwd=str(tmp_path), timeout=600)


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs the host g++")
def test_the_unseeded_kernel_runs_clean_and_meets_numpy(tmp_path):
    res = _run(tmp_path, _stage(str(tmp_path)))
    assert res.rc == 0, res.out[-3000:] + res.err[-3000:]
    assert "references: 1 of 1 tensors match their expected files in both runs" in res.out
    a = np.load(os.path.join(EXAMPLE, "data", "a.npy"))
    b = np.load(os.path.join(EXAMPLE, "data", "b.npy"))
    got = np.load(tmp_path / "out" / "fused" / "h.npy")
    # Variant 0 with mode add and ReLU; alpha comes from the tiling file (float after 3 int64 words).
    alpha = np.frombuffer(open(os.path.join(EXAMPLE, "data", "tiling_sa.bin"), "rb").read()[24:28], np.float32)[0]
    np.testing.assert_allclose(got, np.maximum(a * alpha + b, 0), rtol=1e-6, atol=1e-6)


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs the host g++")
@pytest.mark.parametrize("seed", sorted(SEEDS))
def test_seeded_misuse_is_named(tmp_path, seed):
    res = _run(tmp_path, _stage(str(tmp_path), seed))
    text = res.out + res.err
    assert res.rc == 2, text[-3000:]
    assert "Traceback" not in text, text[-3000:]
    for want in SEEDS[seed][2] + ["sa"]:
        assert want in text, f"{want!r} not in:\n{text[-3000:]}"
