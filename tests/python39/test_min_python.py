"""The sk tool's sources stay runnable on Python 3.9, the oldest Python it supports.

vermin (a tool made for this: the minimum version of every syntax form and
standard-library name a file uses) checks every module; a `X | Y` annotation,
which vermin reports whether or not it is evaluated, is checked here instead:
it is fine in a module with postponed annotations (PEP 563) and breaks 3.9
everywhere else. CI also runs the whole Python test suite on a 3.9
interpreter (tools/python3.9). The minimum is stated in three places that must agree.
"""

from __future__ import annotations

import ast
import pathlib
import re
import subprocess
import sys

import sk

REPO = pathlib.Path(__file__).resolve().parents[2]
MIN = sk.MIN_PYTHON


def _python_files() -> list[pathlib.Path]:
    roots = [REPO / "sk", REPO / "bench", REPO / "tools", REPO / "tests"]
    return sorted(p for root in roots if root.is_dir() for p in root.rglob("*.py")
                  if "__pycache__" not in p.parts)


def _vermin(args: list[str]) -> subprocess.CompletedProcess:
    """vermin's command line (it has no `python -m vermin`), in a child process as its CLI runs."""
    return subprocess.run([sys.executable, "-c", "import sys, vermin; sys.exit(vermin.main())"] + args,
                          capture_output=True, text=True)


def test_vermin_finds_nothing_newer_than_the_minimum():
    files = _python_files()
    assert len(files) > 50, files
    target = "-t=%d.%d-" % MIN
    proc = _vermin([target, "--violations", "--no-tips", "--backport", "dataclasses", "--processes", "1"]
                   + [str(p) for p in files])
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _bitor_annotations(tree: ast.AST) -> list[int]:
    annotations = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            for arg in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]:
                if arg is not None and arg.annotation is not None:
                    annotations.append(arg.annotation)
            if node.returns is not None:
                annotations.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            annotations.append(node.annotation)
    return sorted({n.lineno for a in annotations for n in ast.walk(a)
                   if isinstance(n, ast.BinOp) and isinstance(n.op, ast.BitOr)})


def _postponed(tree: ast.Module) -> bool:
    return any(isinstance(n, ast.ImportFrom) and n.module == "__future__" and any(a.name == "annotations" for a in n.names)
               for n in tree.body)


def test_union_annotations_only_where_postponed():
    bad = []
    for path in _python_files():
        tree = ast.parse(path.read_text(), str(path))
        lines = _bitor_annotations(tree)
        if lines and not _postponed(tree):
            bad.append("%s:%d" % (path.relative_to(REPO), lines[0]))
    assert not bad, "`X | Y` annotations without `from __future__ import annotations` (Python 3.9 evaluates them): %s" % bad


def test_the_checker_sees_a_violation(tmp_path):
    """The two checks fail where they should (a check that cannot fail proves nothing)."""
    # Both constructs parse on 3.9 (the oldest interpreter this suite runs on) and need 3.10 to run.
    src = "import itertools\n\n\ndef f(x: int | None) -> None:\n    return itertools.pairwise([x])\n"
    tree = ast.parse(src)
    assert _bitor_annotations(tree) == [4] and not _postponed(tree)
    bad = tmp_path / "bad.py"
    bad.write_text(src)
    proc = _vermin(["-t=3.9-", "--violations", "--no-tips", "--processes", "1", str(bad)])
    assert proc.returncode != 0 and "3.10" in proc.stdout, proc.stdout


def test_one_minimum_everywhere():
    pyproject = (REPO / "pyproject.toml").read_text()
    assert 'requires-python = ">=%d.%d"' % MIN in pyproject
    deps = (REPO / "toolchain" / "private" / "python_deps.bzl").read_text()
    assert re.search(r"^_MIN_MINOR = %d$" % MIN[1], deps, re.M), "python_deps.bzl's _MIN_MINOR differs from sk.MIN_PYTHON"


def test_older_python_gets_one_message():
    """`import sk` (so `python -m sk`) on an older interpreter: one line naming both versions, exit 2."""
    probe = ("import sys; sys.version_info = (3, 8, 18, 'final', 0); sys.path.insert(0, sys.argv[1]); "
             "import sk; print('imported')")
    proc = subprocess.run([sys.executable, "-c", probe, str(REPO)], capture_output=True, text=True)
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and "needs Python %d.%d or newer" % MIN in lines[0] and "is Python 3.8" in lines[0], lines
