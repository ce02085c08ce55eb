"""planfacts.load: decoding only the link step's fields of sk gen's plan file gives the same facts."""

import json

import pytest

from sk.engine import planfacts
from sk.render.outputs import dump_plan_json
from sk.base.errors import SkError
from sk.tests.scenario import scenario_plan

OPS = [("a", {"kernel_type": "KERNEL_TYPE_AIC_ONLY"}, {}), ("b", {"kernel_type": "KERNEL_TYPE_MIX_AIC_1_2"}, {}),
       ("c", {"kernel_type": "KERNEL_TYPE_AIV_ONLY"}, {})]


@pytest.fixture
def plan_doc(tmp_path):
    plan = scenario_plan(tmp_path / "in", OPS, options="split-mode=4")
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


# ---------------------------------------------------------------- load_link_facts: the link step's fast reader

def _facts_or_error(read):
    """The facts without the decoded document (`raw`), or ("error", paragraph)."""
    try:
        facts = read()
    except SkError as err:
        return ("error", err.paragraph())
    return facts._replace(raw=None)


def _both(path):
    fast = _facts_or_error(lambda: planfacts.load_link_facts(path))
    slow = _facts_or_error(lambda: planfacts.facts(planfacts.load(path, planfacts.FIELDS), where=path))
    assert fast == slow
    return fast


LINE = '{"kind": "sub", "arch": "cube", "op": 1, "object": "b_split1.o", "symbol": "b__kernel0_middle_split1", '
EDITS = {
    "as_written": [],
    "derived_from": [('"b__kernel0_middle_split1", "split": 1, "derived_from": null}',
                      '"b__kernel0_middle_split1", "split": 1, "derived_from": "b.o"}')],
    "derived_from_empty": [('"split": 1, "derived_from": null}', '"split": 1, "derived_from": ""}')],
    "derived_from_number": [('"split": 1, "derived_from": null}', '"split": 1, "derived_from": 7}')],
    "sub_op_null": [(LINE, LINE.replace('"op": 1', '"op": null'))],
    "sub_op_bool": [(LINE, LINE.replace('"op": 1', '"op": true'))],
    "sub_op_negative": [(LINE, LINE.replace('"op": 1', '"op": -1'))],
    "sub_op_leading_zero": [(LINE, LINE.replace('"op": 1', '"op": 01'))],
    "sub_op_huge": [(LINE, LINE.replace('"op": 1', '"op": 1234567890123456789012345'))],
    "sub_op_float": [(LINE, LINE.replace('"op": 1', '"op": 1.0'))],
    "entry_op_number": [('"kind": "sk_entry", "arch": "cube", "op": null', '"kind": "sk_entry", "arch": "cube", "op": 3')],
    "escaped_name": [(LINE, LINE.replace("b_split1.o", "b_split\\u00e41.o"))],
    "raw_utf8_name": [(LINE, LINE.replace("b_split1.o", "b_split\u00e41.o"))],
    "escaped_quote": [(LINE, LINE.replace("b_split1.o", 'b_\\"split1.o'))],
    "control_char": [(LINE, LINE.replace("b_split1.o", "b_\tsplit1.o"))],
    "unknown_kind": [(LINE, LINE.replace('"kind": "sub"', '"kind": "subs"'))],
    "extra_key": [(LINE, LINE.replace('{"kind"', '{"extra": 1, "kind"'))],
    "key_order": [(LINE, LINE.replace('"kind": "sub", "arch": "cube"', '"arch": "cube", "kind": "sub"'))],
    "missing_key": [(LINE, LINE.replace('"symbol": "b__kernel0_middle_split1", ', ''))],
    "split_string": [('"split": 1, "derived_from": null}', '"split": "1", "derived_from": null}')],
    "item_not_object": [(LINE, '7, ' + LINE)],
    "two_items_one_line": [(LINE, '{"kind": "sub", "arch": "cube", "op": 1, "object": "x.o", "symbol": "x", "split": 0, '
                                  '"derived_from": null}, ' + LINE)],
    "trailing_comma": [('"derived_from": null}\n ],\n "code"', '"derived_from": null},\n ],\n "code"')],
    "not_json": [(LINE, LINE[:-3])],
    "empty_link_order": [('"link_order": [\n', '"link_order": [],\n "was_link_order": [\n')],
    "no_link_order": [('"link_order": [\n', '"was_link_order": [\n')],
    "ops_swapped": [('{"index": 0, ', '{"index": 9, ')],
    "ops_not_json": [('{"index": 1, "kernel_name": "b__kernel0"', '{"index": 1, "kernel_name": "b__kernel0" ')],
    "ops_two_per_line": [('},\n  {"index": 1, ', '}, {"index": 1, ')],
    "ops_empty": [('"ops": [\n', '"ops": [],\n "was_ops": [\n')],
    "ops_not_list": [('"ops": [\n', '"ops": 3,\n "was_ops": [\n')],
    "duplicate_top_level_key": [('"link_order": [\n', '"ops": [],\n "link_order": [\n')],
    "crlf": [("\n", "\r\n")],
    "entries_missing": [('"entries": [', '"was_entries": [')],
}


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_link_facts_are_the_facts_of_the_whole_plan(tmp_path, plan_doc, edit):
    text = dump_plan_json(plan_doc)
    for old, new in EDITS[edit]:
        assert old in text, (edit, old)
        text = text.replace(old, new) if old == "\n" else text.replace(old, new, 1)
    result = _both(_write(tmp_path, text))
    if edit == "as_written":
        assert result.op_count == len(OPS) and len(result.link_order) > len(OPS)


@pytest.mark.parametrize("indent", [None, 1, 2])
def test_link_facts_of_other_layouts(tmp_path, plan_doc, indent):
    assert _both(_write(tmp_path, json.dumps(plan_doc, indent=indent) + "\n")).op_count == len(OPS)


def test_link_facts_of_a_missing_plan(tmp_path):
    assert _both(str(tmp_path / "none.json"))[0] == "error"


def test_gen_layout_takes_the_line_readers(plan_doc):
    text = dump_plan_json(plan_doc)
    spans = planfacts._top_level_spans(text)
    order = planfacts._link_order_lines(text, *spans["link_order"])
    assert order == planfacts._link_order(plan_doc["link_order"], "plan")
    assert planfacts._count_op_lines(text, *spans["ops"]) == len(plan_doc["ops"]) == len(OPS)
