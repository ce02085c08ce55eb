"""Dev-only repositories of rules_superkernel (never seen by consumers).

@sk_dev_pypi holds the test wheels (requirements-test.txt).

@sk_conformance exposes upstream's golden scenarios, which live beside the
project in ../shared/conformance and must not be copied into it. The sandbox
cannot see ../shared, so the files enter the build as a repository (and are
hashed into the test actions like any input). $SK_CONFORMANCE_DIR overrides the
location; when nothing is found the repository is empty and says why, and the
tests that need it skip with that reason.
"""

load("//toolchain/private:python_deps.bzl", "sk_pypi")

def _conformance_impl(rctx):
    wanted = rctx.os.environ.get("SK_CONFORMANCE_DIR", "")
    if wanted:
        src = rctx.path(wanted)
        how = "SK_CONFORMANCE_DIR"
    else:
        src = rctx.workspace_root.dirname.get_child("shared").get_child("conformance")
        how = "../shared/conformance beside the checkout"
    if src.exists and src.get_child("INDEX.json").exists:
        rctx.symlink(src, "data")
        rctx.file("BUILD.bazel", """\
# REASON is empty: the data is present under data/.
exports_files(["REASON"])

filegroup(
    name = "conformance",
    srcs = glob(["data/**"]) + ["REASON"],
    visibility = ["//visibility:public"],
)
""")
        rctx.file("REASON", "")
    else:
        rctx.file("BUILD.bazel", """\
# REASON says why the data is absent.
exports_files(["REASON"])

filegroup(
    name = "conformance",
    srcs = ["REASON"],
    visibility = ["//visibility:public"],
)
""")
        rctx.file("REASON", "upstream conformance data not found (looked at %s via %s); set --repo_env=SK_CONFORMANCE_DIR=/path/to/conformance\n" % (src, how))
    rctx.file("WORKSPACE", "")

sk_conformance_repo = repository_rule(
    implementation = _conformance_impl,
    environ = ["SK_CONFORMANCE_DIR"],
    local = True,
)

def _sk_dev_impl(mctx):
    sk_conformance_repo(name = "sk_conformance")
    # The test wheels (pytest, hypothesis, pyelftools, vermin): fetched only where this
    # module is the root, never for a consumer.
    sk_pypi(
        name = "sk_dev_pypi",
        requirements = {Label("//:requirements-test.txt"): "test_deps"},
    )

sk_dev = module_extension(implementation = _sk_dev_impl)
