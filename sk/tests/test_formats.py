"""docs/formats.md's tables (sk/render/formats.py, sk/twin/datafile.py) against what the code writes and
reads: a field the tools write that no table lists, or a listed field they no longer write, fails here."""

import json
import os
import re

import pytest

from sk.base.errors import SkError
from sk.render import formats as fmt
from sk.tests.harness import run_sk
from sk.tests.scenario import dynamic_op, write_scenario
from sk.twin import datafile
from sk.twin import model

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
AIV = "KERNEL_TYPE_AIV_ONLY"


def _names(fields):
    return [f.name for f in fields]


def _always(fields):
    return {f.name for f in fields if f.when == fmt.ALWAYS}


def _check(written: dict, fields, what: str) -> None:
    """Every key written is listed, every always-present one is written, in the table's order."""
    listed = _names(fields)
    assert set(written) <= set(listed), (what, sorted(set(written) - set(listed)))
    assert _always(fields) <= set(written), (what, sorted(_always(fields) - set(written)))
    order = [k for k in listed if k in written]
    assert list(written) == order, (what, list(written), order)


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """`sk gen` on a fusion with every optional part: a tiling-sink op, events to and from outside the
    SuperKernel, dump and feed-sync-all (the SuperKernel's own workspace), profiling."""
    root = tmp_path_factory.mktemp("formats")
    ops = [("a", {"kernel_type": AIV, "block_dim": 8, "debugOptions": "printf", "debugBufSize": 1024,
                  "sub_operator_op_type": "Add"}, {"send_event_list": [3]}),
           ("d", dynamic_op("d", AIV), {"task_type": "dynamic"}),
           ("b", {"kernel_type": AIV, "sub_operator_call_dcci_disable_on_kernel": True},
            {"recv_event_list": [5]}),
           ("c", {"kernel_type": AIV}, {})]
    infos = write_scenario(root, ops, options="feed-sync-all=1:profiling=1")
    out = root / "out"
    res = run_sk("gen", "--kernel-infos", infos, "--out-dir", out, "--plan-out", root / "plan.json")
    assert res.returncode == 0, res.stderr
    with open(root / "plan.json") as f:
        plan = json.load(f)
    with open(out / "te_superkernel_t.json") as f:
        kernel_json = json.load(f)
    return plan, kernel_json


def test_the_plan_is_as_documented(generated):
    plan, _ = generated
    _check(plan, fmt.PLAN, "plan")
    _check(plan["params"], fmt.PLAN_PARAMS, "plan params")
    assert plan["params"]["workspace_index"] is not None and plan["params"]["profiling_index"] is not None
    for op in plan["ops"]:
        _check(op, fmt.PLAN_OP, f"plan ops[{op['index']}]")
        # Parameter names carry the op's index, as documented.
        assert all(p["name"].endswith(f"_{op['index']}") for p in op["params"]), op["params"]
    assert plan["ops"][1]["dynamic_params"] is not None
    # `count` leaves out the SuperKernel's own slots: they follow it.
    p = plan["params"]
    assert p["workspace_index"] == p["count"] and p["profiling_index"] == p["count"] + 1


def test_the_kernel_json_is_as_documented(generated, tmp_path):
    _, doc = generated
    _check(doc, fmt.KERNEL_JSON, "kernel JSON")
    assert {"workspace", "debugOptions", "debugBufSize"} <= set(doc)
    entries = doc["SuperkernelInfo"]["kernelList"]["aicore"]
    for entry in entries:
        _check(entry, fmt.KERNEL_JSON_OP, f"kernel JSON op {entry['func_name']}")
    # The built kernel JSON adds sha256 where the table puts it.
    from sk.render.meta import with_sha256

    (tmp_path / "o.o").write_bytes(b"object")
    _check(with_sha256(doc, str(tmp_path / "o.o")), fmt.KERNEL_JSON, "built kernel JSON")


def test_the_report_has_the_documented_sections(generated):
    from sk.render.report import render

    plan, doc = generated
    text = render(plan, doc)
    headings = [re.sub(r"\(\d+\)", "(N)", line) for line in text.splitlines() if line.startswith("## ")]
    assert headings == _names(fmt.REPORT_SECTIONS)
    assert text.startswith("# SuperKernel `te_superkernel_t`")


def test_the_launch_header_constants_and_launch_info_are_as_documented():
    with open(os.path.join(REPO, "sk", "render", "templates", "launch.h.j2")) as f:
        template = f.read()
    constants = re.findall(r"constexpr [\w:]+(?: const)? (?:char )?(k\w+(?:\{\{ a\.op \}\})?)", template)
    assert [c.replace("{{ a.op }}", "<op>") for c in constants] == _names(fmt.LAUNCH_CONSTANTS)
    with open(os.path.join(REPO, "sk", "launch", "include", "sk_launch.h")) as f:
        header = f.read()
    info = header.split("struct LaunchInfo {", 1)[1].split("};", 1)[0]
    assert re.findall(r"^\s+[\w:* ]+?\b(\w+);", info, re.M) == _names(fmt.LAUNCH_INFO)
    status = header.split("struct Status {", 1)[1].split("};", 1)[0]
    assert re.findall(r"^\s+[\w:]+ (\w+)(?: = \w+)?;", status, re.M) == _names(fmt.LAUNCH_STATUS)


def test_the_data_file_reader_knows_exactly_the_documented_fields(tmp_path):
    with pytest.raises(SkError) as err:
        model.merged({"name": "m", "kernels": {}, "ops": [], "super_kernels": []}, str(tmp_path),
                     _write(tmp_path, {"tensors": {}, "colour": 1}))
    top = [f.path for f in datafile.DATA_FILE if "." not in f.path and "[" not in f.path]
    assert "Known fields: " + ", ".join(sorted(top)) + "." in str(err.value), str(err.value)
    sections = {f.path.rsplit(".", 1)[0] for f in datafile.DATA_FILE if "." in f.path}
    assert sections == {"tensors.<name>", "ops[]", "ops[].tiling"}
    assert set(datafile.INIT_VALUES) == set(model.INITS)


def _write(tmp_path, doc):
    path = tmp_path / "data.json"
    path.write_text(json.dumps(doc))
    return str(path)


@pytest.mark.parametrize("dtype", sorted(model.DTYPES))
def test_random_initial_values_lie_in_the_documented_ranges(dtype):
    code, size = model.DTYPES[dtype]
    t = model.Tensor("t", dtype, (4096,), "random")
    values = model.unpack(dtype, t.initial_bytes(seed=0))  # bfloat16: the values its bits stand for
    if code in "fed" or dtype == model.BFLOAT16:
        lo, hi = -4.0, 4.0
        assert "[-4, 4]" in datafile.INIT_VALUES["random"]
    elif dtype == "bool":
        assert "bool 0 or 1" in datafile.INIT_VALUES["random"]
        assert set(values) == {0, 1}
        return
    elif code.isupper():
        lo, hi = 0, 100
        assert "unsigned integers uniform in [0, 100]" in datafile.INIT_VALUES["random"]
    else:
        lo, hi = -100, 100
        assert "signed integers uniform in [-100, 100]" in datafile.INIT_VALUES["random"]
    assert lo <= min(values) and max(values) <= hi, (dtype, min(values), max(values))
    assert len(set(values)) > 50  # spread over the range, not one value
    assert min(values) < lo + (hi - lo) / 10 and max(values) > hi - (hi - lo) / 10


def test_the_options_table_lists_every_option_and_its_values():
    from sk.engine.options import KNOWN_OPTIONS, parse_options

    assert _names(fmt.OPTIONS) == list(KNOWN_OPTIONS)
    for f in fmt.OPTIONS:
        listed = re.findall(r"`([^`]+)`", f.type)
        if not listed:
            continue
        for value in listed:  # an enumerated option: every listed value parses ...
            assert parse_options(f"{f.name}={value}").get(f.name) is not None
        with pytest.raises(SkError, match="(?i)allowed values: " + ", ".join(listed)):  # ... and only those
            parse_options(f"{f.name}=other")
