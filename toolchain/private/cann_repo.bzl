"""@sk_cann: the detected CANN toolkit, or a stand-in that explains its absence."""

load(":cann_detect.bzl", "detect_cann", "unavailable_message")
load(":unavailable.bzl", "unavailable_toolchain_build")

# Include directories of an Ascend C compile, relative to the toolkit root, in the order
# upstream's SuperKernel compile lists them (GA SuperOperatorInfos.gen_compile_info;
# docs/cann-flow.md): the `asc` tree's impl/ and include/ API directories, then act, impl,
# tikcpp, the toolkit's include/ and the tikcfw tree.
_ASC_IMPL_SUBDIRS = ["adv_api", "basic_api", "c_api", "micro_api", "simt_api", "utils"]
_ASC_INCLUDE_SUBDIRS = ["adv_api", "basic_api", "aicpu_api", "c_api", "micro_api", "simt_api", "utils"]

def _asc_include_dirs(arch, impl_subdirs, include_subdirs, with_asc):
    asc = "%s-linux/asc" % arch
    return (["%s/impl/%s" % (asc, sub) for sub in impl_subdirs] +
            ["%s/include" % asc] +
            ["%s/include/%s" % (asc, sub) for sub in include_subdirs] +
            ["%s-linux/ascendc/act" % arch, "%s/impl" % asc] +
            ([asc] if with_asc else []) + [
        "%s-linux/tikcpp" % arch,
        "include",
        "include/ascendc",
        "%s-linux/tikcpp/tikcfw" % arch,
        "%s-linux/tikcpp/tikcfw/impl" % arch,
        "%s-linux/tikcpp/tikcfw/interface" % arch,
    ])

def cann_include_dirs(arch):
    return _asc_include_dirs(arch, _ASC_IMPL_SUBDIRS, _ASC_INCLUDE_SUBDIRS, with_asc = False)

# The entry stub of a split SuperKernel half is compiled with ADK's own list (gen_spk_kernel_call):
# reg_compute instead of micro_api, and the `asc` directory itself.
_STUB_IMPL_SUBDIRS = ["adv_api", "basic_api", "c_api", "basic_api/reg_compute", "simt_api", "utils"]
_STUB_INCLUDE_SUBDIRS = ["adv_api", "basic_api", "aicpu_api", "c_api", "basic_api/reg_compute", "simt_api", "utils"]

def cann_stub_include_dirs(arch):
    return _asc_include_dirs(arch, _STUB_IMPL_SUBDIRS, _STUB_INCLUDE_SUBDIRS, with_asc = True)

def cann_toolchain_build(compiler_dir, arch, prefix = "cann/", extra_attrs = "", stub_compiler = "ccec"):
    """BUILD text declaring an sk_toolchain over a toolkit at `prefix`.

    stub_compiler: the program in compiler_dir that compiles a split SuperKernel's entry stubs: `ccec`, as
    upstream (ADK gen_spk_kernel_call); `bisheng` only for a toolkit without ccec, where upstream's own
    split SuperKernel compile cannot run.
    """
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
    stub_compiler = "{p}{cd}/{stub}",
    linker = "{p}{cd}/ld.lld",
    objcopy = "{p}{cd}/llvm-objcopy",
    files = [":files"],
    root_file = "{p}{cd}/bisheng",
    include_dirs = [{dirs}],
    stub_include_dirs = [{stub_dirs}],
{extra}    visibility = ["//visibility:public"],
)
""".format(
        p = prefix,
        cd = compiler_dir,
        arch = arch,
        dirs = ", ".join(['"%s"' % ("../" * len(compiler_dir.split("/")) + d) for d in cann_include_dirs(arch)]),
        stub_dirs = ", ".join(['"%s"' % ("../" * len(compiler_dir.split("/")) + d) for d in cann_stub_include_dirs(arch)]),
        extra = extra_attrs,
        stub = stub_compiler,
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
            stub_compiler = "ccec" if rctx.path("%s/%s/ccec" % (root, compiler_dir)).exists else "bisheng",
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
