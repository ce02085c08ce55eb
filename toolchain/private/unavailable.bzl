"""BUILD text of a toolchain whose tools were not found (shared by the repository rules)."""

def unavailable_toolchain_build(flavor, reason):
    """An sk_toolchain that fails, with `reason`, any target that resolves it."""
    return """\
load("@rules_superkernel//toolchain:defs.bzl", "sk_toolchain")

sk_toolchain(
    name = "sk_toolchain",
    flavor = "{flavor}",
    available = False,
    unavailable_reason = {reason},
    visibility = ["//visibility:public"],
)
""".format(flavor = flavor, reason = repr(reason))
