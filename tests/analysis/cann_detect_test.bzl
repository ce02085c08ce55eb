"""Unit tests of CANN detection (pure logic, fake filesystem)."""

load("@bazel_skylib//lib:unittest.bzl", "asserts", "unittest")
load("//toolchain/private:cann_detect.bzl", "detect_cann", "unavailable_message")
load("//toolchain/private:cann_repo.bzl", "cann_toolchain_build")

def _fs(env = {}, on_path = {}, files = []):
    present = {f: True for f in files}
    for f in files:
        parts = f.split("/")
        for i in range(2, len(parts)):
            present["/".join(parts[:i])] = True
    return struct(
        getenv = lambda n: env.get(n),
        which = lambda p: on_path.get(p),
        exists = lambda p: p in present,
    )

def _detect(tag, fs):
    return detect_cann(tag, fs.getenv, fs.which, fs.exists)

def _env_home_test(ctx):
    env = unittest.begin(ctx)
    fs = _fs(env = {"ASCEND_HOME_PATH": "/opt/cann"}, files = ["/opt/cann/compiler/ccec_compiler/bin/bisheng"])
    r = _detect("", fs)
    asserts.true(env, r.found)
    asserts.equals(env, "/opt/cann", r.root)
    asserts.equals(env, "ASCEND_HOME_PATH", r.how)
    asserts.equals(env, "compiler/ccec_compiler/bin", r.compiler_dir)
    return unittest.end(env)

def _tag_wins_test(ctx):
    env = unittest.begin(ctx)
    fs = _fs(
        env = {"ASCEND_HOME_PATH": "/opt/a"},
        files = ["/opt/a/compiler/bin/bisheng", "/opt/b/compiler/bin/bisheng"],
    )
    r = _detect("/opt/b", fs)
    asserts.equals(env, "/opt/b", r.root)
    asserts.equals(env, "cann.toolkit(path)", r.how)
    return unittest.end(env)

def _bad_tag_is_not_ignored_test(ctx):
    env = unittest.begin(ctx)
    fs = _fs(env = {"ASCEND_HOME_PATH": "/opt/a"}, files = ["/opt/a/compiler/bin/bisheng"])
    r = _detect("/opt/missing", fs)
    asserts.false(env, r.found)
    asserts.true(env, "/opt/missing (does not exist)" in unavailable_message(r))
    return unittest.end(env)

def _toolkit_home_and_path_test(ctx):
    env = unittest.begin(ctx)
    fs = _fs(
        env = {"ASCEND_TOOLKIT_HOME": "/opt/empty"},
        on_path = {"bisheng": "/opt/t/compiler/ccec_compiler/bin/bisheng"},
        files = ["/opt/empty/readme", "/opt/t/compiler/ccec_compiler/bin/bisheng"],
    )
    r = _detect("", fs)
    asserts.true(env, r.found)
    asserts.equals(env, "/opt/t", r.root)
    asserts.equals(env, "bisheng on PATH", r.how)
    asserts.true(env, "ASCEND_TOOLKIT_HOME: /opt/empty (no bisheng" in r.tried[0])
    return unittest.end(env)

def _default_install_test(ctx):
    env = unittest.begin(ctx)
    fs = _fs(files = ["/usr/local/Ascend/ascend-toolkit/latest/compiler/ccec_compiler/bin/bisheng"])
    r = _detect("", fs)
    asserts.true(env, r.found)
    asserts.equals(env, "default install", r.how)
    return unittest.end(env)

def _missing_message_test(ctx):
    env = unittest.begin(ctx)
    r = _detect("", _fs())
    asserts.false(env, r.found)
    msg = unavailable_message(r)
    for needle in ["CANN not found", "ASCEND_HOME_PATH", "cann.toolkit(path", "mode=host", "/usr/local/Ascend/ascend-toolkit/latest (does not exist)"]:
        asserts.true(env, needle in msg, "message lacks %r: %s" % (needle, msg))
    return unittest.end(env)

def _toolchain_build_compilers_test(ctx):
    env = unittest.begin(ctx)

    # The detected toolkit's toolchain: bisheng for the SuperKernel's halves, ccec for the split entry
    # stubs (upstream's compile_super_kernel runs them so); bisheng for both only where there is no ccec.
    build = cann_toolchain_build("compiler/ccec_compiler/bin", "x86_64")
    asserts.true(env, '    compiler = "cann/compiler/ccec_compiler/bin/bisheng",\n' in build, build)
    asserts.true(env, '    stub_compiler = "cann/compiler/ccec_compiler/bin/ccec",\n' in build, build)
    asserts.true(env, '"../../../x86_64-linux/asc/impl/basic_api/reg_compute"' in build, "stub list: " + build)
    no_ccec = cann_toolchain_build("compiler/ccec_compiler/bin", "x86_64", stub_compiler = "bisheng")
    asserts.true(env, '    stub_compiler = "cann/compiler/ccec_compiler/bin/bisheng",\n' in no_ccec, no_ccec)
    return unittest.end(env)

env_home_test = unittest.make(_env_home_test)
toolchain_build_compilers_test = unittest.make(_toolchain_build_compilers_test)
tag_wins_test = unittest.make(_tag_wins_test)
bad_tag_is_not_ignored_test = unittest.make(_bad_tag_is_not_ignored_test)
toolkit_home_and_path_test = unittest.make(_toolkit_home_and_path_test)
default_install_test = unittest.make(_default_install_test)
missing_message_test = unittest.make(_missing_message_test)

def cann_detect_test_suite(name):
    unittest.suite(
        name,
        env_home_test,
        tag_wins_test,
        bad_tag_is_not_ignored_test,
        toolkit_home_and_path_test,
        default_install_test,
        missing_message_test,
        toolchain_build_compilers_test,
    )
