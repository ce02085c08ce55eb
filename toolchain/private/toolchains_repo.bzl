"""@sk_toolchains: toolchain() declarations only, cheap to evaluate.

Which toolchain wins follows --@rules_superkernel//toolchain:mode: `cann` and
`host` select explicitly; `auto` (the default) takes CANN when it was found
and the CPU twin otherwise.
"""

load(":cann_repo.bzl", "detect_in_repo")
load(":host_platform.bzl", "host_constraints")

def _toolchains_repo_impl(rctx):
    cann_found = rctx.attr.cann_found
    if rctx.attr.detect:
        cann_found = detect_in_repo(rctx, rctx.attr.cann_path).found
    mode = "@rules_superkernel//toolchain:mode_"
    cann_settings = ['"%scann"' % mode]
    host_settings = ['"%shost"' % mode]
    (cann_settings if cann_found else host_settings).append('"%sauto"' % mode)
    # Both toolchains' tools were found on this machine and run on one like it; the CPU
    # twin's objects are loaded by a process on it too. CANN's objects are for the NPU, which
    # has no platform constraint of its own: only the OS is required of the target.
    here = host_constraints(rctx)
    target = {"cann": '["@platforms//os:linux"]', "host": here}
    lines = []
    for flavor, impl, settings in (
        ("cann", rctx.attr.cann_toolchain, cann_settings),
        ("host", rctx.attr.host_toolchain, host_settings),
    ):
        for i, setting in enumerate(settings):
            lines.append("""toolchain(
    name = "{flavor}_{i}",
    toolchain = "{impl}",
    toolchain_type = "@rules_superkernel//toolchain:toolchain_type",
    exec_compatible_with = {here},
    target_compatible_with = {target},
    target_settings = [{setting}],
)
""".format(flavor = flavor, i = i, impl = impl, setting = setting, here = here, target = target[flavor]))
    rctx.file("BUILD.bazel", "\n".join(lines))
    rctx.file("WORKSPACE", "")

sk_toolchains_repo = repository_rule(
    implementation = _toolchains_repo_impl,
    attrs = {
        "cann_found": attr.bool(),
        "detect": attr.bool(doc = "detect CANN here (WORKSPACE mode)"),
        "cann_path": attr.string(doc = "with detect: the toolkit path given to the WORKSPACE macro"),
        "cann_toolchain": attr.string(),
        "host_toolchain": attr.string(),
    },
)
