"""Renders a fusion plan into the SuperKernel source (facts §4) with the jinja2 templates.

The templates (sk/templates) only spell out what `Plan.code` says: which steps
appear in which order with which values is decided by sk.plan. Rendering is
strict (an undefined name is a bug) and byte-for-byte deterministic.
"""

from __future__ import annotations

import importlib.resources

import jinja2

from sk.plan import Plan


def _load(name: str) -> str:
    resource = importlib.resources.files("sk").joinpath("templates", name)
    try:
        return resource.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise jinja2.TemplateNotFound(name) from None


def _chomp(text: str) -> str:
    """Drop one trailing newline, so a multi-line macro can be placed on its own template line."""
    return text[:-1] if text.endswith("\n") else text


def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FunctionLoader(_load),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )
    env.filters["chomp"] = _chomp
    return env


def render_source(plan: Plan) -> str:
    """The SuperKernel .cpp text for `plan`."""
    return environment().get_template("kernel.cpp.j2").render(code=plan.code)
