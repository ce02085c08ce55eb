"""The sk tool's own Python: a toolchain type of this module and a launcher rule that resolves it.

Why not `py_binary`: a `py_binary` takes its interpreter from Bazel's general
Python toolchain type, which every module of a build shares. Registering the sk
tool's interpreter there would hand it to every `py_*` target of a consumer, and
a consumer whose `bazel_dep`s list rules_python first would hand rules_python's
(autodetecting) interpreter to the sk tool. `sk_py_binary` resolves
`@rules_superkernel//toolchain:python_toolchain_type` instead, which only this
module's targets ask for, so neither side sees the other's interpreter whatever
the order of registration.
"""

load("@rules_python//python:defs.bzl", "PyInfo")
load(":providers.bzl", "SkPythonInfo")

PYTHON_TOOLCHAIN_TYPE = Label("//toolchain:python_toolchain_type")

def _sk_python_runtime_impl(ctx):
    return [platform_common.ToolchainInfo(
        sk_python = SkPythonInfo(
            interpreter_path = ctx.attr.interpreter_path,
            version = ctx.attr.version,
        ),
    )]

sk_python_runtime = rule(
    implementation = _sk_python_runtime_impl,
    attrs = {
        "interpreter_path": attr.string(mandatory = True, doc = "absolute path of the interpreter on the machines that run the sk tool"),
        "version": attr.string(mandatory = True, doc = "its `major.minor`, e.g. `3.9`"),
    },
    doc = "The interpreter of the sk tool, for a `toolchain(toolchain_type = \"@rules_superkernel//toolchain:python_toolchain_type\")`.",
)

def _runfiles_path(ctx, f):
    return f.short_path[3:] if f.short_path.startswith("../") else ctx.workspace_name + "/" + f.short_path

# A POSIX shell launcher: the runfiles are beside the launcher (an action's tool, a worker), or the
# launcher is inside another binary's runfiles tree (`bazel run`/`bazel test` of sk_model).
_LAUNCHER = """#!/bin/sh
# {label}: {main} on the sk tool's Python ({version}), from @rules_superkernel//toolchain:python_toolchain_type.
case "$0" in /*) self=$0 ;; *) self=$PWD/$0 ;; esac
if [ -d "$self.runfiles" ]; then r=$self.runfiles
else
  case "$self" in
    *.runfiles/*) r=${{self%%.runfiles/*}}.runfiles ;;
    *) r=${{RUNFILES_DIR:-${{TEST_SRCDIR:-}}}} ;;
  esac
fi
if [ -z "$r" ] || [ ! -f "$r/{main}" ]; then
  echo "{label}: cannot find its runfiles (looked beside $0 and in RUNFILES_DIR)" >&2
  exit 1
fi
PYTHONPATH={pythonpath}${{PYTHONPATH:+:$PYTHONPATH}}
export PYTHONPATH
exec "{interpreter}" "$r/{main}" "$@"
"""

def _sk_py_binary_impl(ctx):
    python = ctx.toolchains[PYTHON_TOOLCHAIN_TYPE].sk_python
    imports = depset(transitive = [d[PyInfo].imports for d in ctx.attr.deps if PyInfo in d]).to_list()
    launcher = ctx.actions.declare_file(ctx.label.name)
    ctx.actions.write(launcher, _LAUNCHER.format(
        label = ctx.label,
        main = _runfiles_path(ctx, ctx.file.main),
        version = python.version,
        interpreter = python.interpreter_path,
        pythonpath = ":".join(['"$r/%s"' % i for i in sorted(imports)]),
    ), is_executable = True)
    runfiles = ctx.runfiles(files = [ctx.file.main])
    for dep in ctx.attr.deps:
        runfiles = runfiles.merge(dep[DefaultInfo].default_runfiles)
    return [DefaultInfo(executable = launcher, files = depset([launcher]), runfiles = runfiles)]

sk_py_binary = rule(
    implementation = _sk_py_binary_impl,
    executable = True,
    attrs = {
        "main": attr.label(mandatory = True, allow_single_file = [".py"], doc = "the script to run"),
        "deps": attr.label_list(providers = [PyInfo], doc = "py_library targets: their runfiles and import paths"),
    },
    toolchains = [PYTHON_TOOLCHAIN_TYPE],
    doc = "A Python program of this module, run on the sk tool's interpreter (never a consumer's).",
)
