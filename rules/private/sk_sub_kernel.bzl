"""sk_sub_kernel: a kernel compiled for SuperKernels (and for standalone launches)."""

load("@bazel_skylib//rules:common_settings.bzl", "BuildSettingInfo")
load("//toolchain:defs.bzl", "SK_TOOLCHAIN_TYPE", "find_sk_toolchain")
load(":kernel_types.bzl", "KERNEL_TYPES")
load(":actions.bzl", "compile_sub_kernel", "pack_sub_kernel", "wrap_sub_kernel")
load(":providers.bzl", "SkOpInfo", "SkSubKernelInfo")

# Scope locations (GE's GetSubOpLoc): first op, last op, the rest.
LOCS = ["start", "middle", "end"]

def scope_location(position, count):
    return "start" if position == 0 else ("end" if position == count - 1 else "middle")

# Parameter names the layout itself adds after the inputs and outputs (facts §14.4).
OUTPUT_SHAPE_PARAM = "output_shape"
RESERVED_PARAMS = [OUTPUT_SHAPE_PARAM, "workspace", "tiling"]

def params_of(kernel):
    """Upstream's parameter layout of an SkSubKernelInfo: inputs, outputs, the output-shape
    tensor, then `workspace`, then `tiling` (a dynamic-shape op ends with `workspace, tiling`)."""
    return (kernel.inputs + kernel.outputs + ([OUTPUT_SHAPE_PARAM] if kernel.output_shape else []) +
            (["workspace"] if kernel.workspace else []) + (["tiling"] if kernel.tiling else []))

def tensor_params_of(kernel):
    """The parameters bound to model tensors: inputs, outputs and the output-shape tensor."""
    return kernel.inputs + kernel.outputs + ([OUTPUT_SHAPE_PARAM] if kernel.output_shape else [])

def _check(ctx):
    names = ctx.attr.inputs + ctx.attr.outputs
    seen = {}
    for n in names:
        if n in seen:
            fail("%s: parameter '%s' is listed twice in inputs/outputs; parameter names must be unique" % (ctx.label, n))
        seen[n] = True
        if n in RESERVED_PARAMS:
            fail("%s: inputs/outputs name '%s', which the parameter layout adds itself; use the %s attribute (parameters are inputs, outputs, then %s)" % (ctx.label, n, n, ", ".join(RESERVED_PARAMS)))
    if ctx.attr.output_shape and not ctx.attr.outputs:
        fail("%s: output_shape = True but outputs is empty; the output-shape tensor describes the shapes of the outputs" % ctx.label)
    if ctx.attr.tiling and ctx.attr.workspace <= 0:
        fail("%s: tiling = True needs workspace > 0: upstream's layout ends with `workspace, tiling` (facts §14.4); set workspace to the kernel's workspace bytes" % ctx.label)
    if ctx.attr.tiling_size < 0 or (ctx.attr.tiling_size and not ctx.attr.tiling):
        fail("%s: tiling_size = %d; it is the byte size of the tiling struct, so it needs tiling = True and must not be negative" % (ctx.label, ctx.attr.tiling_size))
    if ctx.attr.block_dim < 1:
        fail("%s: block_dim = %d; it must be at least 1" % (ctx.label, ctx.attr.block_dim))
    if ctx.attr.workspace < 0:
        fail("%s: workspace = %d; it must be 0 (no workspace) or a positive byte count" % (ctx.label, ctx.attr.workspace))
    if ctx.attr.srcs and (ctx.file.object or ctx.file.subop_json):
        fail("%s: give either srcs (compiled here) or object + subop_json (prebuilt), not both" % ctx.label)
    if not ctx.attr.srcs and not (ctx.file.object and ctx.file.subop_json):
        fail("%s: needs srcs, or both object and subop_json for a prebuilt kernel" % ctx.label)
    if ctx.attr.tiling_keys:
        keys = ctx.attr.tiling_keys
        if [k for k in keys if k < 0] or len({k: None for k in keys}) != len(keys):
            fail("%s: tiling_keys = %s; give each TILING_KEY_IS(k) key of the kernel once, as an integer >= 0" % (ctx.label, keys))
        if not ctx.attr.tiling:
            fail("%s: tiling_keys needs tiling = True (and workspace > 0): a tiling-sink kernel ends with `workspace, tiling`, and its tiling function fills the tiling buffer" % ctx.label)
        if not ctx.attr.srcs:
            fail("%s: tiling_keys needs srcs: sk compiles one variant per key" % ctx.label)
        if not ctx.attr.tiling_function or not ctx.files.tiling_srcs or ctx.attr.tiling_bytes < 1:
            fail("%s: a tiling-sink kernel (tiling_keys) needs tiling_function (its host tiling function, sk_tiling.h), tiling_srcs (its C++ sources) and tiling_bytes (> 0, the tiling buffer it fills)" % ctx.label)
    elif ctx.attr.tiling_function or ctx.attr.tiling_srcs or ctx.attr.tiling_bytes:
        fail("%s: tiling_function, tiling_srcs and tiling_bytes belong to a tiling-sink kernel; set its tiling_keys" % ctx.label)
    if (ctx.attr.binary_config or ctx.attr.variant or ctx.attr.tpl_args) and not ctx.attr.cann_kernel:
        fail("%s: binary_config, variant and tpl_args describe a CANN-style operator; set cann_kernel (its __global__ function) too" % ctx.label)
    if ctx.attr.cann_kernel:
        if ctx.attr.tiling_keys or not ctx.attr.srcs:
            fail("%s: cann_kernel needs srcs (the op's kernel source) and no tiling_keys: each instance is one tiling key, from tpl_args" % ctx.label)
        if ctx.attr.variant and not ctx.attr.binary_config:
            fail("%s: variant = '%s' names a variant of a binary config; set binary_config" % (ctx.label, ctx.attr.variant))
    if len(ctx.files.srcs) > 1:
        fail("%s: srcs has %d files; a sub-kernel is one translation unit (put helpers in hdrs)" % (ctx.label, len(ctx.files.srcs)))

def _sk_sub_kernel_impl(ctx):
    _check(ctx)
    kernel_type = "KERNEL_TYPE_" + ctx.attr.kernel_type
    params = params_of(ctx.attr)
    options = ctx.attr._inherited_options[BuildSettingInfo].value
    kernel_name = ctx.attr.entry or ctx.label.name
    keys = ctx.attr.tiling_keys
    cann = struct(
        kernel = ctx.attr.cann_kernel,
        binary_config = ctx.file.binary_config,
        variant = ctx.attr.variant or "0",
        tpl_args = ctx.attr.tpl_args,
    ) if ctx.attr.cann_kernel else None
    standalone = None
    if ctx.attr.srcs:
        tc = find_sk_toolchain(ctx)
        src = ctx.files.srcs[0]
        prefix = "_sk/%s/" % ctx.label.name
        by_loc = {}

        # GE compiles a sub-kernel for its place in the scope (start, middle,
        # end: early-start macros differ). All three are declared; Bazel runs
        # only the ones some SuperKernel uses.
        for loc in LOCS:
            d = prefix + loc + "/"
            raw = ctx.actions.declare_file(d + "kernel_sk.o")
            scan = ctx.actions.declare_file(d + "kernel_sk.sync.json")
            compile_sub_kernel(ctx, tc, src, raw, kernel_type, ctx.attr.block_dim, options, ctx.attr.copts, ctx.files.hdrs, ctx.attr.op_type, loc, scan, keys, kernel_name, cann, params)
            wrapper = ctx.actions.declare_file(d + "wrapper.o")
            wrap_sub_kernel(ctx, tc, raw, scan, wrapper, kernel_name, kernel_type, ctx.attr.block_dim, params, options, ctx.attr.op_type, loc, keys)
            obj = ctx.actions.declare_file(d + "%s_%s.o" % (kernel_name, loc))
            meta = ctx.actions.declare_file(d + "%s_%s.json" % (kernel_name, loc))
            pack_sub_kernel(ctx, tc, raw, wrapper, scan, obj, meta, kernel_name, kernel_type, ctx.attr.block_dim, params, options, ctx.attr.op_type, loc, keys)
            by_loc[loc] = struct(object = obj, json = meta)
        standalone = ctx.actions.declare_file(prefix + "standalone/" + kernel_name + ".o")
        compile_sub_kernel(ctx, tc, src, standalone, kernel_type, ctx.attr.block_dim, "", ctx.attr.copts, ctx.files.hdrs, tiling_keys = keys, entry = kernel_name, cann = cann, params = params)
    else:
        # A prebuilt object serves every place in the scope.
        by_loc = {loc: struct(object = ctx.file.object, json = ctx.file.subop_json) for loc in LOCS}
    info = SkSubKernelInfo(
        label = ctx.label,
        kernel_name = kernel_name,
        kernel_type = kernel_type,
        block_dim = ctx.attr.block_dim,
        inputs = ctx.attr.inputs,
        outputs = ctx.attr.outputs,
        output_shape = ctx.attr.output_shape,
        workspace = ctx.attr.workspace,
        tiling = ctx.attr.tiling,
        tiling_size = ctx.attr.tiling_size,
        op_type = ctx.attr.op_type,
        fusable = ctx.attr.fusable,
        sk_objects = by_loc,
        standalone_object = standalone,
        inherited_options = options,
        src = ctx.files.srcs[0] if ctx.attr.srcs else None,
        hdrs = ctx.files.hdrs,
        copts = ctx.attr.copts,
        tiling_keys = keys,
        tiling_function = ctx.attr.tiling_function,
        tiling_srcs = ctx.files.tiling_srcs,
        tiling_bytes = ctx.attr.tiling_bytes,
        cann = cann,
    )
    files = [by_loc["middle"].object, by_loc["middle"].json] + ([standalone] if standalone else [])
    return [
        DefaultInfo(files = depset(files)),
        info,
        SkOpInfo(
            label = ctx.label,
            kernel = info,
            bindings = {p: p for p in params},
            tensors = None,
            stream = 0,
            send_events = [],
            recv_events = [],
        ),
    ]

sk_sub_kernel = rule(
    implementation = _sk_sub_kernel_impl,
    doc = """A kernel that SuperKernels can fuse.

Either compiled here from `srcs` (one Ascend C translation unit with an
ordinary entry `extern "C" __global__ __aicore__ void <entry>(GM_ADDR ...)`),
or prebuilt: `object` + `subop_json` compiled elsewhere, as upstream fuses
them.

The entry's parameters follow upstream's layout: `inputs`, `outputs`, the
output-shape tensor (`output_shape = True`), `workspace` (`workspace` > 0
bytes), `tiling` (`tiling = True`). A dynamic-shape Ascend C operator

    extern "C" __global__ __aicore__ void add(GM_ADDR x, GM_ADDR y, GM_ADDR z,
                                              GM_ADDR workspace, GM_ADDR tiling)

is `inputs = ["x", "y"], outputs = ["z"], workspace = 256, tiling = True`.

A tiling-sink kernel (facts section 15: its tiling depends on device memory, e.g.
a routing op's output) lists its `TILING_KEY_IS(k)` keys in `tiling_keys`;
sk compiles one variant per key (`-DTILING_KEY_VAR=k`, entry `<entry>_<k>`)
as the ADK compiles a multi-tiling-key kernel, and fuses it as upstream's
dynamic op (`task_type` dynamic, sub-op JSON with `dynamic_func_names`).
Its host tiling function (`tiling_function` in `tiling_srcs`, see
sk/runtime/include/sk_tiling.h) reads the op's inputs and writes the tiling
buffer (`tiling_bytes`), tiling key and block count; inside a SuperKernel an
`sk_tiling_task` runs it, in separate launches the host does.
Inside a super_kernel it is compiled with the options it must inherit
(the ones sk/engine/inherited.py lists: early-start, stream-fusion,
feed-sync-all, split-mode, dcci-*); kernels shared by SuperKernels with
the same inherited options are compiled once.""",
    attrs = {
        "srcs": attr.label_list(allow_files = [".cpp", ".cc", ".cce", ".cxx"], doc = "The kernel source (one file)"),
        "hdrs": attr.label_list(allow_files = True, doc = "Headers the source includes"),
        "entry": attr.string(doc = "Entry function name; defaults to the target name"),
        "kernel_type": attr.string(mandatory = True, values = KERNEL_TYPES, doc = "Ascend C kernel type (KERNEL_TYPE_ without the prefix)"),
        "block_dim": attr.int(mandatory = True, doc = "Blocks the kernel runs on"),
        "inputs": attr.string_list(doc = "Input parameters in signature order"),
        "outputs": attr.string_list(doc = "Output parameters, after the inputs"),
        "output_shape": attr.bool(default = False, doc = "True: an output-shape tensor parameter (`output_shape`, bound like an output) follows the outputs"),
        "workspace": attr.int(default = 0, doc = "Workspace bytes; > 0 adds the `workspace` parameter after the outputs"),
        "tiling": attr.bool(default = False, doc = "True: a `tiling` parameter follows `workspace` (needs workspace > 0); its values come from sk_model's data file"),
        "tiling_size": attr.int(default = 0, doc = "Bytes of the kernel's tiling struct (`sizeof` of what `tiling` points at); the launch API of a super_kernel refuses a smaller tiling buffer (0: any non-empty one)"),
        "op_type": attr.string(doc = "Operator type (e.g. GroupedMatmul), matched by the dcci-* options"),
        "tiling_keys": attr.int_list(doc = "A tiling-sink kernel: its TILING_KEY_IS(k) keys, one compiled variant each (needs tiling = True)"),
        "tiling_function": attr.string(doc = "A tiling-sink kernel: its host tiling function, `extern \"C\" int f(SkTilingContext*)` (sk_tiling.h)"),
        "tiling_srcs": attr.label_list(allow_files = [".cpp", ".cc", ".cxx", ".h", ".hpp"], doc = "The tiling function's C++ sources (and headers)"),
        "tiling_bytes": attr.int(default = 0, doc = "A tiling-sink kernel: bytes of the tiling buffer its tiling function fills"),
        "copts": attr.string_list(doc = "Extra compiler flags"),
        "cann_kernel": attr.string(doc = "A CANN-style operator (docs/cann-ops.md; sk_cann_op sets this): `srcs` is its `op_kernel/<op>.cpp` and this its `__global__` function, a template over ASCENDC_TPL arguments or a plain function; sk generates the entry `entry` calling it as the ADK's generated kernel file does"),
        "binary_config": attr.label(allow_single_file = [".json"], doc = "With cann_kernel: the op's `op_host/config/<soc>/<op>_binary.json`; the variant's `-DDTYPE_*`/`-DORIG_DTYPE_*`/`-DFORMAT_*` defines come from it"),
        "variant": attr.string(doc = "With binary_config: the variant, its op_list index (default \"0\") or bin_filename"),
        "tpl_args": attr.string(doc = "With cann_kernel: the template-argument combination, `name=value,...` (one that ASCENDC_TPL_SEL selects; empty when it selects exactly one); its tiling key is encoded as the ADK encodes it"),
        "fusable": attr.bool(default = True, doc = "False: SuperKernels split their scope around this kernel"),
        "object": attr.label(allow_single_file = [".o", ".a"], doc = "Prebuilt SK-mode object (with `subop_json`)"),
        "subop_json": attr.label(allow_single_file = [".json"], doc = "Sub-op JSON of the prebuilt object"),
        "_inherited_options": attr.label(default = "//rules:inherited_options"),
        "_sk": attr.label(default = "//sk", executable = True, cfg = "exec"),
    },
    toolchains = [SK_TOOLCHAIN_TYPE],
    provides = [SkSubKernelInfo, SkOpInfo],
)

def _check_op(ctx):
    if ctx.attr.stream < 0:
        fail("%s: stream = %d; stream ids are non-negative integers" % (ctx.label, ctx.attr.stream))
    for attr_name, events in [("send_events", ctx.attr.send_events), ("recv_events", ctx.attr.recv_events)]:
        seen = {}
        for e in events:
            if e < 0:
                fail("%s: %s has %d; event ids are non-negative integers" % (ctx.label, attr_name, e))
            if e in seen:
                fail("%s: %s lists event %d twice; list each event once" % (ctx.label, attr_name, e))
            seen[e] = True
    both = sorted([e for e in ctx.attr.send_events if e in ctx.attr.recv_events])
    if both:
        fail("%s: event %d is in both send_events and recv_events; an event connects two different ops" % (ctx.label, both[0]))

def _sk_op_impl(ctx):
    _check_op(ctx)
    kernel = ctx.attr.kernel[SkSubKernelInfo]
    params = params_of(kernel)
    unknown = sorted([p for p in ctx.attr.bind if p not in params])
    if unknown:
        fail("%s: bind names %s, which %s does not have; its parameters are %s" % (ctx.label, unknown, kernel.label, params))
    bindings = {p: ctx.attr.bind.get(p, p) for p in params}
    tensors = None
    if all([p in ctx.attr.bind for p in tensor_params_of(kernel)]):
        # The workspace is the op's own scratch buffer unless bound to a shared tensor.
        # "": an absent optional parameter (a null GM pointer), no tensor.
        writes = [bindings[p] for p in kernel.outputs + ([OUTPUT_SHAPE_PARAM] if kernel.output_shape else []) if bindings[p]]
        if kernel.workspace:
            writes.append(ctx.attr.bind.get("workspace", "%s.workspace" % ctx.label.name))
        tensors = struct(
            reads = {bindings[p]: None for p in kernel.inputs if bindings[p]}.keys(),
            writes = {w: None for w in writes}.keys(),
        )
    return [SkOpInfo(
        label = ctx.label,
        kernel = kernel,
        bindings = bindings,
        tensors = tensors,
        stream = ctx.attr.stream,
        send_events = ctx.attr.send_events,
        recv_events = ctx.attr.recv_events,
    )]

sk_op = rule(
    implementation = _sk_op_impl,
    doc = """One op instance of a kernel inside a SuperKernel: the same compiled kernel
can serve several instances with different tensors, streams and events.""",
    attrs = {
        "kernel": attr.label(mandatory = True, providers = [SkSubKernelInfo], doc = "The sk_sub_kernel"),
        "bind": attr.string_dict(doc = "Parameter name -> tensor name (unbound parameters use their own name). Bind every input and output to declare the op's tensors, which sync-elision=1 needs. `\"\"` leaves an optional parameter of a CANN operator out: sk_model passes a null GM pointer there (docs/cann-ops.md)"),
        "stream": attr.int(default = 0, doc = "Stream id"),
        "send_events": attr.int_list(doc = "Event ids sent after this op"),
        "recv_events": attr.int_list(doc = "Event ids waited for before this op"),
    },
    provides = [SkOpInfo],
)
