"""soc_test: runs a test target built for another SoC (--@rules_superkernel//toolchain:soc), e.g. Ascend950.

The CPU twin runs whatever SoC the SuperKernel was generated for (it models an A2/A3 core, as the CPU
debug library does); what changes with the SoC is the generated code and the sub-op JSONs (c310: keys
dav-c310-*, no FFTS slot in the parameter layout), which is what such a test exercises end to end.
"""

_SOC = str(Label("//toolchain:soc"))

def _to_soc_impl(settings, attr):
    return {_SOC: attr.soc}

_to_soc = transition(
    implementation = _to_soc_impl,
    inputs = [],
    outputs = [_SOC],
)

def _soc_test_impl(ctx):
    inner = ctx.attr.test[0]
    script = ctx.actions.declare_file(ctx.label.name + ".sh")
    ctx.actions.symlink(output = script, target_file = inner[DefaultInfo].files_to_run.executable, is_executable = True)
    runfiles = ctx.runfiles(files = [script]).merge(inner[DefaultInfo].default_runfiles)
    return [DefaultInfo(executable = script, runfiles = runfiles)]

soc_test = rule(
    implementation = _soc_test_impl,
    doc = "Runs `test` (a test target, tagged manual) with the toolchain's SoC set to `soc`.",
    attrs = {
        "soc": attr.string(mandatory = True),
        "test": attr.label(cfg = _to_soc, executable = True, mandatory = True),
        "_allowlist_function_transition": attr.label(default = "@bazel_tools//tools/allowlists/function_transition_allowlist"),
    },
    test = True,
)
