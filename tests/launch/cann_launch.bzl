"""cann_launch_library: a super_kernel's CANN launch implementation rendered from its twin-built plans.

The CANN toolchain cannot run here, so the fused kernels are built with the
host toolchain and their plans and objects handed to the same `sk launch
--flavor cann` a CANN build runs; the result links against the recording ACL
stand-in (//tests:fake_acl), and test_cann_launch.py checks every recorded
call and argument slot against the plans.
"""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "use_cpp_toolchain")
load("//rules:defs.bzl", "SuperKernelInfo")
load("//rules/private:launch.bzl", "launch_library")
load("//toolchain:defs.bzl", "SK_TOOLCHAIN_TYPE", "find_sk_toolchain")

def _impl(ctx):
    info = ctx.attr.super_kernel[SuperKernelInfo]
    lib = launch_library(
        ctx,
        find_sk_toolchain(ctx),
        info.kernel_name,
        info.ops,
        info.segments,
        twin_deps = [],
        cann_deps = [ctx.attr._api[CcInfo], ctx.attr.acl[CcInfo]],
        flavor = "cann",
    )
    return [
        DefaultInfo(files = depset(lib.files), runfiles = ctx.runfiles(files = lib.files + lib.plans + lib.binaries)),
        lib.cc_info,
        OutputGroupInfo(manifest = depset([lib.files[2]])),
    ]

cann_launch_library = rule(
    implementation = _impl,
    attrs = {
        "super_kernel": attr.label(mandatory = True, providers = [SuperKernelInfo]),
        "acl": attr.label(mandatory = True, providers = [CcInfo]),
        "_api": attr.label(default = "//sk/launch:api", providers = [CcInfo]),
        "_sk": attr.label(default = "//sk", executable = True, cfg = "exec"),
    },
    fragments = ["cpp"],
    toolchains = [SK_TOOLCHAIN_TYPE] + use_cpp_toolchain(),
)
