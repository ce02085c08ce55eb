"""The layering rules of ARCHITECTURE.md, checked on the import graph (in the spirit of rules_rust's).

A module of sk/<layer>/ may import its own layer and the layers below it, never
one above; no module outside a package reaches for that package's private
names (`from sk.x.y import _z`, `y._z`); bench/ uses sk's public API only.
"""

from __future__ import annotations

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
# Bottom to top; the order of ARCHITECTURE.md's "Inside sk/" table.
LAYERS = ("base", "binfmt", "engine", "render", "toolflow", "twin", "cli")
TOP_LEVEL = {"__init__", "__main__"}  # sk/__main__.py starts the cli layer; above everything


def _layer_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "sk" or len(parts) < 2:
        return None
    return parts[1] if parts[1] in LAYERS else None


def _imports(tree: ast.AST):
    """(imported module, [names or None], node) for every sk import, resolving `from sk.x import y` to sk.x.y."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "sk" or alias.name.startswith("sk."):
                    yield alias.name, None, alias.asname or alias.name.split(".")[0], node
        elif isinstance(node, ast.ImportFrom) and node.module and (node.module == "sk" or node.module.startswith("sk.")):
            for alias in node.names:
                yield node.module, alias.name, alias.asname or alias.name, node


def violations(path: pathlib.Path, source: str, own_layer: str | None) -> list[str]:
    """Layer and privacy violations of one module; own_layer None for code outside sk (bench)."""
    tree = ast.parse(source, str(path))
    found, module_aliases = [], {}
    for module, name, bound, node in _imports(tree):
        layer = _layer_of("sk." + name if module == "sk" and name else module)
        if own_layer and layer and LAYERS.index(layer) > LAYERS.index(own_layer):
            found.append(f"{path}:{node.lineno}: layer {own_layer} imports {module} (layer {layer}, higher)")
        if layer and layer != own_layer:
            if name and name.startswith("_"):
                found.append(f"{path}:{node.lineno}: imports private name {name} of {module}")
            else:
                module_aliases[bound] = f"{module}.{name}" if name else module
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in module_aliases
                and node.attr.startswith("_") and not node.attr.startswith("__")):
            found.append(f"{path}:{node.lineno}: uses private name {node.attr} of {module_aliases[node.value.id]}")
    return found


def _production_modules():
    for path in sorted((ROOT / "sk").rglob("*.py")):
        rel = path.relative_to(ROOT / "sk")
        if rel.parts[0] in ("tests", "runtime"):
            continue
        if len(rel.parts) == 1:
            assert rel.stem in TOP_LEVEL, f"sk/{rel} is outside every layer: move it into one of {LAYERS}"
            continue
        assert rel.parts[0] in LAYERS, f"sk/{rel.parts[0]}/ is not a layer of ARCHITECTURE.md: {LAYERS}"
        yield path, rel.parts[0]


def test_every_sk_module_respects_the_layers():
    found = [v for path, layer in _production_modules() for v in violations(path, path.read_text(), layer)]
    assert not found, "\n".join(found)


def test_bench_uses_only_public_names():
    bench = sorted((ROOT / "bench").glob("*.py"))
    assert bench, "bench/*.py must be in this test's data"
    found = [v for path in bench for v in violations(path, path.read_text(), None)]
    found += [f"{p}: imports sk.tests (test helpers are not part of sk)" for p in bench if "sk.tests" in p.read_text()]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("layer, source, expected", [
    ("engine", "from sk.render import codegen\n", "layer engine imports sk.render"),
    ("engine", "from sk.cli.main import main\n", "layer engine imports sk.cli.main"),
    ("toolflow", "import sk.twin.run\n", "layer toolflow imports sk.twin.run"),
    ("toolflow", "from sk.engine.plan import _private\n", "private name _private"),
    ("twin", "from sk.toolflow import toolargv\ntoolargv._argv()\n", "private name _argv of sk.toolflow.toolargv"),
    (None, "from sk.twin import run\nrun._Memory()\n", "private name _Memory"),
])
def test_the_checker_catches(layer, source, expected):
    found = violations(pathlib.Path("x.py"), source, layer)
    assert any(expected in v for v in found), found


@pytest.mark.parametrize("layer, source", [
    ("render", "from sk.engine import plan\nfrom sk.base.errors import SkError\n"),
    ("engine", "from sk.engine import elision\nelision._rule()\n"),  # its own layer's internals
    ("cli", "from sk.twin import run\nrun.build()\n"),
])
def test_the_checker_allows(layer, source):
    assert violations(pathlib.Path("x.py"), source, layer) == []
