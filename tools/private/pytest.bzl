"""`sk_pytest`: a py_test that runs pytest over its sources.

The same test files run unchanged under `python -m pytest`, so nothing in them
may depend on Bazel beyond optional environment variables.
"""

load("@rules_python//python:defs.bzl", "py_test")

def sk_pytest(name, srcs, deps = [], data = [], args = [], env = {}, **kwargs):
    py_test(
        name = name,
        srcs = srcs + [Label("//tools/private:pytest_main.py")],
        main = Label("//tools/private:pytest_main.py"),
        args = args + ["$(rootpath %s)" % s for s in srcs],
        deps = deps + ["@sk_dev_pypi//:test_deps"],
        data = data,
        env = dict({"PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1"}, **env),
        **kwargs
    )
