"""Bytecode for the sk tool's Python sources, made once per build instead of in every action.

Bazel runs `python -m sk` in a fresh process per action (and on every remote
executor) with PYTHONDONTWRITEBYTECODE=1, so without bytecode beside the
sources each of a large build's thousands of sk actions compiles sk and jinja2
again (~70 ms each). The bytecode is hash-checked (PEP 552): the interpreter
hashes the source it has and falls back to the source if they differ, so a
stale file can cost time but never change behaviour, and nothing depends on
file times. The recorded file name is the path relative to the tree, so two
checkouts produce the same bytes (the importer records the real path at load).

  pycompile.py --tree DIR                compile every *.py under DIR into __pycache__ beside it
  pycompile.py SRC DEST_DIR [SRC DEST_DIR ...]
                                         compile SRC into DEST_DIR/<name>.<tag>.pyc (a Bazel action)

Used by the //tools/private:bytecode.bzl rule (sk's sources), the @sk_pypi
repository rule (its wheels) and bench/fusion.py (the cold tree it times).
"""

import importlib.util
import os
import py_compile
import sys

MODE = py_compile.PycInvalidationMode.CHECKED_HASH


def _cache_name(src: str) -> str:
    """The file name the importer looks for in __pycache__ (this interpreter's cache tag)."""
    return os.path.basename(importlib.util.cache_from_source(src))


def _compile(src: str, cfile: str, dfile: str) -> None:
    py_compile.compile(src, cfile=cfile, dfile=dfile, doraise=True, invalidation_mode=MODE)


def compile_tree(root: str) -> int:
    """Every .py under root gets root-relative-named bytecode in its __pycache__; returns the count."""
    count = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            if name.endswith(".py"):
                src = os.path.join(dirpath, name)
                _compile(src, os.path.join(dirpath, "__pycache__", _cache_name(src)), os.path.relpath(src, root))
                count += 1
    return count


def _compile_pairs(argv: list[str]) -> None:
    for src, dest in zip(argv[::2], argv[1::2]):
        if not src.endswith(".py"):
            raise ValueError(f"not a Python source: {src}")
        os.makedirs(dest, exist_ok=True)
        _compile(src, os.path.join(dest, _cache_name(src)), src)


def main(argv: list[str]) -> int:
    if (argv[:1] == ["--tree"] and len(argv) != 2) or not argv or len(argv) % 2:
        print("usage: pycompile.py --tree DIR | SRC DEST_DIR [SRC DEST_DIR ...]", file=sys.stderr)
        return 2
    try:
        if argv[0] == "--tree":
            compile_tree(argv[1])
        else:
            _compile_pairs(argv)
    except (py_compile.PyCompileError, ValueError, OSError) as err:
        # One line naming the file and the problem (a syntax error with its line), not a traceback.
        print(f"pycompile.py: {err}".rstrip(), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
