"""The bytecode the build makes for the sk tool (//sk:sk_bytecode, @sk_pypi) is complete, current and path-free.

Every sk action is a fresh process; it imports sk and jinja2 from this
bytecode instead of compiling them (tools/private/pycompile.py). A source
without bytecode, or bytecode of another text, would silently cost that time
in every action again; an absolute path in it would differ between checkouts.
"""

from __future__ import annotations

import importlib.util
import marshal
import os
import pathlib

import pytest

import sk

SK_DIR = pathlib.Path(sk.__file__).parent
CHECKED_HASH = 0b11  # PEP 552 flags: hash-based, checked

pytestmark = pytest.mark.skipif(
    not os.environ.get("TEST_SRCDIR"),
    reason="the bytecode is a Bazel build output (//sk:sk_bytecode); run under `tools/bazel test //sk:bytecode_test`")


def _tool_sources():
    """The modules in these runfiles outside sk/tests (only //sk:sk_lib's sources are)."""
    return [p for p in sorted(SK_DIR.rglob("*.py")) if p.relative_to(SK_DIR).parts[0] != "tests"]


def _check(source: pathlib.Path) -> str | None:
    cached = pathlib.Path(importlib.util.cache_from_source(str(source)))
    if not cached.exists():
        return f"{source.name}: no {cached.name} beside it"
    data = cached.read_bytes()
    if data[:4] != importlib.util.MAGIC_NUMBER:
        return f"{cached.name}: made by another Python (magic {data[:4].hex()})"
    if int.from_bytes(data[4:8], "little") != CHECKED_HASH:
        return f"{cached.name}: not hash-checked bytecode (flags {data[4:8].hex()})"
    if data[8:16] != importlib.util.source_hash(source.read_bytes()):
        return f"{cached.name}: compiled from another text than {source.name}"
    filename = marshal.loads(data[16:]).co_filename
    if os.path.isabs(filename):
        return f"{cached.name}: records the absolute path {filename}"
    return None


def test_every_sk_module_has_current_path_free_bytecode():
    sources = list(_tool_sources())
    assert len(sources) > 50, sources
    problems = [p for p in map(_check, sources) if p]
    assert not problems, problems


@pytest.mark.parametrize("package", ["jinja2", "markupsafe"])
def test_the_wheels_have_bytecode_too(package):
    origin = pathlib.Path(importlib.util.find_spec(package).origin)
    problems = [p for p in map(_check, sorted(origin.parent.glob("*.py"))) if p]
    assert not problems, problems
