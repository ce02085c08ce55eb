"""cann_build: builds a target with the CANN toolchain, whatever the mode flag says."""

def _to_cann_impl(settings, attr):
    return {"@rules_superkernel//toolchain:mode": "cann"}

_to_cann = transition(
    implementation = _to_cann_impl,
    inputs = [],
    outputs = ["@rules_superkernel//toolchain:mode"],
)

def _cann_build_impl(ctx):
    return [DefaultInfo(files = ctx.attr.target[0][DefaultInfo].files)]

cann_build = rule(
    implementation = _cann_build_impl,
    attrs = {
        "target": attr.label(cfg = _to_cann, mandatory = True),
        "_allowlist_function_transition": attr.label(default = "@bazel_tools//tools/allowlists/function_transition_allowlist"),
    },
)
