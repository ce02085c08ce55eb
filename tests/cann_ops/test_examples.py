"""examples/cann_ops: its reference outputs are numpy's, and a wrong reference fails the run naming
the tensor and the index, in the separate run and in the fused run.

The example's sk_model_test (//examples/cann_ops:compare_test) checks the twin's outputs against
data/*_golden.npy; here gen_data.py recomputes those files with numpy and they must be the same bytes,
so the references come from numpy, not from a run of the kernels.
"""

import importlib.util
import os
import subprocess

import pytest

from sk.tests.harness import REPO

EXAMPLE = os.path.join(REPO, "examples", "cann_ops")


def _gen_data():
    spec = importlib.util.spec_from_file_location("cann_ops_gen_data", os.path.join(EXAMPLE, "gen_data.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_data_files_are_what_numpy_computes(tmp_path):
    gen = _gen_data()
    gen.main(str(tmp_path))
    written = sorted(os.path.relpath(os.path.join(d, f), tmp_path) for d, _, fs in os.walk(tmp_path) for f in fs)
    assert "h_golden.npy" in written and os.path.join("wrong", "r.npy") in written
    for rel in written:
        with open(tmp_path / rel, "rb") as a, open(os.path.join(EXAMPLE, "data", rel), "rb") as b:
            assert a.read() == b.read(), f"examples/cann_ops/data/{rel} is not what gen_data.py computes"


def test_wrong_reference_names_tensor_and_index(tmp_path):
    script = os.path.join(REPO, "examples", "cann_ops", "compare_wrong_reference.sh")
    if not os.path.exists(script):
        if os.environ.get("TEST_SRCDIR"):
            pytest.fail("give this test //examples/cann_ops:compare_wrong_reference as data")
        pytest.skip("//examples/cann_ops:compare_wrong_reference is built by Bazel; this case runs under "
                    "`tools/bazel test //tests/cann_ops:examples_test`")
    env = dict(os.environ, BUILD_WORKING_DIRECTORY=str(tmp_path))
    proc = subprocess.run([script], cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 1, proc.stdout[-3000:] + proc.stderr[-3000:]
    want = _gen_data().WRONG_INDEX
    for run in ("separate run", "fused run"):
        assert f"REFERENCE MISMATCH r ({run}): at index [{want}] got 0.517" in proc.stdout, proc.stdout[-3000:]
    assert "expected 1.517" in proc.stdout and "(r.npy); 1 of 2048 elements outside" in proc.stdout
    # Everything else matched, and the outputs were still written for the user to look at.
    assert "references: 4 of 5 tensors match their expected files in both runs; 1 do not" in proc.stdout
    assert (tmp_path / "sk_outputs" / "compare_wrong_reference" / "fused" / "r.npy").exists()


@pytest.mark.parametrize("model, outputs", [
    ("compare", ["e.npy", "e2.npy", "h.npy", "r.npy", "s.npy"]),
    # keyed_scale: TILING_KEY_IS keys named as tiling_key=<k>, its tiling struct from the staged op_host/.
    ("keyed_compare", ["k.npy", "k16.npy"]),
])
def test_model_file_rebuilds_the_cann_ops(tmp_path, model, outputs):
    """The self-contained model file of //examples/cann_ops:compare (output group `model`) names the
    CANN-style instances (cann_kernel, binary_config, variant, tpl_args): `sk run --model` builds them
    from the staged sources itself and meets the references."""
    from sk.tests.harness import bazel_model, run_sk

    path = bazel_model(os.path.join("examples", "cann_ops", "_sk_model", model, "model.json"))
    res = run_sk("run", "--model", path, "--repeat", "1", "--build-dir", tmp_path / "build",
                 "--prof-dir", tmp_path / "prof", "--outputs-dir", tmp_path / "out", cwd=REPO, timeout=900)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    n = len(outputs)
    assert f"references: {n} of {n} tensors match their expected files in both runs" in res.stdout
    assert sorted(os.listdir(tmp_path / "out" / "separate")) == outputs
