"""A CANN-style operator instance built on the CANN toolchain, recorded with the stand-in toolkit
(tests/fake_cann), as test_cann_flow.py records the SuperKernel flow.

One instance of examples/cann_ops' ScaledAdd (the float16 variant of its binary config, template
arguments mode=1,useRelu=1: tiling key 3) in SK mode and plain. Checked token by token (paths cut to
file names): the -DASCENDC_TPL_PRE pass with the variant's defines, then the SK-mode sync scan and
compile of the generated entry from stdin with the variant's defines, -DASCENDC_TPL_KERNEL and
-DTILING_KEY_VAR=3UL; and that the object defines the entry BUILD names.
"""

import json
import os
import shutil

import pytest

from sk.binfmt import objfacts
from sk.tests.harness import HOST_TOOLS, REPO, needs_host_tools, run_sk
from sk.toolflow import toolargv

pytestmark = [needs_host_tools]

FAKE = os.path.join(REPO, "tests", "fake_cann")
BISHENG = os.path.join(FAKE, "compiler", "ccec_compiler", "bin", "bisheng")
INCLUDE = os.path.join(FAKE, "x86_64-linux", "asc", "include")
EXAMPLE = os.path.join(REPO, "examples", "cann_ops")
CONFIG = os.path.join(EXAMPLE, "scaled_add", "op_host", "config", "ascend910b", "scaled_add_binary.json")
ENTRY = "scaled_add_f16_sub_relu"
F16 = ["-DDTYPE_X=half", "-DORIG_DTYPE_X=DT_FLOAT16", "-DFORMAT_X=FORMAT_ND",
       "-DDTYPE_Y=half", "-DORIG_DTYPE_Y=DT_FLOAT16", "-DFORMAT_Y=FORMAT_ND",
       "-DDTYPE_Z=half", "-DORIG_DTYPE_Z=DT_FLOAT16", "-DFORMAT_Z=FORMAT_ND"]
# After the variant defines the ADK's generated impl adds -DDETERMINISTIC_MODE=0 and compile_op its
# auto-sync options, to every compile of the op (docs/cann-ops.md §5, measured against the ADK).
F16 = [*F16, "-DDETERMINISTIC_MODE=0", "--cce-auto-sync", "-mllvm", "-api-deps-filter"]
SK_MODE = ["-D__ASCENDC_ENABLE_SUPER_KERNEL__", "-D__SUPER_KERNEL_STATIC_BLOCK_NUM__=8",
           "-D__ASCENDC_SUPERKERNEL_EARLY_START_V2", "-D__ASCENDC_SUPER_KERNEL_ENABLE_GM_GET_SET_VALUE_DCCI__"]
TAIL = [*toolargv.CANN_MLLVM_TAIL, "-std=c++17"]


@pytest.fixture(scope="module")
def staged(tmp_path_factory):
    """The ops' op_kernel/ folders side by side, as the ADK's op build (and sk_cann_op) stage them."""
    root = tmp_path_factory.mktemp("stage")
    for op in ("scaled_add", "elementwise_common"):
        shutil.copytree(os.path.join(EXAMPLE, op, "op_kernel"), str(root / op))
    return str(root / "scaled_add" / "scaled_add.cpp")


def _build(tmp_path, src, *mode):
    log = str(tmp_path / "log.jsonl")
    env = {"SK_FAKE_CANN_LOG": log, "SK_FAKE_CANN_TWIN_INCLUDE": os.path.join(REPO, "sk", "runtime", "include"),
           "SK_FAKE_CANN_CXX": HOST_TOOLS["g++"]}
    out = str(tmp_path / "k.o")
    proc = run_sk("subkernel", "compile", "--toolchain", "cann", "--compiler", BISHENG, "--include", INCLUDE,
                  "--kernel-type", "AIV_ONLY", "--block-dim", "8", *mode, "--entry", ENTRY,
                  "--cann-kernel", "scaled_add", "--binary-config", CONFIG, "--variant", "ScaledAdd_93d7b415",
                  "--tpl-args", "mode=1,useRelu=1", *[a for p in ("x", "y", "z", "workspace", "tiling")
                                                      for a in ("--param", p)], "-o", out, src, env=env)
    assert proc.returncode == 0, proc.stderr
    with open(log, encoding="utf-8") as f:
        records = [json.loads(line) for line in f]
    return out, [[r["tool"], *(os.path.basename(a) if a.startswith("/") else
                                ("-I" + os.path.basename(a[2:]) if a.startswith("-I/") else a) for a in r["argv"])]
                 for r in records]


def _cmd(step, side, out, defines, src="-", tail=()):
    return ["bisheng", step, "-O3", "-x", "cce", "-Iinclude", toolargv.ATTR_CHECK_FLAG, *defines, src,
            f"--cce-aicore-arch=dav-c220-{side}", "--cce-aicore-only", "-o", out, *TAIL, *tail]


def test_sk_mode_instance(tmp_path, staged):
    obj, seq = _build(tmp_path, staged, "--options", "", "--sync-out", str(tmp_path / "scan.json"))
    pre = _cmd("-E", "cube", "tpl_pre.i", [*F16, "-DASCENDC_TPL_KERNEL", "-DASCENDC_TPL_PRE"], src="scaled_add.cpp")
    kernel = [*SK_MODE, *F16, "-DASCENDC_TPL_KERNEL"]
    assert seq == [
        pre,
        _cmd("-E", "cube", "cube.i", [*kernel, "-DTILING_KEY_VAR=3UL"]),
        _cmd("-E", "vec", "vec.i", [*kernel, "-DTILING_KEY_VAR=3UL"]),
        _cmd("-c", "vec", "vec.o", kernel, tail=["-DTILING_KEY_VAR=3UL"]),
    ]
    assert ENTRY in objfacts.provided_symbols(obj)


def test_plain_instance(tmp_path, staged):
    obj, seq = _build(tmp_path, staged, "--plain")
    assert seq == [
        _cmd("-E", "cube", "tpl_pre.i", [*F16, "-DASCENDC_TPL_KERNEL", "-DASCENDC_TPL_PRE"], src="scaled_add.cpp"),
        _cmd("-c", "vec", "vec.o", [*F16, "-DASCENDC_TPL_KERNEL"], tail=["-DTILING_KEY_VAR=3UL"]),
    ]
    assert ENTRY in objfacts.provided_symbols(obj)
