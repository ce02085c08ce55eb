"""`sk gen` output files: the plan file's layout and its equivalence to the plan."""

import dataclasses
import json

from sk.render.outputs import dump_plan_json, write_outputs
from sk.tests.scenario import scenario_plan

OPS = [("a", {"kernel_type": "KERNEL_TYPE_AIC_ONLY"}, {}),
       ("b", {"kernel_type": "KERNEL_TYPE_AIV_ONLY"}, {}),
       ("c", {"kernel_type": "KERNEL_TYPE_MIX_AIC_1_2"}, {})]


def test_to_json_is_the_dataclass_as_plain_data(tmp_path):
    plan = scenario_plan(tmp_path / "in", OPS, "split-mode=4")
    assert plan.to_json() == dataclasses.asdict(plan)
    assert list(plan.to_json()) == [f.name for f in dataclasses.fields(plan)]


def test_plan_file_round_trips_one_item_per_line(tmp_path):
    plan = scenario_plan(tmp_path / "in", OPS, "split-mode=4")
    text = dump_plan_json(plan.to_json())
    assert json.loads(text) == json.loads(json.dumps(dataclasses.asdict(plan)))
    lines = text.splitlines()
    assert lines[0] == "{" and lines[-1] == "}" and text.endswith("}\n")
    # Each op of the plan is one line, so a diff of two plans shows the ops that changed.
    op_lines = [line for line in lines if line.startswith('  {"index": ')]
    assert len(op_lines) == len(OPS)
    assert all(line.isascii() for line in lines)


def test_plan_file_is_deterministic(tmp_path):
    a = write_outputs(scenario_plan(tmp_path / "in", OPS, "split-mode=4"), str(tmp_path / "o1"), str(tmp_path / "o1" / "plan.json"))
    b = write_outputs(scenario_plan(tmp_path / "in", OPS, "split-mode=4"), str(tmp_path / "o2"), str(tmp_path / "o2" / "plan.json"))
    for kind in a:
        with open(a[kind], "rb") as fa, open(b[kind], "rb") as fb:
            assert fa.read() == fb.read(), kind


def test_empty_lists_and_scalars_stay_inline():
    text = dump_plan_json({"a": [], "b": 1, "c": {"x": [1, 2]}, "d": [1, [2]]})
    assert text == '{\n "a": [],\n "b": 1,\n "c": {"x": [1, 2]},\n "d": [\n  1,\n  [2]\n ]\n}\n'
