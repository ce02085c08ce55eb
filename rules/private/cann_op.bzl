"""sk_cann_op: an operator laid out as CANN's operator repositories lay it out, as sub-kernels.

docs/cann-ops.md describes the layout and the build; sk/toolflow/cannbuild.py does the build.
"""

load("@bazel_skylib//lib:paths.bzl", "paths")
load("@bazel_skylib//rules:write_file.bzl", "write_file")
load(":sk_sub_kernel.bzl", "sk_sub_kernel")

def _stage_impl(ctx):
    # The ADK's op build copies every op's op_kernel/ into one folder as <op>/, side by side, so
    # `#include "../<other_op>/x.h"` finds the neighbour. Symlinks keep the layout without copying.
    # The op folders themselves (op_kernel/ and op_host/) go to _sk_ops/<op>/ (sk.twin.opsrc.STAGED_OPS):
    # on the twin sk makes the kernel-side tiling structs the op build generates from op_host/ there.
    files, kernel = [], None
    roots = {r: r.split("/")[-1] for r in ctx.attr.op_dirs}
    for f in ctx.files.srcs:
        rel = f.short_path
        if ctx.label.package and rel.startswith(ctx.label.package + "/"):
            rel = rel[len(ctx.label.package) + 1:]
        staged = []
        for root, op in roots.items():
            for part in ("op_kernel/", "op_host/"):
                prefix = (root + "/" if root else "") + part
                if rel.startswith(prefix):
                    staged = ([op + "/" + rel[len(prefix):]] if part == "op_kernel/" else []) + ["_sk_ops/" + op + "/" + part + rel[len(prefix):]]
        if not staged:
            fail("%s: %s is in no op_kernel/ or op_host/ folder of %s" % (ctx.label, f.short_path, ctx.attr.op_dirs))
        for path in staged:
            out = ctx.actions.declare_file("_sk_stage/%s/%s" % (ctx.label.name, path))
            ctx.actions.symlink(output = out, target_file = f)
            files.append(out)
            if path == ctx.attr.kernel_src:
                kernel = out
    if not kernel:
        fail("%s: the op's kernel source %s is not among its op_kernel/ files; name it with kernel_src" % (ctx.label, ctx.attr.kernel_src))
    return [
        DefaultInfo(files = depset(files)),
        OutputGroupInfo(kernel = depset([kernel])),
    ]

_sk_cann_stage = rule(
    implementation = _stage_impl,
    attrs = {
        "srcs": attr.label_list(allow_files = True),
        "op_dirs": attr.string_list(),
        "kernel_src": attr.string(),
    },
)

def _param(p, dtypes, name):
    if p not in dtypes:
        fail("sk_cann_op %s: a variant named in BUILD gives no dtype for parameter '%s'; give each of the inputs and outputs one" % (name, p))
    dtype, _, fmt = dtypes[p].partition(":")
    return {"name": p, "dtype": dtype, "format": fmt or "ND"}

def _ident(s):
    return "".join([c if c.isalnum() or c == "_" else "_" for c in s.elems()])

def sk_cann_op(
        name,
        kernel_type,
        block_dim,
        inputs,
        outputs,
        op_dir = None,
        kernel = None,
        kernel_src = None,
        neighbours = [],
        hdrs = [],
        includes = [],
        binary_config = None,
        variants = None,
        combinations = None,
        workspace = 1024,
        tiling = True,
        tiling_size = 0,
        op_type = "",
        copts = [],
        fusable = True,
        **kwargs):
    """An operator written as CANN's operator repositories write it, as one sk_sub_kernel per instance.

    The op's folder is used unchanged: `<op_dir>/op_kernel/` (the kernel `<op>.cpp`, usually a
    template over the arguments `<op>_tiling_key.h` declares with ASCENDC_TPL_ARGS_DECL, its
    `<op>_tiling_data.h` and headers) and `<op_dir>/op_host/config/<soc>/<op>_binary.json` (the binary
    variants). The `op_kernel/` folders of the op and of its `neighbours` are staged side by side as
    `<op>/`, so `#include "../<other_op>/x.h"` works as in the ADK's build.

    Each (variant, combination) becomes the sk_sub_kernel `<name>_<variant>_<combination>` (a part is
    left out where there is only the unnamed one) with its own entry of that name; use it in sk_op,
    super_kernel, sk_model and the launch API like any sub-kernel. `<name>` itself is a filegroup of
    them all. `sk cannop list <op_dir>` prints the variants and the ASCENDC_TPL_SEL combinations of
    an op as these two dicts.

    Args:
      name: prefix of the targets; also the op's folder when op_dir is not given.
      kernel_type: as sk_sub_kernel (AIV_ONLY, ...).
      block_dim: as sk_sub_kernel.
      inputs: the kernel's input parameters, in signature order.
      outputs: the kernel's output parameters, after the inputs and before `workspace, tiling`.
      op_dir: the op's folder, relative to this package (default: name).
      kernel: the kernel's `__global__` function (default: the folder's name).
      kernel_src: its source inside op_kernel/ (default `<op>.cpp`).
      neighbours: folders of other ops whose op_kernel/ headers the kernel includes as `../<op>/x.h`.
      hdrs: other headers the kernel includes (a common folder of the repository, ...).
      includes: directories, relative to this package, searched for `#include "..."` (`-I`), e.g. the
        repository's common include folder among hdrs.
      binary_config: the binary config (default: `<op_dir>/op_host/config/ascend910b/<op>_binary.json`
        when variants are given).
      variants: dict short name -> variant of the binary config (its op_list index as a string, or its
        bin_filename), or a dict parameter -> dtype (`"float16"`, or `"float16:NCHW"` with a format)
        for a variant named in BUILD (sk writes it as a one-variant binary config); None: no binary
        config, no dtype defines.
      combinations: dict short name -> template arguments `"name=value,..."`, each one that
        ASCENDC_TPL_SEL selects; None: the kernel takes no template arguments, or its SEL selects one.
        A kernel without ASCENDC_TPL_ARGS_DECL that branches on TILING_KEY_IS(k) names its key as
        `"tiling_key=<k>"` (the ADK builds one binary per key).
      workspace: workspace bytes (a CANN kernel always takes `workspace, tiling`; default 1024).
      tiling: as sk_sub_kernel (default True).
      tiling_size: bytes of the tiling struct (`<op>_tiling_data.h`), checked by the launch API.
      op_type: the operator type (the binary config's op_type), matched by the dcci-* options.
      copts: extra compiler flags.
      fusable: as sk_sub_kernel.
      **kwargs: visibility, tags, testonly, ... passed to every target.
    """
    op_dir = op_dir if op_dir != None else name
    op = op_dir.split("/")[-1]
    kernel = kernel or op
    kernel_src = kernel_src or (op + ".cpp")
    dirs = [op_dir] + neighbours
    stage = name + "_stage"
    _sk_cann_stage(
        name = stage,
        # allow_empty: a shared neighbour folder (elementwise_common) may have op_kernel/ only.
        srcs = native.glob([(d + "/" if d else "") + p for d in dirs for p in ("op_kernel/**", "op_host/**")], allow_empty = True),
        op_dirs = dirs,
        kernel_src = op + "/" + kernel_src,
        **kwargs
    )
    native.filegroup(name = name + "_kernel_src", srcs = [":" + stage], output_group = "kernel", **kwargs)
    if variants != None and binary_config == None and [v for v in variants.values() if type(v) == "string"]:
        binary_config = "%s/op_host/config/ascend910b/%s_binary.json" % (op_dir, op)
    targets = []
    for vname, selector in (variants or {"": ""}).items():
        config = binary_config if variants != None else None
        if type(selector) == "dict":
            # A variant named in BUILD: the same defines as a binary config's entry would give.
            config = "%s_%s_variant.json" % (name, _ident(vname))
            write_file(
                name = "%s_%s_variant" % (name, _ident(vname)),
                out = config,
                content = [json.encode({"op_list": [{
                    "bin_filename": "%s_%s" % (name, _ident(vname)),
                    "inputs": [_param(p, selector, name) for p in inputs],
                    "outputs": [_param(p, selector, name) for p in outputs],
                }], "op_type": op_type or op})],
                **kwargs
            )
            selector = "0"
        for cname, args in (combinations or {"": ""}).items():
            target = "_".join([p for p in [name, _ident(vname), _ident(cname)] if p])
            sk_sub_kernel(
                name = target,
                srcs = [":" + name + "_kernel_src"],
                hdrs = [":" + stage] + hdrs,
                cann_kernel = kernel,
                binary_config = config,
                variant = selector,
                tpl_args = args,
                kernel_type = kernel_type,
                block_dim = block_dim,
                inputs = inputs,
                outputs = outputs,
                workspace = workspace,
                tiling = tiling,
                tiling_size = tiling_size,
                op_type = op_type,
                copts = ["-I" + paths.join(native.package_name(), d) for d in includes] + copts,
                fusable = fusable,
                **kwargs
            )
            targets.append(":" + target)
    native.filegroup(name = name, srcs = targets, **kwargs)
