"""Runs the runtime's C++ semantics tests (the cc_test targets of Bazel)
under `python -m pytest`, built with the host g++ against libskrt.so."""

from pathlib import Path
import subprocess

import pytest

from sk.toolflow import toolargv
from sk.twin import binding as twin

HERE = Path(__file__).resolve().parent

# Same sources as the cc_test targets in sk/runtime/BUILD.bazel.
CC_TESTS = {
    "flags_test": ["flags_test.cc"],
    "feed_sync_all_test": ["feed_sync_all_test.cc"],
    "launch_test": ["launch_test.cc"],
    "tasks_test": ["tasks_test.cc"],
    "ascendc_test": ["ascendc_test.cc"],
    "ascendc_rules_test": ["ascendc_rules_test.cc"],
    "block_num_test": [
        "block_num_test.cc",
        "block_num_static5.cc",
        "block_num_static7.cc",
        "block_num_dynamic.cc",
    ],
}


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
