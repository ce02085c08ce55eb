"""Public toolchain API of rules_superkernel."""

load("//toolchain/private:providers.bzl", _SkToolchainInfo = "SkToolchainInfo")
load("//toolchain/private:toolchain.bzl", _sk_toolchain = "sk_toolchain")

SkToolchainInfo = _SkToolchainInfo
sk_toolchain = _sk_toolchain

SK_TOOLCHAIN_TYPE = Label("//toolchain:toolchain_type")

def find_sk_toolchain(ctx):
    """The SkToolchainInfo resolved for `ctx`; fails with its reason when unavailable."""
    tc = ctx.toolchains[SK_TOOLCHAIN_TYPE].sk
    if not tc.available:
        fail("%s needs the %s SuperKernel toolchain, which is unavailable: %s" % (ctx.label, tc.flavor, tc.unavailable_reason))
    return tc
