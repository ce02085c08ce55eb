"""@sk_toolchains: toolchain() declarations only, cheap to evaluate.

Which toolchain wins follows --@rules_superkernel//toolchain:mode: `cann` and
`host` select explicitly; `auto` (the default) takes CANN when it was found
and the CPU twin otherwise.
"""

load(":cann_repo.bzl", "detect_in_repo")

def _toolchains_repo_impl(rctx):
    cann_found = rctx.attr.cann_found
    if rctx.attr.detect:
        cann_found = detect_in_repo(rctx, rctx.attr.cann_path).found
    mode = "@rules_superkernel//toolchain:mode_"
    cann_settings = ['"%scann"' % mode]
    host_settings = ['"%shost"' % mode]
    (cann_settings if cann_found else host_settings).append('"%sauto"' % mode)
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
    target_settings = [{setting}],
)
""".format(flavor = flavor, i = i, impl = impl, setting = setting))
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
