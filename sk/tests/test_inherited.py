"""The one rule for the options a sub-kernel inherits, and its Starlark copy."""

import pathlib

import pytest

from sk.base.errors import SkError
from sk.toolflow import subkernel
from sk.engine import inherited
from sk.engine import options

BZL = pathlib.Path(__file__).resolve().parents[2] / "rules" / "private" / "inherited_keys.bzl"


def test_starlark_keys_are_rendered_from_the_rule():
    assert BZL.read_text() == inherited.render_bzl(), (
        "rules/private/inherited_keys.bzl is stale: python -m sk.engine.inherited > rules/private/inherited_keys.bzl")


def test_keys_are_options_and_projection_keeps_only_them():
    assert set(inherited.INHERITED_KEYS) <= set(options.KNOWN_OPTIONS)
    full = ("profiling=1:dcci-after-kernel-end= Gmm , Add :split-mode=2:compile-options=-g:stream-fusion=1"
            ":debug-sync-all=1:early-start=0")
    assert inherited.project(full) == "early-start=0:stream-fusion=1:split-mode=2:dcci-after-kernel-end=Gmm,Add"
    assert inherited.inherited(inherited.project(full)) == inherited.inherited(full)
    assert inherited.project("") == "" and inherited.project('"profiling=1"') == ""


@pytest.mark.parametrize("other", [o for o in options.KNOWN_OPTIONS if o not in inherited.INHERITED_KEYS])
def test_no_other_option_changes_a_sub_kernel_compile(other):
    """Every option outside the rule leaves the SK-mode macros alone (what lets Bazel share compiles)."""
    values = {"func-align": "0", "preload-code": "max", "compile-options": "-g", "strict-scope-check": "bypass",
              "debug-aic-num": "4", "debug-aiv-num": "8"}
    text = f"{other}={values.get(other, '1')}"
    assert inherited.inherited(text) == inherited.inherited("")
    assert subkernel.sk_defines(4, inherited.inherited(text), "Add", "middle") == \
        subkernel.sk_defines(4, inherited.inherited(""), "Add", "middle")


@pytest.mark.parametrize("key,value", [("stream-fusion", "1"), ("early-start", "0"), ("feed-sync-all", "1"),
                                       ("dcci-before-kernel-start", "Add"), ("dcci-after-kernel-end", "Add"),
                                       ("dcci-disable-on-kernel", "Add")])
def test_every_inherited_option_but_split_mode_changes_the_macros(key, value):
    assert subkernel.sk_defines(4, inherited.inherited(f"{key}={value}"), "Add", "middle") != \
        subkernel.sk_defines(4, inherited.inherited(""), "Add", "middle")


def test_bad_values_are_the_option_parser_errors():
    with pytest.raises(SkError, match="stream-fusion"):
        inherited.project("stream-fusion=2")
