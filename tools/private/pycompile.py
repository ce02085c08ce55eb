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
  pycompile.py --tag                     print this interpreter's cache tag
  pycompile.py SRC DEST_DIR [SRC DEST_DIR ...]
                                         compile SRC into DEST_DIR/<name>.<tag>.pyc (a Bazel action)

Used by the //tools/private:bytecode.bzl rule (sk's sources), the @sk_pypi
repository rule (its wheels) and bench/fusion.py (the cold tree it times).
"""

import os
import py_compile
import sys

MODE = py_compile.PycInvalidationMode.CHECKED_HASH


def _compile(src: str, cfile: str, dfile: str) -> None:
    py_compile.compile(src, cfile=cfile, dfile=dfile, doraise=True, invalidation_mode=MODE)


def compile_tree(root: str) -> int:
    """Every .py under root gets root-relative-named bytecode in its __pycache__; returns the count."""
    count = 0
    tag = sys.implementation.cache_tag
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            if not name.endswith(".py"):
                continue
            src = os.path.join(dirpath, name)
            cfile = os.path.join(dirpath, "__pycache__", f"{name[:-3]}.{tag}.pyc")
            _compile(src, cfile, os.path.relpath(src, root))
            count += 1
    return count


def main(argv: list[str]) -> int:
    if argv[:1] == ["--tag"]:
        print(sys.implementation.cache_tag)
        return 0
    if argv[:1] == ["--tree"] and len(argv) == 2:
        compile_tree(argv[1])
        return 0
    if not argv or len(argv) % 2:
        print("usage: pycompile.py --tree DIR | --tag | SRC DEST_DIR [SRC DEST_DIR ...]", file=sys.stderr)
        return 2
    tag = sys.implementation.cache_tag
    for src, dest in zip(argv[::2], argv[1::2]):
        name = os.path.basename(src)
        if not name.endswith(".py"):
            print(f"pycompile.py: not a Python source: {src}", file=sys.stderr)
            return 2
        os.makedirs(dest, exist_ok=True)
        _compile(src, os.path.join(dest, f"{name[:-3]}.{tag}.pyc"), src)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
