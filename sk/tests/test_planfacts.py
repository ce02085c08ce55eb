"""planfacts.load: decoding only the link step's fields of sk gen's plan file gives the same facts."""

import json

import pytest

from sk import planfacts
from sk.commands.gen import dump_plan_json
from sk.errors import SkError
from sk.plan import build_plan
from sk.platforms import get_platform
from sk.subop import load_kernel_infos
from sk.tests.scenario import write_scenario

OPS = [("a", {"kernel_type": "KERNEL_TYPE_AIC_ONLY"}, {}), ("b", {"kernel_type": "KERNEL_TYPE_MIX_AIC_1_2"}, {}),
       ("c", {"kernel_type": "KERNEL_TYPE_AIV_ONLY"}, {})]


@pytest.fixture
def plan_doc(tmp_path):
    plan = build_plan(load_kernel_infos(write_scenario(tmp_path / "in", OPS, options="split-mode=4")), get_platform())
    return plan.to_json()


def _write(tmp_path, text):
    path = tmp_path / "plan.json"
    path.write_text(text)
    return str(path)


def test_only_the_fields_are_decoded_and_they_match(tmp_path, plan_doc):
    path = _write(tmp_path, dump_plan_json(plan_doc))
    part, full = planfacts.load(path, planfacts.FIELDS), planfacts.load(path)
    assert sorted(part) == sorted(planfacts.FIELDS) and len(full) > len(part)
    assert all(part[k] == full[k] for k in planfacts.FIELDS)
    a, b = planfacts.facts(part), planfacts.facts(full)
    assert (a.link_order, a.entries, a.op_count, a.compile_options) == (b.link_order, b.entries, b.op_count,
                                                                        b.compile_options)


@pytest.mark.parametrize("indent", [None, 1, 2, "\t"])
def test_other_layouts_are_decoded_whole(tmp_path, plan_doc, indent):
    path = _write(tmp_path, json.dumps(plan_doc, indent=indent) + "\n")
    doc = planfacts.load(path, planfacts.FIELDS)
    assert all(doc[k] == plan_doc[k] for k in planfacts.FIELDS)
    assert planfacts.facts(doc).op_count == len(OPS)


def test_a_field_that_does_not_decode_is_reported_as_a_json_error(tmp_path, plan_doc):
    text = dump_plan_json(plan_doc).replace('"link_order": [', '"link_order": [,', 1)
    with pytest.raises(SkError, match="plan is not valid JSON"):
        planfacts.load(_write(tmp_path, text), planfacts.FIELDS)


def test_a_missing_field_is_still_named(tmp_path, plan_doc):
    del plan_doc["link_order"]
    doc = planfacts.load(_write(tmp_path, dump_plan_json(plan_doc)), planfacts.FIELDS)
    with pytest.raises(SkError, match="link_order"):
        planfacts.facts(doc)
