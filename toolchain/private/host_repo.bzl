"""@sk_host_tools: the host compiler, linker and objcopy for the CPU twin.

The tools are symlinked into the repository so actions name them by label:
their bytes key the cache, and an upgraded compiler is a cache miss rather
than a stale hit.
"""

load(":unavailable.bzl", "unavailable_toolchain_build")

def _find(rctx, env_var, names):
    wanted = rctx.os.environ.get(env_var, "")
    if wanted:
        path = rctx.path(wanted) if wanted.startswith("/") else rctx.which(wanted)
        if not path or not path.exists:
            fail("rules_superkernel: %s=%s does not name an existing program" % (env_var, wanted))
        return path
    for name in names:
        path = rctx.which(name)
        if path:
            return path
    return None

def _host_repo_impl(rctx):
    tools = {
        "c++": _find(rctx, "SK_HOST_CXX", ["g++", "c++", "clang++"]),
        "ld": _find(rctx, "SK_HOST_LD", ["ld", "ld.bfd", "ld.lld"]),
        "objcopy": _find(rctx, "SK_HOST_OBJCOPY", ["objcopy", "llvm-objcopy"]),
    }
    missing = [k for k, v in tools.items() if not v]
    if missing:
        reason = "host tools not found on PATH: %s (install g++ and binutils, or set SK_HOST_CXX / SK_HOST_LD / SK_HOST_OBJCOPY)" % ", ".join(missing)
        rctx.file("BUILD.bazel", unavailable_toolchain_build("host", reason))
        return
    for name, path in tools.items():
        if name == "c++":
            # The gcc driver finds cc1plus relative to its own location, so a
            # copied symlink (remote execution stages files, not links) breaks
            # it: call the installed driver instead. Its sha256 is part of the
            # script, so an upgraded compiler still changes every action key.
            digest = rctx.execute(["sha256sum", str(path)]).stdout.split(" ")[0]
            rctx.file("bin/c++", "#!/bin/sh\n# %s sha256:%s\nexec '%s' \"$@\"\n" % (path, digest, path), executable = True)
        else:
            rctx.symlink(path, "bin/" + name)
    rctx.file("BUILD.bazel", """\
load("@rules_superkernel//toolchain:defs.bzl", "sk_toolchain")

exports_files(["bin/c++", "bin/ld", "bin/objcopy"], visibility = ["//visibility:public"])

sk_toolchain(
    name = "sk_toolchain",
    flavor = "host",
    compiler = "bin/c++",
    linker = "bin/ld",
    objcopy = "bin/objcopy",
    runtime_lib = "@rules_superkernel//sk/runtime:libskrt.so",
    files = ["@rules_superkernel//sk/runtime:twin_headers"],
    root_file = "@rules_superkernel//sk/runtime:include/kernel_operator.h",
    include_dirs = ["."],
    visibility = ["//visibility:public"],
)
""")
    rctx.file("WORKSPACE", "")

sk_host_tools_repo = repository_rule(
    implementation = _host_repo_impl,
    environ = ["SK_HOST_CXX", "SK_HOST_LD", "SK_HOST_OBJCOPY"],
)
