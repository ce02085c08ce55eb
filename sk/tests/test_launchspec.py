"""The launch API as data (sk.engine.launchspec) and as text (sk.render.launch), from synthetic plans."""

from __future__ import annotations

import json

import pytest

from sk.base.errors import SkError
from sk.engine import launchspec
from sk.render import launch as render


def _plan(ops, *, ffts=True, workspace=0, extra_slots=0, name="sk"):
    """A plan document with the fields the launcher reads; ops: [(params, dynamic, notify, wait)]."""
    slot = 1 if ffts else 0
    out_ops = []
    for i, (params, dynamic, notify, wait) in enumerate(ops):
        rec = {"index": i, "kernel_name": f"k{i}", "params": [], "dynamic_params": None, "notify": [], "wait": []}
        for p in params:
            rec["params"].append({"name": f"{p}_{i}", "offset": slot})
            slot += 1
        if dynamic:
            rec["dynamic_params"] = {"tiling_key": slot, "block_num": slot + 1, "wait_lock": slot + 2}
            slot += 3
        for kind, events in (("notify", notify), ("wait", wait)):
            for e, inner in events:
                rec[kind].append({"event": e, "offset": slot, "inner": inner})
                slot += 1
        out_ops.append(rec)
    count = slot + extra_slots
    params = {"ffts_slot": 0 if ffts else None, "count": count, "workspace_index": count if workspace else None,
              "workspace_size": workspace, "dump": False, "profiling_index": None, "task_id_index": None}
    return {"kernel_name": name, "kernel_type": "KERNEL_TYPE_MIX_AIV_1_0", "task_ration": "0:1", "block_dim": 8,
            "split_mode": 1, "entries": [{"arch": "vec", "symbol": f"{name}_mix_aiv", "define": "", "object": "o"}],
            "compile_options": [], "link_order": [], "ops": out_ops, "params": params}


def _op(name, inputs, outputs, bind, *, workspace=0, tiling=False, tiling_size=0):
    params = inputs + outputs + (["workspace"] if workspace else []) + (["tiling"] if tiling else [])
    return {"name": name, "label": f"//m:{name}", "bind": bind,
            "kernel": {"entry": f"{name}_k", "kernel_type": "KERNEL_TYPE_AIV_ONLY", "block_dim": 4, "params": params,
                       "tensor_params": inputs + outputs, "workspace": workspace, "tiling": tiling,
                       "tiling_size": tiling_size, "label": f"//m:{name}_k"}}


def _spec(ops, plan, pieces=None, unfused=None):
    manifest = {"name": "sk", "label": "//m:sk", "ops": ops,
                "pieces": pieces or [{"first": 0, "count": len(ops), "plan": "plan.json", "binary": "sk.o"}],
                "unfused": unfused or []}
    return launchspec.build(manifest, load=lambda path, what: plan)


def test_slots_follow_the_plan_and_build_names():
    ops = [_op("scale", ["x", "y"], ["z"], {"x": "a", "y": "b", "z": "h"}, workspace=100, tiling=True,
               tiling_size=8),
           _op("add", ["x", "y"], ["z"], {"x": "h", "y": "b", "z": "out"})]
    plan = _plan([(["x", "y", "z", "workspace", "tiling"], False, [], []), (["x", "y", "z"], False, [], [])],
                 workspace=1000)
    spec = _spec(ops, plan)
    assert [a.name for a in spec.args] == ["a", "b", "h", "scale_tiling", "out"]
    assert [a for a in spec.args if a.name == "scale_tiling"][0].min_bytes == 8
    # The SK's own workspace first, then each op's at a 512-byte aligned offset.
    assert [(w.owner, w.offset, w.bytes) for w in spec.workspace] == [("", 0, 1000), ("scale", 1024, 100)]
    assert spec.workspace_bytes == 1124
    (launch,) = spec.launches
    assert [(v.source, v.name, v.offset) for v in launch.slots] == [
        ("ffts", "", 0), ("arg", "a", 0), ("arg", "b", 0), ("arg", "h", 0), ("workspace", "", 1024),
        ("arg", "scale_tiling", 0), ("arg", "h", 0), ("arg", "b", 0), ("arg", "out", 0), ("workspace", "", 0)]


def test_tiling_sink_and_external_event_words_become_arguments():
    ops = [_op("gmm", ["x"], ["y"], {"x": "a", "y": "b"}), _op("add", ["x"], ["y"], {"x": "b", "y": "c"})]
    plan = _plan([(["x", "y"], True, [(3, False)], []), (["x", "y"], False, [], [(3, False), (4, True)])])
    spec = _spec(ops, plan)
    names = [a.name for a in spec.args]
    assert ["gmm_tiling_key", "gmm_block_num", "gmm_wait_lock", "gmm_notify_3", "add_wait_3"] == \
        [n for n in names if n not in ("a", "b", "c")]
    inner = [v for v in spec.launches[0].slots if "inner" in v.doc]
    assert [v.source for v in inner] == ["zero"]


def test_a_slot_the_launcher_cannot_fill_is_an_error():
    ops = [_op("add", ["x"], ["y"], {})]
    with pytest.raises(SkError, match="slot the launcher does not know how to fill"):
        _spec(ops, _plan([(["x", "y"], False, [], [])], extra_slots=1))


def test_the_plan_and_build_must_agree_on_parameters():
    ops = [_op("add", ["x"], ["y"], {})]
    with pytest.raises(SkError, match="fewer parameters"):
        _spec(ops, _plan([(["x"], False, [], [])]))


@pytest.mark.parametrize("tensor, message", [
    ("a-b", "not a C\\+\\+ identifier"), ("class", "not a C\\+\\+ identifier"), ("workspace", "reserved"),
    ("scale_tiling", "same name"),
])
def test_bad_argument_names_are_refused_naming_the_op(tensor, message):
    ops = [_op("scale", ["x"], ["z"], {"x": "a", "z": tensor}, workspace=64, tiling=True)]
    with pytest.raises(SkError, match=message) as err:
        _spec(ops, _plan([(["x", "z", "workspace", "tiling"], False, [], [])]))
    assert "op scale (//m:scale)" in str(err.value)


def test_split_pieces_and_unfused_launches():
    ops = [_op("a", ["x"], ["y"], {"y": "h"}), _op("b", ["x"], ["y"], {"x": "h", "y": "out"})]
    plan = _plan([(["x", "y"], False, [], [])])
    spec = _spec(ops, plan, pieces=[{"first": 0, "count": 1, "plan": "p", "binary": "sk.o"},
                                    {"first": 1, "count": 1, "binary": "b_k.o"}],
                 unfused=[{"first": 0, "count": 1, "binary": "a_k.o"}, {"first": 1, "count": 1, "binary": "b_k.o"}])
    assert [(l.name, l.fused) for l in spec.launches] == [("sk", True), ("b_k", False)]
    assert [v.name for v in spec.launches[1].slots] == ["h", "out"]
    assert [l.name for l in spec.unfused] == ["a_k", "b_k"]


def test_rendered_twin_and_cann_sources(tmp_path):
    ops = [_op("scale", ["x"], ["z"], {"x": "a", "z": "b"}, workspace=64, tiling=True, tiling_size=8)]
    plan = _plan([(["x", "z", "workspace", "tiling"], False, [], [])])
    binary = tmp_path / "sk.o"
    binary.write_bytes(bytes(range(20)))
    spec = _spec(ops, plan, pieces=[{"first": 0, "count": 1, "plan": "p", "binary": str(binary)}])
    header, twin = render.render(spec, "host", "m/sk_launch.h")
    assert "struct Args {" in header and "constexpr uint64_t kMinTilingBytes_scale = 8;" in header
    assert "&sk_launch_sk__sk_mix_aiv" in twin and "op scale, parameter tiling" in twin
    assert launchspec.twin_objects(spec) == {str(binary): ((("sk_mix_aiv", "sk_launch_sk__sk_mix_aiv"),), False)}
    header2, cann = render.render(spec, "cann", "m/sk_launch.h")
    assert header2 == header
    assert "0x00, 0x01, 0x02" in cann and "aclrtLaunchKernelWithConfig" in cann and str(tmp_path) not in cann
    assert render.render(spec, "cann", "m/sk_launch.h") == (header2, cann)


def test_cli_reports_a_bad_manifest(tmp_path, capsys):
    from sk.cli.main import main

    manifest = tmp_path / "launch.json"
    manifest.write_text(json.dumps({"name": "sk", "label": "//m:sk", "ops": [], "pieces": []}))
    out = tmp_path / "o"
    rc = main(["launch", "--manifest", str(manifest), "--flavor", "host", "--include", "x.h",
               "--header", str(out) + ".h", "--src", str(out) + ".cc"])
    assert rc == 2
    assert "nothing to launch" in capsys.readouterr().err


def test_profiling_buffer_is_an_argument_of_the_superkernel():
    ops = [_op("add", ["x"], ["y"], {})]
    plan = _plan([(["x", "y"], False, [], [])])
    plan["params"].update(profiling_index=plan["params"]["count"], task_id_index=plan["params"]["count"] + 1)
    spec = _spec(ops, plan)
    assert [v.source for v in spec.launches[0].slots][-2:] == ["arg", "zero"]
    _, twin = render.render(spec, "host", "m/sk_launch.h")
    assert "the SuperKernel, parameter profiling: args.profiling" in twin


def test_an_absent_optional_parameter_is_refused_by_the_launch_api():
    """sk_op bind = {"bias": ""} leaves bias out for sk_model; the launch API takes every parameter."""
    ops = [_op("bs", ["x", "bias"], ["y"], {"x": "a", "bias": "", "y": "b"})]
    plan = _plan([(["x", "bias", "y"], False, [], [])])
    with pytest.raises(SkError, match=r"op bs \(//m:bs\), parameter bias: the parameter is left out"):
        _spec(ops, plan)
