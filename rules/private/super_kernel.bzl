"""super_kernel: fuse op instances, in scope order, into one SuperKernel."""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "use_cpp_toolchain")
load("//toolchain:defs.bzl", "SK_TOOLCHAIN_TYPE", "find_sk_toolchain")
load(":actions.bzl", "compile_entry", "gen_super_kernel", "link_super_kernel", "report_super_kernel")
load(":launch.bzl", "launch_library")
load(":inherited_options.bzl", "inherit_options_transition", "scope_check")
load(":providers.bzl", "SkOpInfo", "SuperKernelInfo")
load(":sk_sub_kernel.bzl", "scope_location")

def _relative_to(path, directory):
    """`path` as seen from `directory` (both exec-root-relative)."""
    return "/".join([".."] * len(directory.split("/")) + [path])

def _kernel_name(ctx):
    name = ctx.attr.kernel_name or ctx.label.name
    for c in name.elems():
        if not (c.isalnum() or c == "_"):
            fail("%s: kernel_name '%s' must be a C identifier (letters, digits, '_'); set kernel_name" % (ctx.label, name))
    if name[0].isdigit():
        fail("%s: kernel_name '%s' must not start with a digit" % (ctx.label, name))
    return name

def _fuse(ctx, tc, name, out_prefix, ops, first = 0):
    """Declares the actions of one fused segment, ops[first:] of the scope; returns its outputs."""
    prefix = "_sk/%s/" % out_prefix
    kernel_infos = ctx.actions.declare_file(prefix + "kernel_infos.json")
    base = kernel_infos.dirname
    op_list = []
    sub_files = []
    objects = []
    for i, op in enumerate(ops):
        sub = op.kernel.sk_objects[scope_location(i, len(ops))]
        objects.append(sub.object)
        entry = {
            "bin_path": _relative_to(sub.object.path, base),
            "json_path": _relative_to(sub.json.path, base),
            "recv_event_list": op.recv_events,
            "send_event_list": op.send_events,
            "stream_id": op.stream,
            "task_type": "dynamic" if op.kernel.tiling_keys else "normal",
        }
        if op.tensors:
            entry["tensors"] = {"reads": list(op.tensors.reads), "writes": list(op.tensors.writes)}
        op_list.append(entry)
        sub_files += [sub.object, sub.json]
    ctx.actions.write(kernel_infos, json.encode_indent({
        "kernel_name": name,
        "op_list": op_list,
        "super_kernel_options": ctx.attr.options,
    }, indent = "  ") + "\n")

    src = ctx.actions.declare_file(prefix + "gen/%s_kernel.cpp" % name)
    meta0 = ctx.actions.declare_file(prefix + "gen/%s.json" % name)
    copts = ctx.actions.declare_file(prefix + "gen/%s.compile_options.json" % name)
    plan = ctx.actions.declare_file(prefix + "plan.json")
    gen_super_kernel(ctx, tc, kernel_infos, sub_files, [src, meta0, copts], plan, ctx.attr.soc or tc.soc)

    # One action per core side, so the halves compile in parallel. Which halves
    # exist is the plan's answer (sk gen, at execution); an action whose side the
    # plan lacks leaves its directory empty.
    entry_dirs = []
    for side in ("cube", "vec"):
        entry_dir = ctx.actions.declare_directory(prefix + "entry_" + side)
        compile_entry(ctx, tc, plan, src, copts, entry_dir, side)
        entry_dirs.append(entry_dir)

    out_obj = ctx.actions.declare_file(out_prefix + ".o")
    out_json = ctx.actions.declare_file(out_prefix + ".json")
    link_super_kernel(ctx, tc, plan, entry_dirs, objects, meta0, out_obj, out_json)

    report = ctx.actions.declare_file(out_prefix + ".report.md")
    report_super_kernel(ctx, tc, plan, out_json, report)
    return struct(
        kernel_name = name,
        object = out_obj,
        meta = out_json,
        generated_src = src,
        plan = plan,
        kernel_infos = kernel_infos,
        compile_options = copts,
        report = report,
        ops = ops,
        first = first,
        sub_files = sub_files,
    )

def _segments(ops):
    """Runs of consecutive fusable ops, as (first, last) op indices."""
    runs = []
    start = None
    for i, op in enumerate(ops):
        if op.kernel.fusable and start == None:
            start = i
        if not op.kernel.fusable and start != None:
            runs.append((start, i - 1))
            start = None
    if start != None:
        runs.append((start, len(ops) - 1))
    return runs

def _launch(ctx, tc, name, ops, segments):
    return launch_library(
        ctx,
        tc,
        name,
        ops,
        segments,
        twin_deps = [ctx.attr._launch_twin[CcInfo]],
        cann_deps = [ctx.attr._launch_api[CcInfo]] + ([tc.acl[CcInfo]] if tc.acl else []),
    )

def _super_kernel_impl(ctx):
    tc = find_sk_toolchain(ctx)
    ops = [dep[SkOpInfo] for dep in ctx.attr.ops]
    if not ops:
        fail("%s: ops is empty; a SuperKernel fuses at least one op" % ctx.label)
    seen = {}
    for op in ops:
        if op.kernel.kernel_name in seen and seen[op.kernel.kernel_name] != op.kernel.label:
            fail("%s: kernels %s and %s both have the entry name '%s'; entry names must be unique within a SuperKernel" % (
                ctx.label,
                seen[op.kernel.kernel_name],
                op.kernel.label,
                op.kernel.kernel_name,
            ))
        seen[op.kernel.kernel_name] = op.kernel.label
    name = _kernel_name(ctx)

    # Scope splitting is GE's graph-level rule; it lives here because it
    # decides which outputs exist. Option values are still validated by sk.
    blocked = [(i, op) for i, op in enumerate(ops) if not op.kernel.fusable]
    check = scope_check(ctx.attr.options)
    if blocked and check == "abort":
        i, op = blocked[0]
        fail("%s: strict-scope-check=abort: op %d, %s (kernel %s), cannot be fused (fusable = False) but sits inside the scope; move it out of the scope or drop strict-scope-check" % (
            ctx.label,
            i,
            op.label,
            op.kernel.label,
        ))
    if blocked and check == "bypass":
        # print() is Bazel's only analysis-time warning channel.
        print("WARNING: %s: strict-scope-check=bypass: op %s cannot be fused, so the scope is not fused at all" % (ctx.label, blocked[0][1].label))
        report = ctx.actions.declare_file(ctx.label.name + ".report.md")
        ctx.actions.write(report, "# %s: not fused\n\nstrict-scope-check=bypass and these ops cannot be fused:\n\n%s\n" % (
            ctx.label.name,
            "\n".join(["* op %d: %s" % (i, op.label) for i, op in blocked]),
        ))
        launch = _launch(ctx, tc, name, ops, [])
        return [
            DefaultInfo(files = depset([report])),
            OutputGroupInfo(report = depset([report]), launch = depset(launch.files)),
            SuperKernelInfo(label = ctx.label, kernel_name = name, object = None, meta = None, generated_src = None, plan = None, report = report, ops = ops, segments = [], options = ctx.attr.options, toolchain_flavor = tc.flavor, launch_header = launch.files[0]),
            launch.cc_info,
        ]
    if blocked:
        segments = [
            _fuse(ctx, tc, "%s_split_%d_%d" % (name, a, b), "%s_split_%d_%d" % (ctx.label.name, a, b), ops[a:b + 1], a)
            for a, b in _segments(ops)
        ]
    else:
        segments = [_fuse(ctx, tc, name, ctx.label.name, ops)]

    def collect(field):
        return depset([getattr(s, field) for s in segments])

    single = segments[0] if len(segments) == 1 else None
    launch = _launch(ctx, tc, name, ops, segments)
    return [
        DefaultInfo(files = depset([s.object for s in segments] + [s.meta for s in segments] + [s.report for s in segments])),
        OutputGroupInfo(
            generated_src = collect("generated_src"),
            plan = depset([s.plan for s in segments] + [s.kernel_infos for s in segments]),
            report = collect("report"),
            debug = depset(transitive = [depset([s.generated_src, s.plan, s.kernel_infos, s.report, s.compile_options]) for s in segments]),
            sub_kernels = depset(transitive = [depset(s.sub_files) for s in segments]),
            launch = depset(launch.files),
        ),
        SuperKernelInfo(
            label = ctx.label,
            kernel_name = name,
            object = single.object if single else None,
            meta = single.meta if single else None,
            generated_src = single.generated_src if single else None,
            plan = single.plan if single else None,
            report = single.report if single else None,
            ops = ops,
            segments = segments,
            options = ctx.attr.options,
            toolchain_flavor = tc.flavor,
            launch_header = launch.files[0],
        ),
        launch.cc_info,
    ]

super_kernel = rule(
    implementation = _super_kernel_impl,
    doc = """Fuses `ops` (sk_sub_kernel or sk_op targets, in scope order) into one SuperKernel.

Outputs `<name>.o`, `<name>.json` and the fusion report `<name>.report.md`; output groups `generated_src`, `plan`,
`report` and `debug` hold the generated source, the fusion plan and the
human-readable report; `sub_kernels` the sub-op archives and JSONs it fused,
as compiled for their places in the scope. `options` uses upstream's grammar (`k=v:k=v`) and is
validated by the sk tool at build time.

The target is also a C++ library (`CcInfo`): put it in a `cc_library`,
`cc_binary` or `cc_test`'s `deps` and include `<package>/<name>_launch.h`,
rendered by `sk launch` from the fusion plan (output group `launch`). In
namespace `<kernel_name>` it declares `struct Args` with one field per bound
tensor (named after the tensor in `bind`), `<op>_tiling` + `<op>_tiling_bytes`
per op with a `tiling` parameter, `<op>_<word>` per tiling-sink or external
event word the plan has, and one `workspace` + `workspace_bytes`;
`sk_launch::Status Launch(const Args&, void* stream = nullptr)`; constants
`kBlockDim`, `kAicPerBlock`, `kAivPerBlock`, `kCoreRatio`,
`kWorkspaceBytes`, `kMinTilingBytes_<op>`, `kLaunches`. A split or bypassed
scope launches its pieces in order; `LaunchUnfused` (when every kernel is
built from `srcs`) launches each op's own kernel instead. Arguments are checked
first: a null address, a tiling buffer below the kernel's `tiling_size`, or a
workspace below `kWorkspaceBytes` is refused naming the op and parameter, and
nothing runs. On the CPU twin the launches run on the twin's threads; with
CANN the binaries are embedded and launched through the ACL runtime
(`aclrtBinaryLoadFromData`, `aclrtBinaryGetFunction`, `aclrtKernelArgs*`,
`aclrtLaunchKernelWithConfig`) on the given stream.""",
    attrs = {
        "ops": attr.label_list(
            mandatory = True,
            providers = [SkOpInfo],
            cfg = inherit_options_transition,
            doc = "Op instances in scope order",
        ),
        "options": attr.string(default = "", doc = "SuperKernel options, upstream grammar: 'feed-sync-all=1:split-mode=4'"),
        "kernel_name": attr.string(doc = "Entry symbol of the fused kernel; defaults to the target name"),
        "soc": attr.string(doc = "SoC to build for; defaults to the toolchain's (the sub-kernels are compiled for the toolchain's chip, so a SoC of another chip does not fit them)"),
        "_sk": attr.label(default = "//sk", executable = True, cfg = "exec"),
        "_allowlist_function_transition": attr.label(default = "@bazel_tools//tools/allowlists/function_transition_allowlist"),
        "_launch_api": attr.label(default = "//sk/launch:api", providers = [CcInfo]),
        "_launch_twin": attr.label(default = "//sk/launch:twin", providers = [CcInfo]),
    },
    fragments = ["cpp"],
    toolchains = [SK_TOOLCHAIN_TYPE] + use_cpp_toolchain(),
    provides = [SuperKernelInfo, CcInfo],
)
