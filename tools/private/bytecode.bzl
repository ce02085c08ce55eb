"""py_bytecode: hash-checked bytecode of a package's Python sources, in the runfiles beside them.

The sk tool runs as a fresh process per action; with bytecode in
`<dir>/__pycache__` next to each source in its runfiles it imports without
compiling itself first (tools/private/pycompile.py says why the files are safe
when stale and identical across checkouts). One tree artifact per source
directory, made by one action that runs //tools/private:pycompile as the sk tool is
run (same interpreter toolchain), so the cache tag is the one sk looks for.
"""

def _py_bytecode_impl(ctx):
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
        executable = ctx.executable._pycompile,
        arguments = [args],
        inputs = [src for src, _ in pairs],
        outputs = outputs,
        # Not an sk action ("Sk*"): no persistent worker, nothing of the toolchain.
        mnemonic = "PyBytecode",
        progress_message = "Compiling the bytecode of %{label}",
        env = {"PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0"},
    )
    return [DefaultInfo(files = depset(outputs), runfiles = ctx.runfiles(files = outputs))]

py_bytecode = rule(
    implementation = _py_bytecode_impl,
    attrs = {
        "srcs": attr.label_list(allow_files = [".py"], doc = "Python sources of this package"),
        "_pycompile": attr.label(default = "//tools/private:pycompile", executable = True, cfg = "exec"),
    },
    doc = "Bytecode (`__pycache__/*.pyc`, hash-checked) of `srcs`, in the runfiles beside them.",
)
