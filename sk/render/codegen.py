"""Renders a fusion plan into the SuperKernel source (facts §4) with the jinja2 templates.

The templates (sk/render/templates) only spell out what `Plan.code` says: which steps
appear in which order with which values is decided by sk.engine.plan. Rendering is
strict (an undefined name is a bug) and byte-for-byte deterministic.
"""

from __future__ import annotations

import hashlib
import os
import sys

import jinja2



# Beside this module in the source tree, the wheel and Bazel's runfiles alike (a plain
# path: importlib.resources costs 14 ms to import, on the path of every `sk gen`).
TEMPLATE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "templates")


def _load(name: str) -> str:
    try:
        with open(os.path.join(TEMPLATE_DIR, name), encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        raise jinja2.TemplateNotFound(name) from None


def _chomp(text: str) -> str:
    """Drop one trailing newline, so a multi-line macro can be placed on its own template line."""
    return text[:-1] if text.endswith("\n") else text


def is_arch(arch: str) -> str:
    """The core-type test of an arch: `if ASCEND_IS_AIC {`."""
    return "ASCEND_IS_AIC" if arch == "cube" else "ASCEND_IS_AIV"


def idx(api: str) -> str:
    """The block index call of an op's API flavour."""
    return "get_block_idx()" if api == "raw" else "AscendC::GetBlockIdx()"


def es_cond(cond) -> str:
    """An early-start condition [op, api, value] (None: always)."""
    return "true" if cond is None else f"{idx(cond[1])} {cond[0]} {cond[2]}"


def _indent(code: str) -> str:
    """Four spaces before every non-empty line (upstream's indent_code_func)."""
    return "".join("    " + line if line.strip("\n") else line for line in code.splitlines(keepends=True))


def key_switch(search: dict, branches: list) -> str:
    """The tiling-key search of a dynamic op's switch function, nested as upstream nests it."""
    def case(b) -> str:
        lines = []
        for a in b["assigns"]:
            first = f"{a['vars'][0]} = (uint64_t)({a['symbols'][0]});"
            lines.append(first + "".join(f"\n    {v} = (uint64_t)({sym});"
                                         for v, sym in zip(a["vars"][1:], a["symbols"][1:])))
        return ("\n" + "\n".join(lines)
                + f"\ndy_block_num = ((uint64_t){b['kernel_type_value']}) << 32 | (*blockNumAddr);\n")

    def node(n) -> str:
        if "lt" in n:
            return (f"if (*tilingKeyAddr < {n['lt']}) {{\n{_indent(node(n['left']))}\n}} else {{\n"
                    f"{_indent(node(n['right']))}\n}}")
        text = f"if (*tilingKeyAddr == {n['eq']}) {{\n{_indent(case(branches[n['then']]))}\n}}"
        if n["else"] is not None:
            text += f" else {{\n{_indent(case(branches[n['else']]))}\n}}"
        return text
    return node(search)


# Spellings the templates call as functions (steps.j2 says why they are not macros).
SPELLINGS = {"is_arch": is_arch, "idx": idx, "es_cond": es_cond, "key_switch": key_switch}

_DICT_ATTRIBUTES = frozenset(dir(dict))


class _Environment(jinja2.Environment):
    """`x.key` on plan.code's plain dicts looks the key up directly.

    jinja2 tries the attribute first and catches the AttributeError before
    indexing; with ~95,000 lookups for 1,200 sub-kernels the exceptions were a
    third of the render. Same result: a plain dict has no attributes but
    dict's own, and those still go the usual way.
    """

    def getattr(self, obj, attribute):
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                pass
        return super().getattr(obj, attribute)


_OPTIONS = {"undefined": jinja2.StrictUndefined, "keep_trailing_newline": True, "trim_blocks": True,
            "lstrip_blocks": True, "autoescape": False}


class TemplateBytecodeCache(jinja2.BytecodeCache):
    """Compiled templates cached under the rules Python applies to compiled modules.

    Compiling steps.j2 and the rest is 0.1 s of every `sk gen`, for code that
    only changes with the templates. Like a module's .pyc, the compiled code
    goes to `__pycache__` beside the templates, or under PYTHONPYCACHEPREFIX,
    and is not written under PYTHONDONTWRITEBYTECODE or where the directory is
    read-only (a Bazel sandbox): then templates compile as before. An entry is
    used only for the same source (jinja2 checks its checksum), jinja2 version
    and environment options, so the rendered text never depends on the cache.
    """

    def __init__(self, directory: str | None = None):
        if directory is None:
            prefix = sys.pycache_prefix
            directory = (os.path.join(prefix, TEMPLATE_DIR.lstrip(os.sep)) if prefix
                         else os.path.join(TEMPLATE_DIR, "__pycache__"))
        self.directory = directory
        self._salt = f"{jinja2.__version__}|{sorted((k, repr(v)) for k, v in _OPTIONS.items())}|"

    def get_cache_key(self, name: str, filename: str | None = None) -> str:
        return hashlib.sha256((self._salt + name).encode()).hexdigest()[:32]

    def _path(self, bucket) -> str:
        return os.path.join(self.directory, f"{bucket.key}.jinja2.cache")

    def load_bytecode(self, bucket) -> None:
        try:
            with open(self._path(bucket), "rb") as f:
                bucket.load_bytecode(f)  # resets the bucket on a stale or foreign entry
        except OSError:
            pass

    def dump_bytecode(self, bucket) -> None:
        if sys.dont_write_bytecode:
            return
        path = self._path(bucket)
        tmp = f"{path}.{os.getpid()}.tmp"
        try:
            os.makedirs(self.directory, exist_ok=True)
            with open(tmp, "wb") as f:
                bucket.write_bytecode(f)
            os.replace(tmp, path)
        except OSError:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def environment(bytecode_cache: jinja2.BytecodeCache | None = None) -> jinja2.Environment:
    """The templates' environment; bytecode_cache None: a TemplateBytecodeCache."""
    env = _Environment(loader=jinja2.FunctionLoader(_load), bytecode_cache=bytecode_cache or TemplateBytecodeCache(),
                       **_OPTIONS)
    env.filters["chomp"] = _chomp
    env.globals.update(SPELLINGS)
    return env


_SHARED: list = []


def shared_environment(precompile=()) -> jinja2.Environment:
    """One environment per process, its templates compiled once (a persistent worker renders
    many SuperKernels; sk gen's forked helper inherits the templates its parent compiled)."""
    if not _SHARED:
        _SHARED.append(environment())
    env = _SHARED[0]
    for name in precompile:
        env.get_template(name)
    return env


def render_source(plan) -> str:
    """The SuperKernel .cpp text for `plan` (an sk.engine.plan.Plan)."""
    return render_code(plan.code)


def render_code(code: dict, env: jinja2.Environment | None = None) -> str:
    """The SuperKernel .cpp text for a plan's `code` (env: one from environment(), reused)."""
    return (env or environment()).get_template("kernel.cpp.j2").render(code=code)
