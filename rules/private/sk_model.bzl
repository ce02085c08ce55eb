"""sk_model / sk_model_test: run a model separately and fused on the CPU twin."""

load("@bazel_skylib//lib:paths.bzl", "paths")
load("//toolchain:defs.bzl", "SK_TOOLCHAIN_TYPE", "find_sk_toolchain")
load(":actions.bzl", "tiling_function_library", "twin_shared_library", "write_model")
load(":providers.bzl", "SkOpInfo", "SkTaskInfo", "SuperKernelInfo")
load(":sk_sub_kernel.bzl", "tensor_params_of")

def _rel(from_dir, short_path):
    """Path of a runfile (by short_path) as seen from another runfile's directory."""
    up = len(from_dir.split("/")) if from_dir else 0
    return "/".join([".."] * up + [short_path]) if up else short_path

def _unique(name, taken):
    """`name`, or `name_2`, `name_3`... for its later occurrences in the run order."""
    n = taken.get(name, 0) + 1
    taken[name] = n
    return name if n == 1 else "%s_%d" % (name, n)

def _kernel_key(ctx, tc, st, info):
    """The model's key of a kernel (its target name); declares its standalone library once."""
    label = str(info.label)
    if label in st.kernel_keys:
        return st.kernel_keys[label]
    key = info.label.name
    if key in st.kernels:
        fail("%s: kernels %s and %s are both named '%s'; the model keys kernels by target name, rename one" % (ctx.label, st.kernels[key].info.label, info.label, key))
    if not info.standalone_object:
        fail("%s: %s is a prebuilt kernel without a standalone object; sk_model needs kernels built from srcs" % (ctx.label, info.label))
    lib = ctx.actions.declare_file(st.prefix + "kernels/%s.so" % key)
    twin_shared_library(ctx, tc, [info.standalone_object], lib)
    st.libs.append(lib)
    tiling = None
    if info.tiling_keys:
        tiling = ctx.actions.declare_file(st.prefix + "kernels/%s_tiling.so" % key)
        tiling_function_library(ctx, tc, [f for f in info.tiling_srcs if not f.path.endswith((".h", ".hpp"))], [f for f in info.tiling_srcs if f.path.endswith((".h", ".hpp"))] + info.hdrs, tiling)
        st.libs.append(tiling)
    st.kernels[key] = struct(info = info, lib = lib, tiling = tiling)
    st.kernel_keys[label] = key
    return key

def _add_op(ctx, tc, st, op):
    k = op.kernel
    st.op_of_label.setdefault(str(op.label), None)
    st.ops.append({
        # "" (sk_op's bind: an absent optional parameter) is null in the model: a null GM pointer.
        "bind": {p: op.bindings[p] or None for p in tensor_params_of(k)},
        "kernel": _kernel_key(ctx, tc, st, k),
        "label": str(op.label),
        "name": _unique(op.label.name, st.op_names),
        "recv_events": op.recv_events,
        "send_events": op.send_events,
        "stream": op.stream,
        "workspace_bytes": k.workspace,
    })
    if st.op_of_label[str(op.label)] == None:
        st.op_of_label[str(op.label)] = st.ops[-1]["name"]
    return st.ops[-1]["name"]

def _task(ctx, st, t):
    if t.kind == "tiling" and str(t.op) not in st.op_of_label:
        fail("%s: task %s computes the tiling of %s, which is not in ops" % (ctx.label, t.label, t.op))
    task = {"kind": t.kind, "name": t.label.name, "label": str(t.label)}  # errors name the target
    if t.kind == "tiling":
        task["op"] = st.op_of_label[str(t.op)]
    else:
        task["tensor"] = t.tensor
        task["send_event"] = t.send_event
    if t.wait_event != None:
        task["wait_event"] = t.wait_event
    return task

def _kernel_doc(here, k):
    doc = {
        "block_dim": k.info.block_dim,
        "copts": k.info.copts,
        "entry": k.info.kernel_name,
        "inputs": k.info.inputs,
        "kernel_type": k.info.kernel_type,
        "label": str(k.info.label),
        "op_type": k.info.op_type,
        "output_shape": k.info.output_shape,
        "outputs": k.info.outputs,
        "src": _rel(here, k.info.src.short_path),
        "tiling": k.info.tiling,
        "workspace": k.info.workspace > 0,
    }
    if k.info.cann:
        doc["cann_kernel"] = k.info.cann.kernel
        doc["tpl_args"] = k.info.cann.tpl_args
        if k.info.cann.binary_config:
            doc["binary_config"] = _rel(here, k.info.cann.binary_config.short_path)
            doc["variant"] = k.info.cann.variant
    if k.info.tiling_keys:
        doc["tiling_keys"] = k.info.tiling_keys
        doc["tiling_func"] = k.info.tiling_function
        doc["tiling_srcs"] = [_rel(here, f.short_path) for f in k.info.tiling_srcs if not f.path.endswith((".h", ".hpp"))]
        doc["tiling_bytes"] = k.info.tiling_bytes
    return doc

def _add_super_kernel(ctx, tc, st, target, here):
    """A super_kernel's ops in run order: each fused segment one scope, each op outside every segment
    (non-fusable, or all of them under strict-scope-check=bypass) a launch of its own."""
    info = target[SuperKernelInfo]
    starts = {seg.first: seg for seg in info.segments}
    inside = 0  # ops of the current segment still to pass
    for i, op in enumerate(info.ops):
        if i in starts:
            _add_scope(ctx, tc, st, info, starts[i], here)
            inside = len(starts[i].ops)
        if inside:
            inside -= 1
        else:
            _add_op(ctx, tc, st, op)

def _add_scope(ctx, tc, st, info, seg, here):
    if seg.kernel_name not in st.scope_libs:
        lib = ctx.actions.declare_file(st.prefix + "sk/%s.so" % seg.kernel_name)
        twin_shared_library(ctx, tc, [seg.object], lib)
        st.libs.append(lib)
        st.plans.extend([seg.plan, seg.meta])
        st.scope_libs[seg.kernel_name] = lib
    st.scopes.append({
        "label": str(info.label),
        "library": _rel(here, st.scope_libs[seg.kernel_name].short_path),
        "meta": _rel(here, seg.meta.short_path),
        "name": _unique(seg.kernel_name, st.scope_names),
        "ops": [_add_op(ctx, tc, st, op) for op in seg.ops],
        "options": info.options,
        "plan": _rel(here, seg.plan.short_path),
    })

def _sk_model_impl(ctx):
    tc = find_sk_toolchain(ctx)
    if tc.flavor != "host" or not tc.runtime_lib:
        fail("%s: sk_model runs on the CPU twin and needs the host toolchain; the resolved toolchain is '%s' (build with --@rules_superkernel//toolchain:mode=host)" % (ctx.label, tc.flavor))
    prefix = "_sk_model/%s/" % ctx.label.name
    manifest = ctx.actions.declare_file(prefix + "manifest.json")
    here = paths.dirname(manifest.short_path)

    # Mutable state of the walk over the run order.
    st = struct(prefix = prefix, kernels = {}, kernel_keys = {}, libs = [], ops = [], scopes = [], op_names = {}, scope_names = {}, scope_libs = {}, plans = [], op_of_label = {})
    for target in ctx.attr.ops:
        if SuperKernelInfo in target:
            _add_super_kernel(ctx, tc, st, target, here)
        else:
            _add_op(ctx, tc, st, target[SkOpInfo])
    kernels, ops, scopes, libs, plans = st.kernels, st.ops, st.scopes, st.libs, st.plans

    # A tiling-sink op inside a SuperKernel waits at its start for a lock only its tiling task releases.
    tiled = {str(t[SkTaskInfo].op): True for t in ctx.attr.tasks if t[SkTaskInfo].kind == "tiling"}
    for target in ctx.attr.ops:
        if SuperKernelInfo in target:
            for seg in target[SuperKernelInfo].segments:
                for op in seg.ops:
                    if op.kernel.tiling_keys and str(op.label) not in tiled:
                        fail("%s: %s is a tiling-sink op (its kernel %s has tiling_keys) fused into %s, but no sk_tiling_task in tasks computes its tiling; the SuperKernel would wait for its lock forever. Add sk_tiling_task(op = \"%s\", wait_event = <an event an earlier op sends>) to tasks" % (ctx.label, op.label, op.kernel.label, seg.kernel_name, op.label))

    ctx.actions.write(manifest, json.encode_indent({
        "build": {
            "data": _rel(here, ctx.file.data.short_path),
            "kernels": {key: _kernel_doc(here, k) for key, k in sorted(kernels.items())},
            "name": ctx.label.name,
            "ops": ops,
            "super_kernels": [{f: s[f] for f in ("label", "name", "ops", "options")} for s in scopes],
            "tasks": [_task(ctx, st, t[SkTaskInfo]) for t in ctx.attr.tasks],
        },
        "tiling": {key: _rel(here, k.tiling.short_path) for key, k in sorted(kernels.items()) if k.tiling},
        "runtime": _rel(here, tc.runtime_lib.short_path),
        "standalone": {key: _rel(here, k.lib.short_path) for key, k in sorted(kernels.items())},
        "scopes": {s["name"]: {f: s[f] for f in ("library", "meta", "plan")} for s in scopes},
    }, indent = "  ") + "\n")

    script = ctx.actions.declare_file(ctx.label.name + ".sh")
    ctx.actions.write(script, """#!/bin/sh
# Runs {name} separately and fused on the CPU twin and compares every output.
# `bazel run` writes prof_result/ in the directory it was started from;
# `bazel test` into the test's undeclared outputs.
set -eu
base="${{BUILD_WORKING_DIRECTORY:-${{TEST_UNDECLARED_OUTPUTS_DIR:-.}}}}"
exec "{sk}" run --model "{data}" --built "{manifest}" --repeat {repeat} --seed {seed} --prof-dir "$base/prof_result" --outputs-dir "$base/sk_outputs/{name}" "$@"
""".format(
        name = ctx.label.name,
        sk = ctx.executable._sk.short_path,
        data = ctx.file.data.short_path,
        manifest = manifest.short_path,
        repeat = ctx.attr.repeat,
        seed = ctx.attr.seed,
    ), is_executable = True)

    # The same model as one self-contained file, for `sk run --model` outside Bazel (the
    # ThreadSanitizer run builds its own objects) and for tests and benchmarks that take it as data;
    # its kernel sources are relative to it, so they come along in the runfiles.
    model = ctx.actions.declare_file(prefix + "model.json")
    write_model(ctx, tc, manifest, ctx.file.data, model, ctx.files.data_files)
    sources = [k.info.src for k in kernels.values()] + [h for k in kernels.values() for h in k.info.hdrs + k.info.tiling_srcs]
    sources += [k.info.cann.binary_config for k in kernels.values() if k.info.cann and k.info.cann.binary_config]

    runfiles = ctx.runfiles(files = [ctx.file.data, manifest, model, tc.runtime_lib] + libs + plans + sources + ctx.files.data_files)
    runfiles = runfiles.merge(ctx.attr._sk[DefaultInfo].default_runfiles)
    return [
        DefaultInfo(executable = script, runfiles = runfiles),
        OutputGroupInfo(model = depset([model])),
    ]

_ATTRS = {
    "ops": attr.label_list(
        mandatory = True,
        providers = [[SkOpInfo], [SuperKernelInfo]],
        doc = "The run order: sk_sub_kernel or sk_op targets (one launch each) and super_kernel targets (one fused launch; the separate run launches its ops one by one; a scope split by non-fusable ops is its fused pieces with those ops launched between them, a bypassed scope its ops one by one). A target listed twice runs twice; its later ops and scopes are named `<name>_2`, `<name>_3`...",
    ),
    "data": attr.label(
        allow_single_file = [".json"],
        mandatory = True,
        doc = """What BUILD cannot say, as JSON: `tensors` (name -> dtype, shape, init) and per-op runtime data,
`ops: [{"name": <op>, "tiling": {"dtype": ..., "values": [...]}, "workspace_bytes": N}]` (every field:
docs/formats.md, "The sk_model data file").
It may also be a self-contained model (`kernels`, op `kernel`/`bind`, `super_kernels`, as `python -m sk run --model` reads):
every such field must then agree with BUILD, or the run fails naming the field.""",
    ),
    "data_files": attr.label_list(
        allow_files = True,
        doc = """The files `data` names: tensor contents (`"file"`), reference outputs (`"expected"`) and tiling
buffers (`"tiling": {"file": ...}`), as .npy or raw .bin, paths relative to the data file (docs/cann-ops.md).""",
    ),
    "tasks": attr.label_list(
        providers = [SkTaskInfo],
        doc = "The tasks of other engines the SuperKernels talk to (sk_tiling_task, sk_prefetch_task): threads beside the fused launch, following the memory-semantic protocol of facts section 15.3; in the separate run a tiling-sink op's tiling function runs on the host before its launch. A tiling-sink op in a SuperKernel without its tiling task, or an event no op and no task sends, fails the build.",
    ),
    "repeat": attr.int(default = 3, doc = "Timed rounds of each run"),
    "seed": attr.int(default = 0, doc = "Seed of the input generator"),
    "_sk": attr.label(default = "//sk", executable = True, cfg = "target"),
}

sk_model = rule(
    implementation = _sk_model_impl,
    doc = """Runs a model on the CPU twin twice, as separate launches and with its
SuperKernels, and compares every output tensor bit for bit (`bazel run`).

Kernels, op bindings, scopes and their options come from the `ops` targets;
tensors and tiling data from `data`. Prints op_statistic tables for both runs
and `superkernel benefit: X.XX%`; exits non-zero when any output differs, or when a tensor with
an `expected` file misses it (rtol/atol) in either run. Writes `prof_result/` (each run's
`op_statistic.csv`, and `trace.json`) in the directory `bazel run` was started from, and every
output tensor as .npy to `sk_outputs/<name>/{separate,fused}/` there; the run prints where.

Output group `model`: `_sk_model/<name>/model.json`, the whole model (BUILD + data) as one
self-contained model file for `python -m sk run --model`; it is in the runfiles with the kernel
sources and headers, so a target taking this one as `data` can run it (`--tsan` included).""",
    attrs = _ATTRS,
    executable = True,
    toolchains = [SK_TOOLCHAIN_TYPE],
)

sk_model_test = rule(
    implementation = _sk_model_impl,
    doc = """sk_model as a test: fails when the fused outputs differ from the separate launches, or a tensor
misses its `expected` reference.

Its `prof_result/` and its output tensors (`sk_outputs/<name>/{separate,fused}/*.npy`) go to the
test's undeclared outputs: `bazel-testlogs/<package>/<name>/test.outputs/outputs.zip` (the files
themselves in `test.outputs/` with `--nozip_undeclared_test_outputs`).""",
    attrs = _ATTRS,
    test = True,
    toolchains = [SK_TOOLCHAIN_TYPE],
)
