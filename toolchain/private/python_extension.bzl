"""Module extension creating @sk_python_interpreter and @sk_pypi (the sk tool's wheels; the test wheels are dev-only: tools/private/dev_extension.bzl)."""

load(":python_deps.bzl", "sk_pypi", "sk_python_interpreter")

def _sk_python_impl(mctx):
    sk_python_interpreter(name = "sk_python_interpreter")
    sk_pypi(
        name = "sk_pypi",
        requirements = {
            Label("//:requirements.txt"): "tool_deps",
        },
    )

sk_python = module_extension(implementation = _sk_python_impl)
