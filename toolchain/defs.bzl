"""Public toolchain API of rules_superkernel.

Toolchain types: `@rules_superkernel//toolchain:toolchain_type` (an
`sk_toolchain`: CANN or the CPU twin) and
`@rules_superkernel//toolchain:python_toolchain_type` (an `sk_python_runtime`:
the interpreter of the sk tool, private to this module).

Build settings, for `.bazelrc` or the command line:

| setting | values | effect |
|---|---|---|
| `--@rules_superkernel//toolchain:mode` | `auto` (default), `cann`, `host` | which toolchain: CANN when found, else the CPU twin; or forced |
| `--@rules_superkernel//toolchain:soc` | an SoC name, e.g. `Ascend910B2` | the SoC of every `super_kernel` that sets no `soc` (default: the toolchain's, `Ascend910_9391`) |
| `--@rules_superkernel//toolchain:copts` | comma-separated flags | added to every sub-kernel and entry compile, before a target's own `copts` |
"""

load("//toolchain/private:providers.bzl", _SkPythonInfo = "SkPythonInfo", _SkToolchainInfo = "SkToolchainInfo")
load("//toolchain/private:python_tool.bzl", _sk_python_runtime = "sk_python_runtime")
load("//toolchain/private:toolchain.bzl", _sk_toolchain = "sk_toolchain")

SkToolchainInfo = _SkToolchainInfo
sk_toolchain = _sk_toolchain
SkPythonInfo = _SkPythonInfo
sk_python_runtime = _sk_python_runtime

SK_TOOLCHAIN_TYPE = Label("//toolchain:toolchain_type")

def find_sk_toolchain(ctx):
    """The SkToolchainInfo resolved for `ctx`; fails with its reason when unavailable."""
    tc = ctx.toolchains[SK_TOOLCHAIN_TYPE].sk
    if not tc.available:
        fail("%s needs the %s SuperKernel toolchain, which is unavailable: %s" % (ctx.label, tc.flavor, tc.unavailable_reason))
    return tc
