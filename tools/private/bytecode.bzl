"""py_bytecode: hash-checked bytecode of a package's Python sources, in the runfiles beside them.

The sk tool runs as a fresh process per action; with bytecode in
`<dir>/__pycache__` next to each source in its runfiles it imports without
compiling itself first (tools/private/pycompile.py says why the files are safe
when stale and identical across checkouts). One tree artifact per source
directory, made by one action with the interpreter the actions use, so the
cache tag is the one they look for.
"""

_PY_TOOLCHAIN = "@bazel_tools//tools/python:toolchain_type"

def _py_bytecode_impl(ctx):
    runtime = ctx.toolchains[_PY_TOOLCHAIN].py3_runtime
    if runtime.interpreter:
        python, tools = runtime.interpreter.path, [runtime.interpreter]
    else:
        python, tools = runtime.interpreter_path, []
    package = ctx.label.package
    trees, pairs = {}, []
    for src in sorted(ctx.files.srcs, key = lambda f: f.short_path):
        if src.owner.workspace_name != ctx.label.workspace_name or src.owner.package != package:
            fail("%s: %s is not a source file of package //%s (bytecode is placed beside its source)" % (ctx.label, src.short_path, package))
        rel_dir = src.owner.name.rpartition("/")[0]
        key = (rel_dir + "/" if rel_dir else "") + "__pycache__"
        if key not in trees:
            trees[key] = ctx.actions.declare_directory(key)
        pairs.append((src, trees[key]))
    args = ctx.actions.args()
    for src, tree in pairs:
        args.add(src)
        args.add(tree.path)
    outputs = [trees[k] for k in sorted(trees)]
    ctx.actions.run(
        executable = python,
        arguments = ["-I", "-B", ctx.file._pycompile.path, args],
        inputs = [src for src, _ in pairs] + [ctx.file._pycompile],
        tools = tools,
        outputs = outputs,
        mnemonic = "SkPyBytecode",
        progress_message = "Compiling the bytecode of %{label}",
        env = {"PYTHONHASHSEED": "0", "SOURCE_DATE_EPOCH": "0"},
        toolchain = _PY_TOOLCHAIN,
    )
    return [DefaultInfo(files = depset(outputs), runfiles = ctx.runfiles(files = outputs))]

py_bytecode = rule(
    implementation = _py_bytecode_impl,
    attrs = {
        "srcs": attr.label_list(allow_files = [".py"], doc = "Python sources of this package"),
        "_pycompile": attr.label(default = "//tools/private:pycompile.py", allow_single_file = True),
    },
    toolchains = [_PY_TOOLCHAIN],
    doc = "Bytecode (`__pycache__/*.pyc`, hash-checked) of `srcs`, in the runfiles beside them.",
)
