"""Analysis tests of a super_kernel's launch API (CcInfo): the SkLaunch argv, and the compile
and link of its implementation with the CANN toolchain (ACL headers, the recording stand-in) and
with the CPU twin (the runtime and the fused object in the library)."""

load("@bazel_skylib//lib:unittest.bzl", "analysistest", "asserts")
load("//rules/private:providers.bzl", "SuperKernelInfo")

FAKE_CANN = {"//command_line_option:extra_toolchains": [str(Label("//tests:fake_cann_toolchain"))]}
FAKE_HOST = {"//command_line_option:extra_toolchains": [str(Label("//tests:fake_host_toolchain"))]}

def _actions(env, mnemonic):
    return [a for a in analysistest.target_actions(env) if a.mnemonic == mnemonic]

def _launch_argv(env, flavor):
    target = analysistest.target_under_test(env)
    pkg = target.label.package
    name = target.label.name
    launch = _actions(env, "SkLaunch")
    asserts.equals(env, 1, len(launch))
    argv = launch[0].argv[1:]
    asserts.equals(env, [
        "launch",
        "--manifest",
        "%s/%s/_sk/%s/launch/launch.json" % (launch[0].outputs.to_list()[0].root.path, pkg, name),
        "--flavor",
        flavor,
        "--include",
        "%s/%s_launch.h" % (pkg, name),
        "--header",
        "%s/%s/%s_launch.h" % (launch[0].outputs.to_list()[0].root.path, pkg, name),
        "--src",
        "%s/%s/_sk/%s/launch/%s_launch_%s.cc" % (launch[0].outputs.to_list()[0].root.path, pkg, name, name, flavor),
    ], argv[:11])
    for arg in argv:
        asserts.false(env, arg.startswith("/"), "SkLaunch has an absolute argv item: %s" % arg)
    return launch[0]

def _compile_of(env, flavor):
    name = analysistest.target_under_test(env).label.name
    compiles = [a for a in _actions(env, "CppCompile") if [f for f in a.inputs.to_list() if f.basename == "%s_launch_%s.cc" % (name, flavor)]]
    asserts.equals(env, 1, len(compiles))
    return compiles[0]

def _launch_cann_impl(ctx):
    env = analysistest.begin(ctx)
    target = analysistest.target_under_test(env)
    launch = _launch_argv(env, "cann")
    inputs = [f.path for f in launch.inputs.to_list()]

    # CANN embeds the fused binary: the linked object is an input of the render, and so is the plan.
    asserts.true(env, [p for p in inputs if p.endswith("/tests/analysis/sk_pair.o")], "sk_pair.o embedded: %s" % inputs)
    asserts.true(env, [p for p in inputs if p.endswith("/_sk/sk_pair/plan.json")], "plan read: %s" % inputs)
    header = [f for f in launch.outputs.to_list() if f.basename == "sk_pair_launch.h"][0]
    asserts.equals(env, header, target[SuperKernelInfo].launch_header)

    # The implementation is compiled against the toolkit's ACL headers (the fake tree's), as C++17.
    cc = _compile_of(env, "cann")
    argv = cc.argv
    asserts.true(env, "-std=c++17" in argv, "C++17: %s" % argv)
    includes = [argv[i + 1] for i, a in enumerate(argv) if a in ("-isystem", "-I", "-iquote") and i + 1 < len(argv)]
    asserts.true(env, "tests/fake_cann/include" in includes, "ACL include dir in %s" % includes)
    asserts.true(env, "sk/launch/include" in includes, "sk_launch.h include dir in %s" % includes)
    headers = [f.path for f in target[CcInfo].compilation_context.headers.to_list()]
    asserts.true(env, "tests/fake_cann/include/acl/acl.h" in headers, "acl.h among the headers: %s" % headers)

    # Linked: the ACL stand-in the toolchain names, never the CPU twin's runtime.
    libs = [lib for li in target[CcInfo].linking_context.linker_inputs.to_list() for lib in li.libraries]
    names = [(lib.static_library or lib.pic_static_library).basename for lib in libs if lib.static_library or lib.pic_static_library]
    asserts.true(env, "libfake_acl.a" in names, "fake ACL linked: %s" % names)
    asserts.true(env, "libsk_pair_launch.a" in names, "launch library: %s" % names)
    asserts.false(env, "libruntime.a" in names or "libruntime.lo" in names, "twin runtime linked on CANN: %s" % names)
    return analysistest.end(env)

launch_cann_test = analysistest.make(_launch_cann_impl, config_settings = FAKE_CANN)

def _launch_twin_impl(ctx):
    env = analysistest.begin(ctx)
    target = analysistest.target_under_test(env)
    launch = _launch_argv(env, "host")

    # The twin flavour links the binaries, as copies with their launched symbols renamed.
    argv = launch.argv
    copies = [argv[i + 1] for i, a in enumerate(argv) if a == "--twin-obj"]
    asserts.equals(env, 5, len(copies))
    for pair in copies:
        binary, copy = pair.split("=")
        asserts.true(env, "/examples/quickstart/_sk/add_skp/launch/obj/" in copy and copy.endswith("/" + binary.split("/")[-1]), pair)
    asserts.equals(env, "tests/fake_host/bin/objcopy", argv[argv.index("--objcopy") + 1])
    _compile_of(env, "host")

    # The fused object and every op's standalone object go into the library, beside the twin runtime.
    archive = [a for a in _actions(env, "CppArchive")]
    asserts.equals(env, 1, len(archive))
    members = sorted([f.basename for f in archive[0].inputs.to_list() if f.basename.endswith(".o")])
    asserts.equals(env, ["add_100.o", "add_200.o", "add_300.o", "add_400.o", "add_skp.o", "add_skp_launch_host.pic.o"], members)
    libs = [lib for li in target[CcInfo].linking_context.linker_inputs.to_list() for lib in li.libraries]
    names = [(lib.static_library or lib.pic_static_library).basename for lib in libs if lib.static_library or lib.pic_static_library]
    asserts.true(env, [n for n in names if n.startswith("libruntime")], "twin runtime linked: %s" % names)
    return analysistest.end(env)

launch_twin_test = analysistest.make(_launch_twin_impl, config_settings = FAKE_HOST)

def _launch_bypass_impl(ctx):
    """A bypassed scope fuses nothing: its launch API launches every op's own kernel, in order."""
    env = analysistest.begin(ctx)
    writes = [a for a in analysistest.target_actions(env) if a.mnemonic == "FileWrite" and a.outputs.to_list()[0].basename == "launch.json"]
    asserts.equals(env, 1, len(writes))
    manifest = json.decode(writes[0].content)
    pieces = [(p["first"], p["count"], "plan" in p, p["binary"].split("/")[-1]) for p in manifest["pieces"]]
    asserts.equals(env, [(0, 1, False, "add_custom.o"), (1, 1, False, "not_fusable.o"), (2, 1, False, "mul_custom.o")], pieces)
    return analysistest.end(env)

launch_bypass_test = analysistest.make(_launch_bypass_impl, config_settings = FAKE_CANN)
