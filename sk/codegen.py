"""Renders a fusion plan into the SuperKernel source (facts §4) with the jinja2 templates.

The templates (sk/templates) only spell out what `Plan.code` says: which steps
appear in which order with which values is decided by sk.plan. Rendering is
strict (an undefined name is a bug) and byte-for-byte deterministic.
"""

from __future__ import annotations

import os

import jinja2

from sk.plan import Plan


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


# Spellings the templates call as functions (steps.j2 says why they are not macros).
SPELLINGS = {"is_arch": is_arch, "idx": idx, "es_cond": es_cond}

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


def environment() -> jinja2.Environment:
    env = _Environment(
        loader=jinja2.FunctionLoader(_load),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )
    env.filters["chomp"] = _chomp
    env.globals.update(SPELLINGS)
    return env


def render_source(plan: Plan) -> str:
    """The SuperKernel .cpp text for `plan`."""
    return render_code(plan.code)


def render_code(code: dict, env: jinja2.Environment | None = None) -> str:
    """The SuperKernel .cpp text for a plan's `code` (env: one from environment(), reused)."""
    return (env or environment()).get_template("kernel.cpp.j2").render(code=code)
