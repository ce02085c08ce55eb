"""Sub-kernels built by Bazel are the ones `sk run` builds, byte for byte.

The Bazel side (data of this test, listed in env) is two super_kernel scopes
whose options only reach their sub-kernels through the inherited-options rule
(sk/engine/inherited.py): `stream-fusion=1` (no early-start macros) and
dcci-* lists (no GetValue/SetValue dcci macro for the listed op types). This
test builds the same model (model.json) with `sk run`'s build path and
compares every sub-op archive and JSON. It also reads the sub-op JSON Bazel
wrote for a kernel that calls `AscendC::SyncAll<true>()`.

Outside Bazel there are no Bazel outputs: the tests skip, saying so.
"""

import json
import os

import pytest

from sk.toolflow import subkernel, toolargv
from sk.engine import kernel_types
from sk.twin import model as model_mod
from sk.twin import run

HERE = os.path.dirname(os.path.abspath(__file__))
SCOPES = {"stream_fusion_scope": "SK_TEST_STREAM_FUSION_SUBS", "dcci_scope": "SK_TEST_DCCI_SUBS"}


def _bazel_files(var):
    value = os.environ.get(var)
    if not value:
        pytest.skip(f"{var} is not set: the Bazel-built sub-kernels come from `bazel test //tests/subkernel:all`")
    return {os.path.basename(p): os.path.abspath(p) for p in value.split()}


def _host_tools():
    tools = [os.environ.get(v) for v in ("SK_TEST_CXX", "SK_TEST_LD", "SK_TEST_OBJCOPY")]
    if not all(tools):
        pytest.skip("SK_TEST_CXX/LD/OBJCOPY name Bazel's host tools only under Bazel")
    return [os.path.abspath(t) for t in tools]


def _is_host_object(path):
    with open(path, "rb") as f:
        head = f.read(8)
    if head.startswith(b"!<arch>"):
        with open(path, "rb") as f:
            data = f.read()
        head = data[data.index(b"\x7fELF"):][:20]
    else:
        with open(path, "rb") as f:
            head = f.read(20)
    return int.from_bytes(head[18:20], "little") == 62  # EM_X86_64; an NPU object otherwise


@pytest.fixture(scope="module")
def sk_run_build(tmp_path_factory):
    compiler, ld, objcopy = _host_tools()
    build = tmp_path_factory.mktemp("sk_run")
    run.build(model_mod.load(os.path.join(HERE, "model.json")), str(build), compiler=compiler, ld=ld,
              objcopy=objcopy)
    return build


@pytest.mark.parametrize("scope", sorted(SCOPES))
def test_bazel_and_sk_run_build_the_same_sub_kernels(scope, sk_run_build):
    bazel = _bazel_files(SCOPES[scope])
    stems = ["scale_start", "shift_end"]
    assert sorted(bazel) == sorted(f"{s}.{ext}" for s in stems for ext in ("o", "json"))
    if not _is_host_object(bazel["scale_start.o"]):
        pytest.skip("Bazel resolved the CANN toolchain; `sk run` builds for the CPU twin")
    for stem in stems:
        for ext in ("o", "json"):
            ours = sk_run_build / "sk" / scope / "subs" / stem / f"{stem}.{ext}"
            with open(bazel[f"{stem}.{ext}"], "rb") as f:
                theirs = f.read()
            assert ours.read_bytes() == theirs, f"{scope}: {stem}.{ext} differs between Bazel and sk run"


def test_the_scopes_options_do_change_the_sub_kernels(sk_run_build, tmp_path):
    """Without the rule (options dropped) the objects would differ: the comparison above can fail."""
    compiler, _, _ = _host_tools()
    from sk.twin import binding

    kt = kernel_types.lookup("AIV_ONLY", "test")
    plain = tmp_path / "scale_start_defaults.o"
    subkernel.compile_source(toolargv.Tools("host", compiler=compiler), os.path.join(HERE, "kernels", "scale.cpp"),
                             str(plain), kt=kt, block_dim=4, options="", op_type="Scale", loc="start",
                             include_dirs=[str(binding.INCLUDE_DIR)])
    for scope in SCOPES:
        built = (sk_run_build / "sk" / scope / "subs" / "scale_start" / "kernel.o").read_bytes()
        assert built != plain.read_bytes(), f"{scope}: its options left scale's compile unchanged"


def test_bazel_sub_op_json_says_sync_all_for_a_kernel_calling_it():
    files = _bazel_files("SK_TEST_SYNC_ALL_KERNEL")
    doc = json.loads(open(files["sync_all_middle.json"], encoding="utf-8").read())
    assert doc["sub_op_with_sync_all"] is True
    assert not doc["sub_operator_early_start_set_flag"] and not doc["sub_operator_early_start_wait_flag"]
