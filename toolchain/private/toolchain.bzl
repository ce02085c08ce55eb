"""The sk_toolchain rule."""

load("@bazel_skylib//lib:paths.bzl", "paths")
load("@bazel_skylib//rules:common_settings.bzl", "BuildSettingInfo")
load(":providers.bzl", "SkToolchainInfo")

def _sk_toolchain_impl(ctx):
    available = ctx.attr.available
    if available:
        for attr in ("compiler", "linker", "objcopy"):
            if not getattr(ctx.file, attr):
                fail("sk_toolchain %s: attribute '%s' is required when available = True" % (ctx.label, attr))
    root = ctx.file.root_file.dirname if ctx.file.root_file else ""
    include_dirs = [paths.normalize(paths.join(root, d)) for d in ctx.attr.include_dirs]
    stub_include_dirs = [paths.normalize(paths.join(root, d)) for d in ctx.attr.stub_include_dirs]
    files = [f for f in [ctx.file.compiler, ctx.file.stub_compiler, ctx.file.linker, ctx.file.objcopy, ctx.file.runtime_lib] if f]
    info = SkToolchainInfo(
        label = ctx.label,
        flavor = ctx.attr.flavor,
        available = available,
        unavailable_reason = ctx.attr.unavailable_reason,
        compiler = ctx.file.compiler,
        stub_compiler = ctx.file.stub_compiler,
        linker = ctx.file.linker,
        objcopy = ctx.file.objcopy,
        runtime_lib = ctx.file.runtime_lib,
        acl = ctx.attr.acl,
        all_files = depset(files + ctx.files.files),
        include_dirs = include_dirs,
        stub_include_dirs = stub_include_dirs,
        # The build settings, as rules_cuda's: --@rules_superkernel//toolchain:copts adds to every
        # compile (a target's own copts come after, so they win); --@rules_superkernel//toolchain:soc
        # replaces the toolchain's default SoC (a super_kernel's `soc` still wins).
        copts = ctx.attr.copts + ctx.attr._copts_setting[BuildSettingInfo].value,
        soc = ctx.attr._soc_setting[BuildSettingInfo].value or ctx.attr.soc,
        execution_requirements = ctx.attr.execution_requirements,
    )
    return [platform_common.ToolchainInfo(sk = info), info]

sk_toolchain = rule(
    implementation = _sk_toolchain_impl,
    doc = """Declares the tools that compile and link SuperKernels.

Tools are labels, so their bytes are part of every action key: a toolkit
upgrade invalidates cached results instead of silently reusing them.""",
    attrs = {
        "flavor": attr.string(mandatory = True, values = ["cann", "host"], doc = "'cann' or 'host' (CPU twin)"),
        "available": attr.bool(default = True, doc = "False when the toolkit is missing"),
        "unavailable_reason": attr.string(doc = "Message shown when a target needs this toolchain but it is unavailable"),
        "compiler": attr.label(allow_single_file = True, cfg = "exec", doc = "bisheng (cann) or g++ (host)"),
        "stub_compiler": attr.label(allow_single_file = True, cfg = "exec", doc = "cann: the compiler of a split SuperKernel's entry stubs, ccec (upstream compiles them with ccec, the SuperKernel's halves with bisheng); empty: compiler"),
        "linker": attr.label(allow_single_file = True, cfg = "exec", doc = "ld.lld (cann) or ld (host)"),
        "objcopy": attr.label(allow_single_file = True, cfg = "exec", doc = "llvm-objcopy (cann) or objcopy (host)"),
        "runtime_lib": attr.label(allow_single_file = True, doc = "host: the CPU-twin runtime library (its symbols may stay undefined in fused objects; sk_model loads it)"),
        "acl": attr.label(providers = [CcInfo], doc = "cann: the toolkit's ACL runtime as a cc_library (acl/acl.h and libascendcl); the launch API of a super_kernel compiles and links against it"),
        "files": attr.label_list(allow_files = True, cfg = "exec", doc = "Headers, libraries and other files the tools read"),
        "root_file": attr.label(allow_single_file = True, doc = "A file whose directory include_dirs are relative to"),
        "include_dirs": attr.string_list(doc = "Include directories relative to root_file's directory ('.' = that directory)"),
        "stub_include_dirs": attr.string_list(doc = "cann: the include directories of a split SuperKernel's entry stubs (upstream compiles them with a list of its own), relative as include_dirs; empty: include_dirs"),
        "copts": attr.string_list(doc = "Flags appended to every compile"),
        "soc": attr.string(default = "Ascend910_9391", doc = "Default SoC for SuperKernels built with this toolchain; its chip (c220: Atlas A2/A3, c310: Ascend950) is also the CANN compile target of the sub-kernels. One of upstream's parts: Ascend910B1/B2/B2C/B3/B4/B4-1, Ascend910_9391/9392/9381/9382/9372/9362, Ascend950PR_9579"),
        "execution_requirements": attr.string_dict(doc = "Execution requirements for actions using these tools (e.g. no-remote-exec for a local CANN)"),
        "_soc_setting": attr.label(default = "//toolchain:soc"),
        "_copts_setting": attr.label(default = "//toolchain:copts"),
    },
    provides = [SkToolchainInfo],
)
