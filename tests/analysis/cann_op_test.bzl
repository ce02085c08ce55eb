"""Analysis test of sk_cann_op (examples/cann_ops): the exact sk argv of an instance's compiles and the
staged op_kernel/ folders as inputs (with the fake CANN toolchain)."""

load("@bazel_skylib//lib:unittest.bzl", "analysistest", "asserts")
load("//rules/private:providers.bzl", "SkSubKernelInfo")
load(":rules_test.bzl", "BISHENG", "CANN_INCLUDES", "FAKE_CANN")

_STAGE = "examples/cann_ops/_sk_stage/scaled_add_stage/"
_CONFIG = "examples/cann_ops/scaled_add/op_host/config/ascend910b/scaled_add_binary.json"
_CANN = [
    "--entry",
    "scaled_add_f16_sub_relu",
    "--cann-kernel",
    "scaled_add",
    "--binary-config",
    _CONFIG,
    "--variant",
    "ScaledAdd_93d7b415",
    "--tpl-args",
    "mode=1,useRelu=1",
    "--param",
    "x",
    "--param",
    "y",
    "--param",
    "z",
    "--param",
    "workspace",
    "--param",
    "tiling",
]

def _short(args):
    return [a.split("bin/", 1)[-1] if a.startswith("bazel-out/") else a for a in args]

def _cann_op_impl(ctx):
    env = analysistest.begin(ctx)
    compiles = [a for a in analysistest.target_actions(env) if a.mnemonic == "SkCompile"]
    asserts.equals(env, 4, len(compiles))
    by_kind = {}
    for a in compiles:
        args = a.argv[1:]
        by_kind[args[args.index("--loc") + 1] if "--loc" in args else "plain"] = a
    prefix = ["subkernel", "compile", "--toolchain", "cann", "--compiler", BISHENG]
    for i in CANN_INCLUDES:
        prefix += ["--include", i]
    prefix += ["--soc", "Ascend910_9391"]
    asserts.equals(env, prefix + [
        "--kernel-type",
        "KERNEL_TYPE_AIV_ONLY",
        "--block-dim",
        "8",
        "--options",
        "",
        "--op-type",
        "ScaledAdd",
        "--loc",
        "middle",
        "--sync-out",
        "examples/cann_ops/_sk/scaled_add_f16_sub_relu/middle/kernel_sk.sync.json",
    ] + _CANN + [
        "-o",
        "examples/cann_ops/_sk/scaled_add_f16_sub_relu/middle/kernel_sk.o",
        _STAGE + "scaled_add/scaled_add.cpp",
    ], _short(by_kind["middle"].argv[1:]))
    asserts.equals(env, prefix + [
        "--kernel-type",
        "KERNEL_TYPE_AIV_ONLY",
        "--block-dim",
        "8",
        "--plain",
    ] + _CANN + [
        "-o",
        "examples/cann_ops/_sk/scaled_add_f16_sub_relu/standalone/scaled_add_f16_sub_relu.o",
        _STAGE + "scaled_add/scaled_add.cpp",
    ], _short(by_kind["plain"].argv[1:]))

    # Every op's op_kernel/ side by side as <op>/ (the neighbour's header too) and the binary config
    # are inputs of each compile.
    inputs = _short([f.path for f in by_kind["middle"].inputs.to_list()])
    for f in [_STAGE + "elementwise_common/block_split.h", _STAGE + "scaled_add/scaled_add_tiling_key.h",
              _STAGE + "scaled_add/scaled_add_tiling_data.h", _STAGE + "scaled_add/scaled_add.h", _CONFIG]:
        asserts.true(env, f in inputs, "%s is not an input of SkCompile" % f)
    info = analysistest.target_under_test(env)[SkSubKernelInfo]
    asserts.equals(env, "scaled_add_f16_sub_relu", info.kernel_name)
    asserts.equals(env, ["x", "y"], info.inputs)
    asserts.equals(env, 32, info.tiling_size)
    return analysistest.end(env)

cann_op_test = analysistest.make(_cann_op_impl, config_settings = FAKE_CANN)
