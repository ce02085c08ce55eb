"""WORKSPACE-mode setup (Bzlmod users need none of this; see MODULE.bazel).

    rules_superkernel_dependencies()
    rules_superkernel_register_toolchains(cann_path = "")   # optional toolkit root

The WORKSPACE must already declare rules_python, bazel_skylib, platforms and
rules_cc (with `local_repository` where there is no internet).
"""

load("//toolchain/private:cann_repo.bzl", "sk_cann_repo")
load("//toolchain/private:host_repo.bzl", "sk_host_tools_repo")
load("//toolchain/private:python_deps.bzl", "sk_pypi", "sk_python_interpreter")
load("//toolchain/private:toolchains_repo.bzl", "sk_toolchains_repo")

def rules_superkernel_dependencies():
    """The sk tool's interpreter and sha256-pinned wheels."""
    sk_python_interpreter(name = "sk_python_interpreter")
    sk_pypi(
        name = "sk_pypi",
        requirements = {
            Label("//:requirements.txt"): "tool_deps",
        },
    )

def rules_superkernel_register_toolchains(cann_path = ""):
    """The same toolchains the `cann` module extension registers.

    Args:
      cann_path: root of the CANN toolkit; empty: found as the `cann` extension finds it
        ($ASCEND_HOME_PATH, $ASCEND_TOOLKIT_HOME, `bisheng`/`ccec` on PATH, /usr/local/Ascend/ascend-toolkit/latest).
    """
    sk_cann_repo(name = "sk_cann", root = cann_path, detect = True)
    sk_host_tools_repo(name = "sk_host_tools")
    sk_toolchains_repo(
        name = "sk_toolchains",
        detect = True,
        cann_path = cann_path,
        cann_toolchain = "@sk_cann//:sk_toolchain",
        host_toolchain = "@sk_host_tools//:sk_toolchain",
    )
    native.register_toolchains("@sk_python_interpreter//:sk_toolchain", "@sk_toolchains//:all")
