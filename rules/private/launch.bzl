"""The launch API of a super_kernel as a CcInfo: `sk launch` renders it, the cc toolchain compiles it.

Starlark only gathers files: the manifest says what BUILD says (ops, kernels,
bindings, the pieces the scope became and which binary each launch runs); sk
decides the arguments and the slots (sk/engine/launchspec.py).
"""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain", "use_cpp_toolchain")
load("//toolchain:defs.bzl", "SK_TOOLCHAIN_TYPE", "find_sk_toolchain")
load(":actions.bzl", "render_launch")
load(":providers.bzl", "SuperKernelInfo")
load(":sk_sub_kernel.bzl", "params_of", "tensor_params_of")

def _label(label):
    """A label as BUILD files write it (no `@@` for the main repository)."""
    s = str(label)
    return s[2:] if s.startswith("@@//") else s

def _unique(name, taken):
    n = taken.get(name, 0) + 1
    taken[name] = n
    return name if n == 1 else "%s_%d" % (name, n)

def _op_record(op, name):
    k = op.kernel
    return {
        "bind": op.bindings,
        "kernel": {
            "block_dim": k.block_dim,
            "entry": k.kernel_name,
            "kernel_type": k.kernel_type,
            "label": _label(k.label),
            "params": params_of(k),
            "tensor_params": tensor_params_of(k),
            "tiling": k.tiling,
            "tiling_size": k.tiling_size,
            "workspace": k.workspace,
        },
        "label": _label(op.label),
        "name": name,
    }

def _standalone(op, label):
    if not op.kernel.standalone_object:
        fail("%s: op %s runs on its own (outside the fused pieces), but its kernel %s is prebuilt (object + subop_json) and has no standalone object to launch" % (label, op.label, op.kernel.label))
    return op.kernel.standalone_object

def launch_library(ctx, tc, name, ops, segments, twin_deps, cann_deps, flavor = None, label = None):
    """CcInfo of `<package>/<label name>_launch.h` and its implementation for the toolchain's flavour.

    ops: the scope's SkOpInfos; segments: its fused pieces (struct with first, ops, plan, object);
    twin_deps / cann_deps: CcInfos the host / cann implementation links against; flavor: the
    implementation to render, the toolchain's unless a test asks for the other (tests/launch renders
    the CANN one from twin-built plans and binaries); label: how the header and its messages name the
    SuperKernel (default: this target).
    """
    flavor = flavor or tc.flavor
    taken = {}
    names = [_unique(op.label.name, taken) for op in ops]
    starts = {seg.first: seg for seg in segments}
    pieces, inputs, objects = [], [], []
    i = 0
    for _ in range(len(ops)):
        if i >= len(ops):
            break
        if i in starts:
            seg = starts[i]
            pieces.append({"binary": seg.object.path, "count": len(seg.ops), "first": i, "plan": seg.plan.path})
            inputs.append(seg.plan)
            objects.append(seg.object)
            i += len(seg.ops)
        else:
            obj = _standalone(ops[i], ctx.label)
            pieces.append({"binary": obj.path, "count": 1, "first": i})
            objects.append(obj)
            i += 1

    # LaunchUnfused (every op as its own launch) where every kernel has a standalone build.
    unfused = []
    if all([op.kernel.standalone_object for op in ops]):
        unfused = [{"binary": op.kernel.standalone_object.path, "count": 1, "first": n} for n, op in enumerate(ops)]
        objects += [op.kernel.standalone_object for op in ops]
    objects = depset(objects).to_list()

    prefix = "_sk/%s/launch/" % ctx.label.name
    manifest = ctx.actions.declare_file(prefix + "launch.json")
    ctx.actions.write(manifest, json.encode_indent({
        "label": label or _label(ctx.label),
        "name": name,
        "ops": [_op_record(op, n) for op, n in zip(ops, names)],
        "pieces": pieces,
        "unfused": unfused,
    }, indent = "  ") + "\n")
    header = ctx.actions.declare_file(ctx.label.name + "_launch.h")
    src = ctx.actions.declare_file(prefix + "%s_launch_%s.cc" % (ctx.label.name, flavor))
    include = (ctx.label.package + "/" if ctx.label.package else "") + header.basename
    if ctx.label.workspace_root:
        include = ctx.label.workspace_root + "/" + include
    if flavor == "host":
        # The twin links renamed copies (sk/toolflow/launchobj.py): kernel entries are host symbols there.
        twin_objects = [(obj, ctx.actions.declare_file(prefix + "obj/%d/%s" % (n, obj.basename))) for n, obj in enumerate(objects)]
        render_launch(ctx, tc, flavor, manifest, inputs, include, header, src, twin_objects)
        kernels = [copy for _, copy in twin_objects]
    else:
        render_launch(ctx, tc, flavor, manifest, inputs + objects, include, header, src)
        kernels = []

    deps = twin_deps if flavor == "host" else cann_deps
    cc_toolchain = find_cpp_toolchain(ctx)
    features = cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = cc_toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )
    compilation_context, compiled = cc_common.compile(
        name = ctx.label.name + "_launch",
        actions = ctx.actions,
        feature_configuration = features,
        cc_toolchain = cc_toolchain,
        srcs = [src],
        public_hdrs = [header],
        compilation_contexts = [d.compilation_context for d in deps],
        user_compile_flags = ["-std=c++17"],
    )

    # On the twin the kernels are host objects: they go into the library itself.
    outputs = cc_common.merge_compilation_outputs(compilation_outputs = [
        compiled,
        cc_common.create_compilation_outputs(objects = depset(kernels), pic_objects = depset(kernels)),
    ])
    linking_context, _ = cc_common.create_linking_context_from_compilation_outputs(
        name = ctx.label.name + "_launch",
        actions = ctx.actions,
        feature_configuration = features,
        cc_toolchain = cc_toolchain,
        compilation_outputs = outputs,
        linking_contexts = [d.linking_context for d in deps],
        disallow_dynamic_library = True,
    )
    own = CcInfo(compilation_context = compilation_context, linking_context = linking_context)
    return struct(
        cc_info = cc_common.merge_cc_infos(direct_cc_infos = [own], cc_infos = deps),
        files = [header, src, manifest],
        binaries = objects,
        plans = inputs,
    )

def _sk_cann_launch_library_impl(ctx):
    info = ctx.attr.super_kernel[SuperKernelInfo]
    tc = find_sk_toolchain(ctx)
    acl = ctx.attr.acl or tc.acl
    if not acl:
        fail("%s: the %s toolchain has no ACL runtime; set acl (e.g. @rules_superkernel//tests:fake_acl, the recording stand-in)" % (ctx.label, tc.flavor))
    lib = launch_library(
        ctx,
        tc,
        info.kernel_name,
        info.ops,
        info.segments,
        twin_deps = [],
        cann_deps = [ctx.attr._launch_api[CcInfo], acl[CcInfo]],
        flavor = "cann",
        # Its messages name the super_kernel, the target the user thinks of, and this one.
        label = "%s (launched by %s)" % (_label(ctx.attr.super_kernel.label), _label(ctx.label)),
    )
    return [
        DefaultInfo(files = depset(lib.files), runfiles = ctx.runfiles(files = lib.files + lib.plans + lib.binaries)),
        lib.cc_info,
        OutputGroupInfo(manifest = depset([lib.files[2]]), plan = depset(lib.plans)),
    ]

sk_cann_launch_library = rule(
    implementation = _sk_cann_launch_library_impl,
    doc = """The CANN implementation of a super_kernel's launch API, whatever toolchain built it.

A `super_kernel` target is itself the launch library for its toolchain. This
rule renders the CANN one (`<package>/<name>_launch.h`, same `Args` and
`Launch` in namespace `<kernel_name>`) over the binaries the toolchain built,
linked against `acl`. With the CPU-twin toolchain and the recording ACL
stand-in `@rules_superkernel//tests:fake_acl` it shows, without CANN, every
ACL call and argument slot a CANN build makes: each call is one JSON line in
the file `$SK_FAKE_ACL_LOG` names (`aclrtKernelArgsAppend` with `size` and
`value`, `aclrtLaunchKernelWithConfig` with `blocks` and `stream`, ...). The
launch manifest (output group `manifest`) and the plans (`plan`) say which
slot holds what.""",
    attrs = {
        "super_kernel": attr.label(mandatory = True, providers = [SuperKernelInfo], doc = "The super_kernel target"),
        "acl": attr.label(providers = [CcInfo], doc = "The ACL runtime to link (default: the CANN toolchain's `acl`)"),
        "_launch_api": attr.label(default = "//sk/launch:api", providers = [CcInfo]),
        "_sk": attr.label(default = "//sk", executable = True, cfg = "exec"),
    },
    fragments = ["cpp"],
    toolchains = [SK_TOOLCHAIN_TYPE] + use_cpp_toolchain(),
    provides = [CcInfo],
)
