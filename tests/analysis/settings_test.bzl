"""The toolchain's build settings (--@rules_superkernel//toolchain:soc / :copts), as rules_cuda has them."""

load("@bazel_skylib//lib:unittest.bzl", "analysistest", "asserts")

FAKE_CANN = {"//command_line_option:extra_toolchains": [str(Label("//tests:fake_cann_toolchain"))]}
SOC = str(Label("//toolchain:soc"))
COPTS = str(Label("//toolchain:copts"))

def _actions(env, mnemonic):
    return [a for a in analysistest.target_actions(env) if a.mnemonic == mnemonic]

def _soc_setting_impl(ctx):
    env = analysistest.begin(ctx)
    gen = _actions(env, "SkGen")[0].argv
    asserts.equals(env, ctx.attr.want_soc, gen[gen.index("--soc") + 1])
    return analysistest.end(env)

_SOC_ATTRS = {"want_soc": attr.string()}

# The setting replaces the toolchain's default SoC; a super_kernel's own `soc` still wins.
soc_setting_test = analysistest.make(_soc_setting_impl, attrs = _SOC_ATTRS, config_settings = dict(FAKE_CANN, **{SOC: "Ascend910B2"}))
soc_default_test = analysistest.make(_soc_setting_impl, attrs = _SOC_ATTRS, config_settings = FAKE_CANN)

def _sub_kernel_soc_setting_impl(ctx):
    env = analysistest.begin(ctx)
    steps = _actions(env, "SkCompile") + _actions(env, "SkWrap") + _actions(env, "SkSubOp")
    asserts.true(env, len(_actions(env, "SkSubOp")) > 0, "no SkSubOp action")
    for action in steps:
        # The chip picks the CANN compile target and, in pack, the sub-op JSON's MIX keys (dav-<chip>-*).
        argv = action.argv
        asserts.equals(env, "Ascend950PR_9579", argv[argv.index("--soc") + 1], action.mnemonic)
    return analysistest.end(env)

# A sub-kernel is compiled and packed for the toolchain's SoC, the setting's when given.
sub_kernel_soc_setting_test = analysistest.make(_sub_kernel_soc_setting_impl, config_settings = dict(FAKE_CANN, **{SOC: "Ascend950PR_9579"}))

def _copts_setting_impl(ctx):
    env = analysistest.begin(ctx)
    for action in _actions(env, "SkCompile"):
        argv = action.argv
        tail = argv[argv.index("--") + 1:]
        # The setting's flags first, then the target's own (a later flag wins in the compiler).
        asserts.equals(env, ["-DFROM_SETTING=1", "-O3", "-DMY_FLAG=1"], tail)
    asserts.true(env, len(_actions(env, "SkCompile")) > 0, "no SkCompile action")
    return analysistest.end(env)

copts_setting_test = analysistest.make(_copts_setting_impl, config_settings = dict(FAKE_CANN, **{COPTS: ["-DFROM_SETTING=1", "-O3"]}))
