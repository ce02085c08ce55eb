"""Runs the runtime's C++ semantics tests (the cc_test targets of Bazel)
under `python -m pytest`, built with the host g++ against libskrt.so."""

from pathlib import Path
import re
import subprocess

import pytest

from sk.toolflow import toolargv
from sk.twin import binding as twin

HERE = Path(__file__).resolve().parent

def _cc_tests() -> dict:
    """The cc_test targets of sk/runtime/BUILD.bazel (its one list) and their sources."""
    text = (HERE.parent / "BUILD.bazel").read_text()
    start = text.index("for name, srcs in [")
    block = text[start:text.index("]]", start)]
    tests = {name: re.findall(r'"tests/([^"]+)"', srcs)
             for name, srcs in re.findall(r'\(\s*"(\w+)",\s*\[([^\]]*)\]', block)}
    assert tests and all(tests.values()), "sk/runtime/BUILD.bazel: no cc_test list found"
    return tests


CC_TESTS = _cc_tests()


@pytest.mark.parametrize("name", sorted(CC_TESTS))
def test_cc(name, runtime_lib, tmp_path):
    exe = tmp_path / name
    argv = toolargv.twin_program_argv(twin.compiler(), [str(HERE / s) for s in CC_TESTS[name]], str(exe),
                                      include_dir=str(twin.INCLUDE_DIR), runtime_lib=str(runtime_lib),
                                      include_dirs=[str(HERE)])
    build = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert build.returncode == 0, build.stdout
    run = subprocess.run([str(exe)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    assert run.returncode == 0, run.stdout
    assert "0 failure(s)" in run.stdout
