"""Analysis tests of the rules with the fake CANN toolchain: exact argv, inputs, env."""

load("@bazel_skylib//lib:unittest.bzl", "analysistest", "asserts")
load("//rules/private:actions.bzl", "SK_ENV")
load("//rules/private:providers.bzl", "SkSubKernelInfo", "SuperKernelInfo")

FAKE_CANN = {"//command_line_option:extra_toolchains": [str(Label("//tests:fake_cann_toolchain"))]}
BISHENG = "tests/fake_cann/compiler/ccec_compiler/bin/bisheng"
CCEC = "tests/fake_cann/compiler/ccec_compiler/bin/ccec"
LLD = "tests/fake_cann/compiler/ccec_compiler/bin/ld.lld"
OBJCOPY = "tests/fake_cann/compiler/ccec_compiler/bin/llvm-objcopy"

# Upstream's include directories of the SuperKernel compile, in its order (GA
# SuperOperatorInfos.gen_compile_info; docs/cann-flow.md), under the fake toolkit.
_ASC = "tests/fake_cann/x86_64-linux/asc/"
CANN_INCLUDES = [
    _ASC + "impl/adv_api",
    _ASC + "impl/basic_api",
    _ASC + "impl/c_api",
    _ASC + "impl/micro_api",
    _ASC + "impl/simt_api",
    _ASC + "impl/utils",
    _ASC + "include",
    _ASC + "include/adv_api",
    _ASC + "include/basic_api",
    _ASC + "include/aicpu_api",
    _ASC + "include/c_api",
    _ASC + "include/micro_api",
    _ASC + "include/simt_api",
    _ASC + "include/utils",
    "tests/fake_cann/x86_64-linux/ascendc/act",
    _ASC + "impl",
    "tests/fake_cann/x86_64-linux/tikcpp",
    "tests/fake_cann/include",
    "tests/fake_cann/include/ascendc",
    "tests/fake_cann/x86_64-linux/tikcpp/tikcfw",
    "tests/fake_cann/x86_64-linux/tikcpp/tikcfw/impl",
    "tests/fake_cann/x86_64-linux/tikcpp/tikcfw/interface",
]

# The entry stubs' own list (ADK gen_spk_kernel_call): reg_compute for micro_api, and asc itself.
CANN_STUB_INCLUDES = [
    _ASC + "impl/adv_api",
    _ASC + "impl/basic_api",
    _ASC + "impl/c_api",
    _ASC + "impl/basic_api/reg_compute",
    _ASC + "impl/simt_api",
    _ASC + "impl/utils",
    _ASC + "include",
    _ASC + "include/adv_api",
    _ASC + "include/basic_api",
    _ASC + "include/aicpu_api",
    _ASC + "include/c_api",
    _ASC + "include/basic_api/reg_compute",
    _ASC + "include/simt_api",
    _ASC + "include/utils",
    "tests/fake_cann/x86_64-linux/ascendc/act",
    _ASC + "impl",
    "tests/fake_cann/x86_64-linux/asc",
    "tests/fake_cann/x86_64-linux/tikcpp",
    "tests/fake_cann/include",
    "tests/fake_cann/include/ascendc",
    "tests/fake_cann/x86_64-linux/tikcpp/tikcfw",
    "tests/fake_cann/x86_64-linux/tikcpp/tikcfw/impl",
    "tests/fake_cann/x86_64-linux/tikcpp/tikcfw/interface",
]

def _bin_relative(args):
    """argv with bazel-out/<config>/bin/ cut off its paths."""
    return [a.split("bin/", 1)[-1] if a.startswith("bazel-out/") else a for a in args]

def _by_mnemonic(env):
    out = {}
    for a in analysistest.target_actions(env):
        out.setdefault(a.mnemonic, []).append(a)
    return out

def _sk_args(action):
    """argv after the sk launcher (the py_binary), as a list."""
    return action.argv[1:]

def _no_absolute_paths(env, action):
    for arg in action.argv:
        asserts.false(env, arg.startswith("/"), "%s has an absolute argv item: %s" % (action.mnemonic, arg))

def _sub_kernel_actions_impl(ctx):
    env = analysistest.begin(ctx)
    actions = _by_mnemonic(env)
    asserts.equals(env, ["SkCompile", "SkSubOp", "SkWrap"], sorted([m for m in actions if m.startswith("Sk")]))
    asserts.equals(env, 4, len(actions["SkCompile"]))
    asserts.equals(env, 3, len(actions["SkWrap"]))
    asserts.equals(env, 3, len(actions["SkSubOp"]))
    plain = [a for a in actions["SkCompile"] if "--plain" in a.argv]
    asserts.equals(env, 1, len(plain))
    plain = plain[0]
    by_loc = {a.argv[a.argv.index("--loc") + 1]: a for a in actions["SkCompile"] if "--loc" in a.argv}
    asserts.equals(env, ["end", "middle", "start"], sorted(by_loc))
    sk_mode = by_loc["middle"]
    args = _sk_args(sk_mode)
    asserts.equals(env, ["subkernel", "compile", "--toolchain", "cann", "--compiler", BISHENG], args[:6])
    asserts.equals(env, CANN_INCLUDES, [args[i + 1] for i, a in enumerate(args) if a == "--include"])
    tail = args[args.index("--kernel-type"):]
    asserts.equals(env, [
        "--kernel-type",
        "KERNEL_TYPE_AIV_ONLY",
        "--block-dim",
        "8",
        "--options",
        "",
        "--op-type",
        "Add",
        "--loc",
        "middle",
        "--sync-out",
        "tests/analysis/_sk/add_custom/middle/kernel_sk.sync.json",
        "-o",
        "tests/analysis/_sk/add_custom/middle/kernel_sk.o",
        "tests/analysis/testdata/add.cpp",
        "--",
        "-DMY_FLAG=1",
    ], [a.split("bin/", 1)[-1] if a.startswith("bazel-out/") else a for a in tail])
    asserts.true(env, "--plain" in _sk_args(plain))
    asserts.false(env, "--sync-out" in _sk_args(plain), "a plain compile is not scanned")

    # The scan written by SkCompile (preprocess -> scan -> compile, one action)
    # is what SkWrap and SkSubOp read: a declared output and input.
    scan = sk_mode.argv[sk_mode.argv.index("--sync-out") + 1]
    asserts.true(env, scan in [f.path for f in sk_mode.outputs.to_list()])
    for mnemonic in ["SkWrap", "SkSubOp"]:
        step = [a for a in actions[mnemonic] if a.argv[a.argv.index("--loc") + 1] == "middle"][0]
        asserts.equals(env, scan, step.argv[step.argv.index("--sync-scan") + 1])
        asserts.true(env, scan in [f.path for f in step.inputs.to_list()], "%s does not read the scan" % mnemonic)
    pack = _sk_args([a for a in actions["SkSubOp"] if "start" in a.argv][0])
    # The toolchain's SoC keys the sub-op JSON's MIX code (dav-<chip>-cube/vec).
    asserts.equals(env, ["subkernel", "pack", "--toolchain", "cann", "--soc", "Ascend910_9391", "--ld", LLD, "--objcopy", OBJCOPY], pack[:10])
    params = [pack[i + 1] for i, a in enumerate(pack) if a == "--param"]
    asserts.equals(env, ["x", "y", "z", "workspace"], params)
    for a in analysistest.target_actions(env):
        if a.mnemonic.startswith("Sk"):
            asserts.equals(env, SK_ENV, a.env)
            _no_absolute_paths(env, a)
            inputs = [f.path for f in a.inputs.to_list()]
            if a.mnemonic == "SkCompile":
                asserts.true(env, BISHENG in inputs, "compiler is not an input of SkCompile")
    info = analysistest.target_under_test(env)[SkSubKernelInfo]
    asserts.equals(env, "KERNEL_TYPE_AIV_ONLY", info.kernel_type)
    asserts.equals(env, "add_custom", info.kernel_name)
    return analysistest.end(env)

sub_kernel_actions_test = analysistest.make(_sub_kernel_actions_impl, config_settings = FAKE_CANN)

def _super_kernel_actions_impl(ctx):
    env = analysistest.begin(ctx)
    actions = _by_mnemonic(env)
    asserts.equals(env, ["SkCompileEntry", "SkGen", "SkLaunch", "SkLink", "SkReport"], sorted([m for m in actions if m.startswith("Sk")]))
    gen = _sk_args(actions["SkGen"][0])
    asserts.equals(env, "gen", gen[0])
    asserts.equals(env, "Ascend910_9391", gen[gen.index("--soc") + 1])
    # One SkCompileEntry per core side (they run in parallel), each into its own directory, all given to SkLink.
    asserts.equals(env, 2, len(actions["SkCompileEntry"]))
    entry_dirs = []
    for side, action in zip(["cube", "vec"], actions["SkCompileEntry"]):
        entry = _sk_args(action)
        # The whole argv: the toolkit's compiler, upstream's include directories in upstream's order, the
        # objcopy that makes the half's split set, the entry stubs' compiler (ccec, as upstream's
        # gen_spk_kernel_call) and include list; sk builds the tools' argv from it (docs/cann-flow.md).
        includes = []
        for d in CANN_INCLUDES:
            includes += ["--include", d]
        stub_includes = []
        for d in CANN_STUB_INCLUDES:
            stub_includes += ["--stub-include", d]
        asserts.equals(env, ["entry", "compile", "--toolchain", "cann", "--compiler", BISHENG] + includes + [
            "--objcopy",
            OBJCOPY,
            "--stub-compiler",
            CCEC,
        ] + stub_includes + [
            "--plan",
            "tests/analysis/_sk/sk_pair/plan.json",
            "--src",
            "tests/analysis/_sk/sk_pair/gen/sk_pair_kernel.cpp",
            "--compile-options",
            "tests/analysis/_sk/sk_pair/gen/sk_pair.compile_options.json",
            "--arch",
            side,
            "--out-dir",
            "tests/analysis/_sk/sk_pair/entry_" + side,
        ], _bin_relative(entry))
        out_dir = entry[entry.index("--out-dir") + 1]
        asserts.true(env, out_dir.endswith("/entry_" + side), "entry directory of the %s half: %s" % (side, out_dir))
        asserts.equals(env, [out_dir], [f.path for f in action.outputs.to_list()])
        inputs = [f.path for f in action.inputs.to_list()]
        for tool in (BISHENG, CCEC, OBJCOPY):
            asserts.true(env, tool in inputs, "%s among the %s half's inputs" % (tool, side))
        entry_dirs.append(out_dir)
    link = _sk_args(actions["SkLink"][0])
    asserts.equals(env, ["link", "--toolchain", "cann", "--ld", LLD, "--objcopy", OBJCOPY], link[:7])
    asserts.equals(env, entry_dirs, [link[i + 1] for i, a in enumerate(link) if a == "--entry-dir"])
    subs = [link[i + 1] for i, a in enumerate(link) if a == "--sub-obj"]
    asserts.equals(env, 2, len(subs))
    asserts.true(env, subs[0].endswith("/add_custom_start.o") and subs[1].endswith("/mul_custom_end.o"), "sub objects not in scope order/location: %s" % subs)
    for a in analysistest.target_actions(env):
        if a.mnemonic.startswith("Sk"):
            asserts.equals(env, SK_ENV, a.env)
            _no_absolute_paths(env, a)
    info = analysistest.target_under_test(env)[SuperKernelInfo]
    asserts.equals(env, "cann", info.toolchain_flavor)
    asserts.equals(env, "sk_pair", info.kernel_name)
    asserts.equals(env, ["sk_pair.o", "sk_pair.json", "sk_pair.report.md"], [f.basename for f in analysistest.target_under_test(env)[DefaultInfo].files.to_list()])
    return analysistest.end(env)

super_kernel_actions_test = analysistest.make(_super_kernel_actions_impl, config_settings = FAKE_CANN)

def _tiling_sink_impl(ctx):
    env = analysistest.begin(ctx)
    actions = _by_mnemonic(env)
    keys = ["--tiling-key", "1", "--tiling-key", "3"]

    def tail_after(argv, flag):
        return argv[argv.index(flag):argv.index(flag) + len(keys)]

    # One variant per key: each SkCompile (SK mode at every location, and plain) gets the entry and the keys.
    asserts.equals(env, 4, len(actions["SkCompile"]))
    for a in actions["SkCompile"]:
        args = _sk_args(a)
        asserts.equals(env, "grouped_custom", args[args.index("--entry") + 1])
        asserts.equals(env, keys, tail_after(args, "--tiling-key"))
    for mnemonic in ["SkWrap", "SkSubOp"]:
        for a in actions[mnemonic]:
            asserts.equals(env, keys, tail_after(_sk_args(a), "--tiling-key"))
    info = analysistest.target_under_test(env)[SkSubKernelInfo]
    asserts.equals(env, [1, 3], info.tiling_keys)
    asserts.equals(env, "grouped_tiling", info.tiling_function)
    asserts.equals(env, 16, info.tiling_bytes)
    return analysistest.end(env)

tiling_sink_test = analysistest.make(_tiling_sink_impl, config_settings = FAKE_CANN)

def _dynamic_op_list_impl(ctx):
    env = analysistest.begin(ctx)
    writes = [a for a in analysistest.target_actions(env) if a.mnemonic == "FileWrite" and a.outputs.to_list()[0].basename == "kernel_infos.json"]
    asserts.equals(env, 1, len(writes))
    op_list = json.decode(writes[0].content)["op_list"]
    asserts.equals(env, ["normal", "dynamic"], [op["task_type"] for op in op_list])
    return analysistest.end(env)

dynamic_op_list_test = analysistest.make(_dynamic_op_list_impl, config_settings = FAKE_CANN)

def _inherits_options_impl(ctx):
    env = analysistest.begin(ctx)
    info = analysistest.target_under_test(env)[SuperKernelInfo]
    for op in info.ops:
        asserts.equals(env, "early-start=0:split-mode=2", op.kernel.inherited_options)
    return analysistest.end(env)

inherits_options_test = analysistest.make(_inherits_options_impl, config_settings = FAKE_CANN)

def _split_scope_impl(ctx):
    env = analysistest.begin(ctx)
    info = analysistest.target_under_test(env)[SuperKernelInfo]
    asserts.equals(env, ["split_scope_split_0_0", "split_scope_split_2_2"], [s.kernel_name for s in info.segments])
    asserts.equals(env, None, info.object)
    files = [f.basename for f in analysistest.target_under_test(env)[DefaultInfo].files.to_list()]
    asserts.equals(env, sorted(["split_scope_split_%s.%s" % (r, ext) for r in ["0_0", "2_2"] for ext in ["o", "json", "report.md"]]), sorted(files))
    asserts.equals(env, 2, len([a for a in analysistest.target_actions(env) if a.mnemonic == "SkLink"]))
    return analysistest.end(env)

split_scope_test = analysistest.make(_split_scope_impl, config_settings = FAKE_CANN)

def _bypass_scope_impl(ctx):
    env = analysistest.begin(ctx)
    info = analysistest.target_under_test(env)[SuperKernelInfo]
    asserts.equals(env, [], info.segments)
    # Nothing is fused; only the launch API (its ops one by one) is rendered.
    asserts.equals(env, ["SkLaunch"], [a.mnemonic for a in analysistest.target_actions(env) if a.mnemonic.startswith("Sk")])
    return analysistest.end(env)

bypass_scope_test = analysistest.make(_bypass_scope_impl, config_settings = FAKE_CANN)

def _prebuilt_impl(ctx):
    env = analysistest.begin(ctx)
    link = [a for a in analysistest.target_actions(env) if a.mnemonic == "SkLink"][0]
    subs = [link.argv[i + 1] for i, a in enumerate(link.argv) if a == "--sub-obj"]
    asserts.equals(env, "tests/analysis/testdata/prebuilt.o", subs[1])
    gen = [a for a in analysistest.target_actions(env) if a.mnemonic == "SkGen"][0]
    asserts.true(env, "tests/analysis/testdata/prebuilt.json" in [f.path for f in gen.inputs.to_list()])
    op = analysistest.target_under_test(env)[SuperKernelInfo].ops[1]
    asserts.equals(env, None, op.kernel.standalone_object)
    return analysistest.end(env)

prebuilt_test = analysistest.make(_prebuilt_impl, config_settings = FAKE_CANN)

def _tensors_impl(ctx):
    env = analysistest.begin(ctx)
    writes = [a for a in analysistest.target_actions(env) if a.mnemonic == "FileWrite" and a.outputs.to_list()[0].basename == "kernel_infos.json"]
    asserts.equals(env, 1, len(writes))
    doc = json.decode(writes[0].content)
    asserts.equals(env, {"reads": ["t0", "t1"], "writes": ["t2", "add_bound.workspace"]}, doc["op_list"][0]["tensors"])
    asserts.false(env, "tensors" in doc["op_list"][1], "an unbound op must not declare guessed tensors")
    asserts.equals(env, "sync-elision=1", doc["super_kernel_options"])
    return analysistest.end(env)

tensors_test = analysistest.make(_tensors_impl, config_settings = FAKE_CANN)

FAKE_HOST = {"//command_line_option:extra_toolchains": [str(Label("//tests:fake_host_toolchain"))]}
HOST_CXX = "tests/fake_host/bin/c++"
HOST_LD = "tests/fake_host/bin/ld"

def _twin_lib_impl(ctx):
    env = analysistest.begin(ctx)
    libs = _by_mnemonic(env)["SkTwinLib"]
    asserts.equals(env, 5, len(libs))  # four standalone kernels and the SuperKernel
    by_out = {a.outputs.to_list()[0].basename: a for a in libs}
    asserts.equals(env, ["add_100.so", "add_200.so", "add_300.so", "add_400.so", "add_skp.so"], sorted(by_out))
    for name, lib in by_out.items():
        # sk builds the compiler's argv (sk.toolflow.toolargv.twin_shared_argv); Starlark passes files and tools.
        args = _sk_args(lib)
        obj = [f.path for f in lib.inputs.to_list() if f.extension == "o"]
        asserts.equals(env, 1, len(obj))
        asserts.equals(env, [
            "twin",
            "lib",
            "--toolchain",
            "host",
            "--compiler",
            HOST_CXX,
            "--ld",
            HOST_LD,
            "--obj",
            obj[0],
            "-o",
            lib.outputs.to_list()[0].path,
        ], args)
        asserts.true(env, obj[0].endswith("/add_skp.o" if name == "add_skp.so" else "/%s.o" % name[:-3]), obj[0])
        asserts.equals(env, SK_ENV, lib.env)
        inputs = [f.path for f in lib.inputs.to_list()]
        asserts.true(env, HOST_CXX in inputs and HOST_LD in inputs, "compiler and linker are inputs of SkTwinLib")
        _no_absolute_paths(env, lib)
    return analysistest.end(env)

twin_lib_test = analysistest.make(_twin_lib_impl, config_settings = FAKE_HOST)

def _failure_test(ctx):
    env = analysistest.begin(ctx)
    asserts.expect_failure(env, ctx.attr.expected)
    return analysistest.end(env)

failure_test = analysistest.make(
    _failure_test,
    expect_failure = True,
    attrs = {"expected": attr.string()},
    config_settings = FAKE_CANN,
)

host_failure_test = analysistest.make(
    _failure_test,
    expect_failure = True,
    attrs = {"expected": attr.string()},
    config_settings = FAKE_HOST,
)

def _params_layout_impl(ctx):
    """The --param list of the wrap and pack actions is upstream's layout."""
    env = analysistest.begin(ctx)
    actions = _by_mnemonic(env)
    for mnemonic in ["SkWrap", "SkSubOp"]:
        for a in actions[mnemonic]:
            args = _sk_args(a)
            asserts.equals(env, ctx.attr.expected, [args[i + 1] for i, x in enumerate(args) if x == "--param"])
    return analysistest.end(env)

params_layout_test = analysistest.make(_params_layout_impl, attrs = {"expected": attr.string_list()}, config_settings = FAKE_CANN)

def _model_run_order_impl(ctx):
    """sk_model's manifest: the run order and scopes of its super_kernels (split, bypassed or whole), and a
    twin library for each kernel and each fused segment."""
    env = analysistest.begin(ctx)
    actions = _by_mnemonic(env)
    manifest = [a for a in actions["FileWrite"] if a.outputs.to_list()[0].basename == "manifest.json"]
    asserts.equals(env, 1, len(manifest))
    build = json.decode(manifest[0].content)["build"]
    asserts.equals(env, ctx.attr.expected_ops, [op["name"] for op in build["ops"]])
    if ctx.attr.expected_streams:
        asserts.equals(env, ctx.attr.expected_streams, ["%s stream %d sends %s receives %s" % (op["name"], op["stream"], op["send_events"], op["recv_events"]) for op in build["ops"]])
    asserts.equals(env, ctx.attr.expected_scopes, ["%s:%s" % (s["name"], ",".join(s["ops"])) for s in build["super_kernels"]])
    libs = sorted([a.outputs.to_list()[0].basename for a in actions["SkTwinLib"]])
    asserts.equals(env, sorted(ctx.attr.expected_libs), libs)

    # SkModel: the manifest and the data file merged into the self-contained model file.
    asserts.equals(env, 1, len(actions["SkModel"]))
    model = actions["SkModel"][0]
    out = model.outputs.to_list()
    asserts.equals(env, ["model.json"], [f.basename for f in out])
    data = "tests/analysis/testdata/model_data.json"
    asserts.equals(env, ["model", "--built", manifest[0].outputs.to_list()[0].path, "--data", data, "-o", out[0].path], _sk_args(model))
    inputs = [f.path for f in model.inputs.to_list()]
    asserts.true(env, data in inputs and manifest[0].outputs.to_list()[0].path in inputs, "manifest and data are inputs of SkModel")
    asserts.equals(env, SK_ENV, model.env)
    _no_absolute_paths(env, model)
    return analysistest.end(env)

model_run_order_test = analysistest.make(
    _model_run_order_impl,
    attrs = {
        "expected_ops": attr.string_list(),
        "expected_scopes": attr.string_list(),
        "expected_libs": attr.string_list(),
        "expected_streams": attr.string_list(doc = "`<op> stream <id> sends <ids> receives <ids>` per op, when given"),
    },
    config_settings = FAKE_HOST,
)
