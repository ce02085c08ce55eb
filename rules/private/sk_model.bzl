"""sk_model / sk_model_test: run a model separately and fused on the CPU twin."""

load("@bazel_skylib//lib:paths.bzl", "paths")
load("//toolchain:defs.bzl", "SK_TOOLCHAIN_TYPE", "find_sk_toolchain")
load(":actions.bzl", "twin_shared_library")
load(":providers.bzl", "SkSubKernelInfo", "SuperKernelInfo")

def _rel(from_dir, short_path):
    """Path of a runfile (by short_path) as seen from another runfile's directory."""
    up = len(from_dir.split("/")) if from_dir else 0
    return "/".join([".."] * up + [short_path]) if up else short_path

def _sk_model_impl(ctx):
    tc = find_sk_toolchain(ctx)
    if tc.flavor != "host" or not tc.runtime_lib:
        fail("%s: sk_model runs on the CPU twin and needs the host toolchain; the resolved toolchain is '%s' (build with --@rules_superkernel//toolchain:mode=host)" % (ctx.label, tc.flavor))
    prefix = "_sk_model/%s/" % ctx.label.name
    libs = []
    standalone = {}
    for target, keys in ctx.attr.kernels.items():
        info = target[SkSubKernelInfo]
        if not info.standalone_object:
            fail("%s: %s is a prebuilt kernel without a standalone object; sk_model needs kernels built from srcs" % (ctx.label, target.label))
        lib = ctx.actions.declare_file(prefix + "kernels/%s.so" % info.kernel_name)
        twin_shared_library(ctx, tc, [info.standalone_object], lib)
        libs.append(lib)
        for key in keys.split(" "):
            if key in standalone:
                fail("%s: model kernel '%s' is given by two targets" % (ctx.label, key))
            standalone[key] = lib
    scopes = {}
    plans = []
    for target, names in ctx.attr.super_kernels.items():
        info = target[SuperKernelInfo]
        if len(info.segments) != 1:
            fail("%s: %s is split into %d segments; sk_model runs SuperKernels with exactly one" % (ctx.label, target.label, len(info.segments)))
        seg = info.segments[0]
        lib = ctx.actions.declare_file(prefix + "sk/%s.so" % seg.kernel_name)
        twin_shared_library(ctx, tc, [seg.object], lib)
        libs.append(lib)
        plans += [seg.plan, seg.meta]
        for scope in names.split(" "):
            if scope in scopes:
                fail("%s: model scope '%s' is given by two targets" % (ctx.label, scope))
            scopes[scope] = struct(library = lib, plan = seg.plan, meta = seg.meta)

    manifest = ctx.actions.declare_file(prefix + "manifest.json")
    here = paths.dirname(manifest.short_path)
    ctx.actions.write(manifest, json.encode_indent({
        "runtime": _rel(here, tc.runtime_lib.short_path),
        "standalone": {k: _rel(here, v.short_path) for k, v in sorted(standalone.items())},
        "scopes": {
            k: {
                "library": _rel(here, v.library.short_path),
                "meta": _rel(here, v.meta.short_path),
                "plan": _rel(here, v.plan.short_path),
            }
            for k, v in sorted(scopes.items())
        },
    }, indent = "  ") + "\n")

    script = ctx.actions.declare_file(ctx.label.name + ".sh")
    ctx.actions.write(script, """#!/bin/sh
# Runs {model} separately and fused on the CPU twin and compares every output.
# `bazel run` writes prof_result/ in the directory it was started from;
# `bazel test` into the test's undeclared outputs.
set -eu
out="${{BUILD_WORKING_DIRECTORY:-${{TEST_UNDECLARED_OUTPUTS_DIR:-.}}}}/prof_result"
exec "{sk}" run --model "{model}" --built "{manifest}" --repeat {repeat} --seed {seed} --prof-dir "$out" "$@"
""".format(
        sk = ctx.executable._sk.short_path,
        model = ctx.file.model.short_path,
        manifest = manifest.short_path,
        repeat = ctx.attr.repeat,
        seed = ctx.attr.seed,
    ), is_executable = True)
    runfiles = ctx.runfiles(files = [ctx.file.model, manifest, tc.runtime_lib] + libs + plans)
    runfiles = runfiles.merge(ctx.attr._sk[DefaultInfo].default_runfiles)
    return [DefaultInfo(executable = script, runfiles = runfiles)]

_ATTRS = {
    "model": attr.label(allow_single_file = [".json"], mandatory = True, doc = "Model description (tensors, ops with tensor bindings, scopes); see sk/model.py"),
    "kernels": attr.label_keyed_string_dict(
        providers = [SkSubKernelInfo],
        doc = "sk_sub_kernel -> the model's kernel key(s) it provides (space-separated)",
    ),
    "super_kernels": attr.label_keyed_string_dict(
        providers = [SuperKernelInfo],
        doc = "super_kernel -> the model's scope name(s) it runs (space-separated): one target can serve several identical scopes",
    ),
    "repeat": attr.int(default = 3, doc = "Timed rounds of each run"),
    "seed": attr.int(default = 0, doc = "Seed of the input generator"),
    "_sk": attr.label(default = "//sk", executable = True, cfg = "target"),
}

sk_model = rule(
    implementation = _sk_model_impl,
    doc = """Runs a model on the CPU twin twice, as separate launches and with its
SuperKernels, and compares every output tensor bit for bit (`bazel run`).

Prints op_statistic tables for both runs and `superkernel benefit: X.XX%`;
exits non-zero when any output differs.""",
    attrs = _ATTRS,
    executable = True,
    toolchains = [SK_TOOLCHAIN_TYPE],
)

sk_model_test = rule(
    implementation = _sk_model_impl,
    doc = "sk_model as a test: fails when the fused outputs differ from the separate launches.",
    attrs = _ATTRS,
    test = True,
    toolchains = [SK_TOOLCHAIN_TYPE],
)
