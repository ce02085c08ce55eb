# Generated from sk/toolflow/toolargv.py (python -m sk.toolflow.toolargv > this file);
# //sk:toolargv_test fails when the two differ.
"""Flags of the twin runtime that sk.twin.binding builds with the same values."""

RUNTIME_COPTS = [
    "-std=c++17",
    "-Wall",
    "-Wextra",
    "-Werror",
]

RUNTIME_LINKOPTS = [
    "-pthread",
]
