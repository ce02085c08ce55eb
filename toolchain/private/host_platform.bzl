"""The constraints of the machine a repository rule runs on, for toolchains of tools found there."""

def host_constraints(rctx):
    """`[os, cpu]` constraint labels of this machine, as Starlark source text.

    Tools found on this machine (its interpreter, its compiler, a CANN install)
    run only on a machine like it: their toolchain() says so, so a build for or
    on another platform does not silently pick them.
    """
    os = "linux" if rctx.os.name.lower().startswith("linux") else ("macos" if "mac" in rctx.os.name.lower() else "windows")
    cpu = "aarch64" if rctx.os.arch in ("aarch64", "arm64") else "x86_64"
    return '["@platforms//os:%s", "@platforms//cpu:%s"]' % (os, cpu)
