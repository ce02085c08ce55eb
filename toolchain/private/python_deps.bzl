"""Repository rules for the Python that runs the sk tool, and its wheels.

Why not rules_python's pip.parse: the rules_python these machines have (0.22.1,
Debian) fetches its own helper wheels from a fixed host, which users behind an
internal mirror cannot reach. Why not http_archive of wheel URLs: that commits a
registry host name into the project. Here pip itself downloads the wheels, so
pip's own configuration (index-url, find-links, certificates) applies, and
`--require-hashes` makes the result content-addressed all the same.
"""

load(":host_platform.bzl", "host_constraints")

# Python 3.9 is the oldest the sk tool supports (sk/__init__.py MIN_PYTHON, pyproject.toml).
_MIN_MINOR = 9

def _find_python(rctx):
    """Absolute path of the interpreter for actions.

    Autodetection inside actions resolves pyenv shims to whatever `python3` the
    action's minimal PATH finds, so the interpreter is pinned here instead:
    $SK_PYTHON, else /usr/bin/python3, else the first python3 on PATH.
    """
    candidates = []
    too_old = []
    if rctx.os.environ.get("SK_PYTHON"):
        candidates.append(rctx.os.environ["SK_PYTHON"])
    candidates.append("/usr/bin/python3")
    found = rctx.which("python3")
    if found:
        candidates.append(str(found))
    for cand in candidates:
        if not rctx.path(cand).exists:
            continue
        res = rctx.execute([cand, "-c", "import sys; print(sys.executable); print('%d.%d' % sys.version_info[:2])"])
        if res.return_code != 0:
            continue
        exe, version = res.stdout.strip().split("\n")
        major, minor = version.split(".")
        if int(major) == 3 and int(minor) >= _MIN_MINOR:
            return exe, version
        too_old.append("%s is %s" % (cand, version))
    fail("rules_superkernel needs Python >= 3.%d for its sk tool; tried %s%s. Set --repo_env=SK_PYTHON=/path/to/python3 (3.%d or newer)." % (
        _MIN_MINOR,
        ", ".join(candidates),
        " (" + "; ".join(too_old) + ")" if too_old else "",
        _MIN_MINOR,
    ))

def _interpreter_impl(rctx):
    exe, version = _find_python(rctx)
    rctx.file("BUILD.bazel", """\
load("@rules_python//python:defs.bzl", "py_runtime", "py_runtime_pair")
load("@rules_superkernel//toolchain/private:python_tool.bzl", "sk_python_runtime")

# Python {version} at {exe}.
sk_python_runtime(
    name = "sk_runtime",
    interpreter_path = "{exe}",
    version = "{version}",
)

# The sk tool's own toolchain type: only this module's targets resolve it.
toolchain(
    name = "sk_toolchain",
    exec_compatible_with = {constraints},
    target_compatible_with = {constraints},
    toolchain = ":sk_runtime",
    toolchain_type = "@rules_superkernel//toolchain:python_toolchain_type",
)

# Bazel's general Python toolchain, for this repository's own py_test/py_binary
# targets (MODULE.bazel registers it as a dev dependency: never in a consumer).
py_runtime(
    name = "runtime",
    interpreter_path = "{exe}",
    python_version = "PY3",
    stub_shebang = "#!{exe}",
)

py_runtime_pair(name = "pair", py3_runtime = ":runtime")

toolchain(
    name = "toolchain",
    exec_compatible_with = {constraints},
    target_compatible_with = {constraints},
    toolchain = ":pair",
    toolchain_type = "@bazel_tools//tools/python:toolchain_type",
)

exports_files(["python_version.txt"])
""".format(exe = exe, version = version, constraints = host_constraints(rctx)))
    rctx.file("python_version.txt", version + "\n")
    rctx.file("WORKSPACE", "")

sk_python_interpreter = repository_rule(
    implementation = _interpreter_impl,
    environ = ["SK_PYTHON"],
    doc = "Pins the Python interpreter for the sk tool's actions.",
)

def _dist_name(wheel_basename):
    return wheel_basename.split("-")[0].lower().replace("_", "-")

_LIB = """
py_library(
    name = "{name}",
    srcs = glob(["site/{dir}/**/*.py"], allow_empty = True),
    data = glob(["site/{dir}/**/*"], exclude = ["site/{dir}/**/*.py", "site/{dir}/**/*.dist-info/RECORD"]),
    imports = ["site/{dir}"],
    visibility = ["//visibility:public"],
)
"""

_UNZIP = "import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])"

def _pypi_impl(rctx):
    python, _ = _find_python(rctx)
    build = ['load("@rules_python//python:defs.bzl", "py_library")\n\n# Wheels pinned by sha256 in the requirement files, fetched with pip.\n']
    groups = {}
    for req, group in rctx.attr.requirements.items():
        path = rctx.path(req)
        dest = "wheels/" + group
        res = rctx.execute(
            [python, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--require-hashes",
             "--disable-pip-version-check", "-q", "-r", str(path), "-d", dest],
            timeout = 600,
            quiet = True,
        )
        if res.return_code != 0:
            fail("rules_superkernel: pip could not fetch the wheels pinned in %s (group '%s'):\n%s\nCheck pip's index configuration (pip config list) and that the sha256 pins match." % (req, group, res.stderr))
        names = []
        for wheel in sorted(rctx.path(dest).readdir(), key = lambda p: p.basename):
            if not wheel.basename.endswith(".whl"):
                continue
            dist = _dist_name(wheel.basename)
            res = rctx.execute([python, "-c", _UNZIP, str(wheel), "site/" + dist])
            if res.return_code != 0:
                fail("rules_superkernel: could not unpack %s: %s" % (wheel.basename, res.stderr))
            # pip installs bytecode with a wheel; unpacked by hand it is made here, with the
            # interpreter the actions run (tools/private/pycompile.py: hash-checked, path-free).
            res = rctx.execute([python, "-I", "-B", str(rctx.path(rctx.attr._pycompile)), "--tree", "site/" + dist],
                               environment = {"PYTHONHASHSEED": "0"})
            if res.return_code != 0:
                fail("rules_superkernel: could not compile the bytecode of %s: %s" % (wheel.basename, res.stderr))
            build.append(_LIB.format(name = dist, dir = dist))
            names.append(dist)
        groups[group] = names
        rctx.delete(dest)
    for group, names in sorted(groups.items()):
        build.append("""
py_library(
    name = "{group}",
    deps = [{deps}],
    visibility = ["//visibility:public"],
)
""".format(group = group, deps = ", ".join(['":%s"' % n for n in names])))
    rctx.file("BUILD.bazel", "".join(build))
    rctx.file("WORKSPACE", "")

sk_pypi = repository_rule(
    implementation = _pypi_impl,
    attrs = {
        "requirements": attr.label_keyed_string_dict(
            allow_files = True,
            doc = "requirement file (with --hash pins) -> group name; each group becomes a py_library",
        ),
        "_pycompile": attr.label(default = Label("//tools/private:pycompile.py"), allow_single_file = True),
    },
    environ = ["SK_PYTHON"],
    doc = "Fetches sha256-pinned wheels with pip and exposes them as py_library targets.",
)
