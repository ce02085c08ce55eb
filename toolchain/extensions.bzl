"""Module extension `cann`: finds the CANN toolkit and registers the toolchains.

    cann = use_extension("@rules_superkernel//toolchain:extensions.bzl", "cann")
    cann.toolkit(path = "/opt/Ascend/ascend-toolkit/latest")   # root module only, optional

Without a tag the toolkit is looked up in $ASCEND_HOME_PATH,
$ASCEND_TOOLKIT_HOME, next to `bisheng`/`ccec` on PATH, then in
/usr/local/Ascend/ascend-toolkit/latest. Repositories: @sk_cann (the toolkit
or a stand-in that explains its absence), @sk_host_tools (CPU twin),
@sk_toolchains (register with `register_toolchains("@sk_toolchains//:all")`).
"""

load("//toolchain/private:cann_detect.bzl", "detect_cann", "unavailable_message")
load("//toolchain/private:cann_repo.bzl", "sk_cann_repo")
load("//toolchain/private:host_repo.bzl", "sk_host_tools_repo")
load("//toolchain/private:toolchains_repo.bzl", "sk_toolchains_repo")

_toolkit = tag_class(
    doc = "Use the CANN toolkit at `path` (root module only).",
    attrs = {"path": attr.string(mandatory = True, doc = "toolkit root; relative paths are relative to the root module")},
)

def _root_tag_path(mctx):
    paths = []
    for mod in mctx.modules:
        for tag in mod.tags.toolkit:
            if not mod.is_root:
                fail("cann.toolkit(path = %r) in module '%s': only the root module may choose the CANN toolkit" % (tag.path, mod.name))
            paths.append(tag.path)
    if len(paths) > 1 and len({p: None for p in paths}) > 1:
        fail("cann.toolkit: conflicting paths %s; give one" % paths)
    if not paths:
        return ""
    path = paths[0]
    if not path.startswith("/"):
        path = str(mctx.path(Label("@@//:MODULE.bazel")).dirname) + "/" + path
    return path

def _cann_impl(mctx):
    result = detect_cann(
        _root_tag_path(mctx),
        getenv = lambda n: mctx.os.environ.get(n),
        which = lambda p: (str(mctx.which(p)) if mctx.which(p) else None),
        exists = lambda p: mctx.path(p).exists,
    )
    arch = "aarch64" if mctx.os.arch in ("aarch64", "arm64") else "x86_64"
    sk_cann_repo(
        name = "sk_cann",
        root = result.root if result.found else "",
        compiler_dir = result.compiler_dir or "",
        arch = arch,
        how = result.how or "",
        message = "" if result.found else unavailable_message(result),
    )
    sk_host_tools_repo(name = "sk_host_tools")
    sk_toolchains_repo(
        name = "sk_toolchains",
        cann_found = result.found,
        cann_toolchain = "@sk_cann//:sk_toolchain",
        host_toolchain = "@sk_host_tools//:sk_toolchain",
    )

cann = module_extension(
    implementation = _cann_impl,
    doc = "Finds the CANN toolkit (the root module's `toolkit` tag, else the environment) and creates @sk_cann, @sk_host_tools and @sk_toolchains.",
    tag_classes = {"toolkit": _toolkit},
    environ = ["ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME", "PATH"],
)
