"""Test helper: the one way tests start `python -m sk` (or another Python script) in a fresh
interpreter, and the one check for the host tools and twin sources the CPU-twin tests need.

Shared by sk/tests (also through the fixtures in sk/tests/conftest.py), tests/ and bench/tests.
"""

import os
import shutil
import subprocess
import sys
import sysconfig

import pytest

# The repository root (the runfiles root under Bazel), so a child imports this tree's sk from any cwd.
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# g++, ld and objcopy from PATH (None where missing): the host toolchain of the CPU twin.
HOST_TOOLS = {name: shutil.which(name) for name in ("g++", "ld", "objcopy")}
needs_host_tools = pytest.mark.skipif(not all(HOST_TOOLS.values()), reason="needs g++, ld and objcopy on PATH")


def _twin_sources_present() -> bool:
    from sk.twin import binding as twin

    return twin.SOURCE_DIR.is_dir() and any(twin.SOURCE_DIR.glob("*.cc"))


needs_twin_sources = pytest.mark.skipif(not _twin_sources_present(),
                                        reason="the twin runtime sources (sk/runtime) are not present")


# The MoE example as one self-contained model file: Bazel writes it from examples/moe/BUILD and its
# tensors.json (`//examples/moe:compare`, output group `model`); tests take that target as data.
MOE_MODEL = os.path.join("examples", "moe", "_sk_model", "compare", "model.json")


def bazel_model(rel: str) -> str:
    """The absolute path of a model file Bazel writes from BUILD (rel: its runfiles path). Under
    `bazel test` it is the test's data, so a missing one fails; a plain pytest run has no such file
    and skips, naming the Bazel test that runs it."""
    path = os.path.join(REPO, rel)
    if os.path.exists(path):
        return path
    if os.environ.get("TEST_SRCDIR"):
        pytest.fail(f"{rel} is not in the runfiles: give the test its sk_model target as data")
    pytest.skip(f"{rel} is written by Bazel from BUILD (an sk_model's output group `model`); "
                "this case runs under `tools/bazel test`")


def child_env(env=None, base=None) -> dict:
    """base (default os.environ) plus env, with PYTHONPATH = this process's import path: a child
    process imports the same sk and third-party packages, whatever its cwd."""
    full = dict(os.environ if base is None else base)
    full.update(env or {})
    full["PYTHONPATH"] = os.pathsep.join([REPO] + [p for p in sys.path if p and not _is_stdlib(p)])
    return full


def _is_stdlib(path: str) -> bool:
    """Whether path is this interpreter's own library: handed down in PYTHONPATH it would reach the
    grandchildren too (a recording stand-in run by `python3`, another version), which then import it."""
    stdlib = [sysconfig.get_path(k) for k in ("stdlib", "platstdlib")]
    real = os.path.realpath(path)
    if "site-packages" in real or "dist-packages" in real:
        return False
    return any(real == os.path.realpath(s) or real.startswith(os.path.realpath(s) + os.sep) for s in stdlib if s) \
        or real.endswith(".zip") and os.path.basename(real).startswith("python")


def run_sk(*argv, cwd=None, env=None, base_env=None, input=None, timeout=300, check=False):
    """`python -m sk ARGV` in a fresh interpreter: a CompletedProcess with text stdout and stderr."""
    return subprocess.run([sys.executable, "-m", "sk", *map(str, argv)], cwd=cwd, env=child_env(env, base_env),
                          input=input, capture_output=True, text=True, timeout=timeout, check=check)
