"""@sk_cann: the detected CANN toolkit, or a stand-in that explains its absence."""

load(":cann_detect.bzl", "detect_cann", "unavailable_message")
load(":unavailable.bzl", "unavailable_toolchain_build")

# Include directories of an Ascend C compile, relative to the toolkit root
# (superkernel-facts.md §6.2).
_ASC_SUBDIRS = ["adv_api", "basic_api", "c_api", "micro_api", "simt_api", "utils", "aicpu_api"]

def cann_include_dirs(arch):
    asc = "%s-linux/asc" % arch
    dirs = []
    for top in ("impl", "include"):
        dirs.append("%s/%s" % (asc, top))
        for sub in _ASC_SUBDIRS:
            dirs.append("%s/%s/%s" % (asc, top, sub))
    dirs += [
        "%s-linux/ascendc/act" % arch,
        "%s-linux/tikcpp" % arch,
        "%s-linux/tikcpp/tikcfw" % arch,
        "%s-linux/tikcpp/tikcfw/impl" % arch,
        "%s-linux/tikcpp/tikcfw/interface" % arch,
        "include",
        "include/ascendc",
    ]
    return dirs

def cann_toolchain_build(compiler_dir, arch, prefix = "cann/", extra_attrs = ""):
    """BUILD text declaring an sk_toolchain over a toolkit at `prefix`."""
    return """\
load("@rules_cc//cc:defs.bzl", "cc_library")
load("@rules_superkernel//toolchain:defs.bzl", "sk_toolchain")

filegroup(
    name = "files",
    srcs = glob(
        ["{p}{cd}/**", "{p}{arch}-linux/**", "{p}include/**"],
        exclude = ["**/*.pyc", "**/__pycache__/**", "**/* *"],
        allow_empty = True,
    ),
)

# The ACL runtime a super_kernel's launch API compiles and links against.
cc_library(
    name = "acl",
    hdrs = glob(["{p}include/acl/**/*.h"], allow_empty = True),
    includes = ["{p}include"],
    srcs = glob(["{p}lib64/libascendcl.so"], allow_empty = True),
    visibility = ["//visibility:public"],
)

sk_toolchain(
    name = "sk_toolchain",
    flavor = "cann",
    acl = ":acl",
    compiler = "{p}{cd}/bisheng",
    linker = "{p}{cd}/ld.lld",
    objcopy = "{p}{cd}/llvm-objcopy",
    files = [":files"],
    root_file = "{p}{cd}/bisheng",
    include_dirs = [{dirs}],
{extra}    visibility = ["//visibility:public"],
)
""".format(
        p = prefix,
        cd = compiler_dir,
        arch = arch,
        dirs = ", ".join(['"%s"' % ("../" * len(compiler_dir.split("/")) + d) for d in cann_include_dirs(arch)]),
        extra = extra_attrs,
    )

def detect_in_repo(rctx, tag_path):
    """detect_cann() for repository rules (WORKSPACE mode has no module extension)."""
    return detect_cann(
        tag_path,
        getenv = lambda n: rctx.os.environ.get(n),
        which = lambda p: (str(rctx.which(p)) if rctx.which(p) else None),
        exists = lambda p: rctx.path(p).exists,
    )

def _cann_repo_impl(rctx):
    arch = rctx.attr.arch
    if rctx.attr.detect:
        result = detect_in_repo(rctx, rctx.attr.root)
        root_path = result.root if result.found else ""
        compiler_dir = result.compiler_dir or ""
        how = result.how or ""
        message = "" if result.found else unavailable_message(result)
    else:
        root_path, compiler_dir, how, message = rctx.attr.root, rctx.attr.compiler_dir, rctx.attr.how, rctx.attr.message
    if root_path:
        root = rctx.path(root_path).realpath
        rctx.symlink(root, "cann")
        for f in ("version.info", "version.cfg", "%s-linux/ascend_toolkit_install.info" % arch):
            version_file = rctx.path("%s/%s" % (root, f))
            if version_file.exists:
                # A CANN upgrade in place re-runs this rule.
                rctx.watch(version_file)
        build = cann_toolchain_build(
            compiler_dir,
            arch,
            # A locally installed CANN is not on remote executors; results
            # are still uploaded to and served from the remote cache.
            extra_attrs = '    execution_requirements = {"no-remote-exec": "1"},\n',
        )
        status = "CANN found at %s (%s)" % (root, how)
        build += _status_build(True)
    else:
        build = unavailable_toolchain_build("cann", message)
        status = message
        build += _status_build(False)
    rctx.file("BUILD.bazel", build)
    rctx.file("status.txt", (status + "\n"))
    rctx.file("WORKSPACE", "")

def _status_build(found):
    # `requires_cann()` makes targets incompatible through this constraint
    # when CANN is missing; its name is what Bazel prints for an explicit build.
    return """
constraint_setting(name = "cann", visibility = ["//visibility:public"])

constraint_value(
    name = "CANN_not_found__set_ASCEND_HOME_PATH_or_cann_toolkit_path__or_use_mode_host",
    constraint_setting = ":cann",
    visibility = ["//visibility:public"],
)

alias(
    name = "compatible",
    actual = {actual},
    visibility = ["//visibility:public"],
)

exports_files(["status.txt"], visibility = ["//visibility:public"])
""".format(
        actual = '"@platforms//os:linux"' if found else '":CANN_not_found__set_ASCEND_HOME_PATH_or_cann_toolkit_path__or_use_mode_host"',
    )

sk_cann_repo = repository_rule(
    implementation = _cann_repo_impl,
    attrs = {
        "root": attr.string(doc = "absolute toolkit root, empty when CANN was not found (with detect: the cann.toolkit path, may be empty)"),
        "detect": attr.bool(doc = "detect here (WORKSPACE mode) instead of taking the extension's result"),
        "compiler_dir": attr.string(doc = "directory of bisheng relative to root"),
        "arch": attr.string(default = "x86_64"),
        "how": attr.string(doc = "which source found it"),
        "message": attr.string(doc = "why it is unavailable"),
    },
    environ = ["ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME"],
    local = True,
)
