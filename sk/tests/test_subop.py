"""kernel_infos and sub-op JSON: loading, defaults and every validation error."""

import json
import os

import pytest

from sk.base.errors import SkError
from sk.engine.platforms import get_platform
from sk.engine.subop import kernel_infos_from_dict, load_kernel_infos
from sk.tests.objfactory import make_archive
from sk.tests.scenario import write_scenario


def _two_ops(tmp_path, **kw):
    return write_scenario(tmp_path, [("a", {}, {}), ("b", {"kernel_type": "KERNEL_TYPE_AIV_ONLY"}, {})], **kw)


def test_loads_ops_with_defaults(tmp_path):
    k = load_kernel_infos(_two_ops(tmp_path, options="split-mode=4"))
    assert k.kernel_name == "te_superkernel_t" and k.options_text == "split-mode=4"
    a, b = k.ops
    assert a.kernel_name == "a__kernel0" and a.index == 0 and a.task_type == "normal"
    assert a.send_events == () and a.recv_events == ()
    assert a.funcs[0].arch == "cube" and b.funcs[0].arch == "vec"
    assert a.funcs[0].object == "a.o" and a.funcs[0].text_size == 4080
    a.check_split_copies(4)


def _edit_json(tmp_path, name, mutate):
    path = tmp_path / f"{name}.json"
    doc = json.loads(path.read_text())
    mutate(doc)
    path.write_text(json.dumps(doc))


def _edit_infos(path, mutate):
    doc = json.loads(open(path).read())
    mutate(doc)
    with open(path, "w") as f:
        json.dump(doc, f)


@pytest.mark.parametrize("mutate,expect", [
    (lambda d: d.pop("sub_operator_kernel_type"), "op_list[0] (a__kernel0) a.json: sub_operator_kernel_type"),
    (lambda d: d.update(sub_operator_kernel_type="KERNEL_TYPE_MIX"), "KERNEL_TYPE_MIX_AIC_1_2"),
    (lambda d: d.update(blockDim=0), "blockDim"),
    (lambda d: d.update(blockDim="8"), "blockDim"),
    (lambda d: d.update(sub_operator_params=["ok", "1bad"]), "sub_operator_params"),
    (lambda d: d.update(split_mode=0), "split_mode"),
    (lambda d: d.update(sub_op_with_sync_all="yes"), "sub_op_with_sync_all"),
    (lambda d: d.update(kernelName=None), "kernelName"),
    (lambda d: d["sub_operator_kernel_name"].pop("AiCore"), "sub_operator_kernel_name.AiCore"),
    (lambda d: d["sub_operator_kernel_name"]["AiCore"].update(func_name="nope"), "'nope'"),
    (lambda d: d["sub_operator_kernel_name"]["AiCore"].update(obj_files="zz.o"), "'zz.o'"),
    (lambda d: d.update(sub_operator_kernel_type="KERNEL_TYPE_MIX_AIC_1_2"), "dav-c220-cube"),
])
def test_sub_op_json_errors_name_op_and_field(tmp_path, mutate, expect):
    path = _two_ops(tmp_path)
    _edit_json(tmp_path, "a", mutate)
    with pytest.raises(SkError) as exc:
        load_kernel_infos(path)
    msg = exc.value.paragraph()
    assert expect in msg, msg
    assert str(tmp_path) not in msg


@pytest.mark.parametrize("mutate,expect", [
    (lambda d: d["op_list"][1].update(json_path="missing.json"), "op_list[1].json_path"),
    (lambda d: d["op_list"][1].update(bin_path="missing.o"), "op_list[1] (b__kernel0).bin_path"),
    (lambda d: d["op_list"][0].update(stream_id=-1), "op_list[0].stream_id"),
    (lambda d: d["op_list"][0].update(task_type="static"), "op_list[0].task_type"),
    (lambda d: d["op_list"][0].update(send_event_list=[1, 1]), "op_list[0].send_event_list"),
    (lambda d: d["op_list"][0].update(recv_event_list=["x"]), "op_list[0].recv_event_list"),
    (lambda d: d["op_list"][0].update(recv_events_list=[]), "did you mean 'recv_event_list'"),
    (lambda d: d.update(op_list=[]), "kernel_infos.op_list"),
    (lambda d: d.update(kernel_name="1bad"), "kernel_infos.kernel_name"),
    (lambda d: d.update(super_kernel_option=""), "did you mean 'super_kernel_options'"),
])
def test_kernel_infos_errors(tmp_path, mutate, expect):
    path = _two_ops(tmp_path)
    _edit_infos(path, mutate)
    with pytest.raises(SkError) as exc:
        load_kernel_infos(path)
    assert expect in exc.value.paragraph()


def test_invalid_json_is_reported(tmp_path):
    path = _two_ops(tmp_path)
    (tmp_path / "b.json").write_text("{not json")
    with pytest.raises(SkError, match="not valid JSON"):
        load_kernel_infos(path)


def test_missing_split_copy_symbol(tmp_path):
    path = _two_ops(tmp_path)
    os.rename(tmp_path / "a_split2.o", tmp_path / "a_split2.bak")
    k = load_kernel_infos(path)
    with pytest.raises(SkError, match="split copy 2"):
        k.ops[0].check_split_copies(4)
    k.ops[0].check_split_copies(1)  # no copies needed


def test_archive_bin_path(tmp_path):
    path = _two_ops(tmp_path)
    members = [tmp_path / n for n in ("a.o", "a_split1.o", "a_split2.o", "a_split3.o")]
    make_archive(tmp_path / "a.a", members)
    for m in members:
        os.rename(m, str(m) + ".gone")
    _edit_infos(path, lambda d: d["op_list"][0].update(bin_path="a.a"))
    k = load_kernel_infos(path)
    k.ops[0].check_split_copies(4)
    assert k.ops[0].bin_path == "a.a"


def test_dynamic_op_tiling_keys(tmp_path):
    dyn = {"dynamic_func_names": {"2": {"AiCore": "a__kernel0_middle", "kernel_type": "KERNEL_TYPE_AIC_ONLY"},
                                  "10": {"AiCore": "a_key10", "kernel_type": "KERNEL_TYPE_AIC_ONLY"}}}
    path = write_scenario(tmp_path, [("a", {}, {"task_type": "dynamic"})])
    _edit_json(tmp_path, "a", lambda d: d["sub_operator_kernel_name"].update(dyn))
    with pytest.raises(SkError, match="a_key10"):
        load_kernel_infos(path)
    _edit_json(tmp_path, "a", lambda d: d["sub_operator_kernel_name"]["dynamic_func_names"].pop("10"))
    op = load_kernel_infos(path).ops[0]
    assert op.dynamic and [k.tiling_key for k in op.dynamic_keys] == [2]


def test_dynamic_op_without_table(tmp_path):
    path = write_scenario(tmp_path, [("a", {}, {"task_type": "dynamic"})])
    with pytest.raises(SkError, match="dynamic_func_names"):
        load_kernel_infos(path)


def test_from_dict_kernel_name_override(tmp_path):
    path = _two_ops(tmp_path)
    doc = json.loads(open(path).read())
    k = kernel_infos_from_dict(doc, str(tmp_path), kernel_name="te_other")
    assert k.kernel_name == "te_other"


def test_preload_size_from_bin_path_without_split_mode(tmp_path):
    # Upstream sizes the op's bin_path itself when its JSON has no split_mode (the first .text listed, in
    # an archive the first member's), and the obj_files member otherwise; MIX 1:1/1:2 always the members.
    from sk.tests.objfactory import make_object

    path = write_scenario(tmp_path, [("a", {"split_mode": None}, {}),
                                     ("m", {"kernel_type": "KERNEL_TYPE_MIX_AIC_1_1", "split_mode": None}, {})],
                          text_size=4080)
    make_object(tmp_path / "first.o", ["unrelated"], text_size=9000)
    make_archive(tmp_path / "a.a", [tmp_path / "first.o", tmp_path / "a.o"])
    make_archive(tmp_path / "m.a", [tmp_path / "first.o", tmp_path / "m.o"])
    _edit_infos(path, lambda d: [d["op_list"][0].update(bin_path="a.a"), d["op_list"][1].update(bin_path="m.a")])
    a, m = load_kernel_infos(path).ops
    assert [f.text_size for f in a.funcs] == [9000]
    assert [f.text_size for f in m.funcs] == [4080, 4080]
    _edit_json(tmp_path, "a", lambda d: d.update(split_mode=4))
    assert [f.text_size for f in load_kernel_infos(path).ops[0].funcs] == [4080]


@pytest.mark.parametrize("field", ["sub_operator_early_start_set_flag", "sub_operator_early_start_wait_flag"])
def test_a_sub_op_json_without_an_early_start_flag_is_refused(tmp_path, field):
    # Upstream reads both flags without a default and refuses the JSON (KeyError in init_of_sub_operator_info).
    path = _two_ops(tmp_path)
    _edit_json(tmp_path, "b", lambda d: d.pop(field))
    with pytest.raises(SkError, match=f"op_list\\[1\\] \\(b__kernel0\\) b.json: {field}.*required field is missing"):
        load_kernel_infos(path)


C310 = "Ascend950PR_9579"
MIX_TYPES = ("KERNEL_TYPE_MIX_AIV_1_0", "KERNEL_TYPE_MIX_AIC_1_0", "KERNEL_TYPE_MIX_AIC_1_1",
             "KERNEL_TYPE_MIX_AIC_1_2")


@pytest.mark.parametrize("kernel_type", MIX_TYPES)
def test_a_mix_op_keyed_for_c310_loads_on_an_ascend950_superkernel(tmp_path, kernel_type):
    # Upstream reads a MIX op's code under dav-<its chip>-cube/vec: dav-c310-* on Ascend950.
    path = write_scenario(tmp_path, [("a", {"kernel_type": kernel_type}, {})], chip="c310")
    op = load_kernel_infos(path, get_platform(C310)).ops[0]
    sides = {"KERNEL_TYPE_MIX_AIV_1_0": ["vec"], "KERNEL_TYPE_MIX_AIC_1_0": ["cube"]}.get(kernel_type,
                                                                                         ["cube", "vec"])
    assert [(f.arch, f.key, f.func_name) for f in op.funcs] == [
        (side, f"dav-c310-{side}", "a__kernel0_middle") for side in sides]


@pytest.mark.parametrize("keyed, soc, found, allowed", [
    ("c310", None, "dav-c310-cube", "AiCore, dav-c220-cube, dav-c220-vec"),
    ("c220", C310, "dav-c220-cube", "AiCore, dav-c310-cube, dav-c310-vec"),
])
def test_a_mix_op_keyed_for_another_chip_is_refused_naming_op_key_and_allowed_keys(tmp_path, keyed, soc, found,
                                                                                   allowed):
    ops = [("a", {}, {}), ("m", {"kernel_type": "KERNEL_TYPE_MIX_AIC_1_1"}, {})]
    path = write_scenario(tmp_path, ops, chip=keyed)
    platform = get_platform(soc)
    with pytest.raises(SkError, match="keyed for another chip") as exc:
        load_kernel_infos(path, platform)
    msg = exc.value.paragraph()
    assert f"op_list[1] (m__kernel0) m.json: sub_operator_kernel_name.{found}" in msg, msg
    assert f"'{found}'" in msg and allowed in msg and platform.soc in msg, msg


def test_a_dynamic_tiling_key_keyed_for_another_chip_is_refused(tmp_path):
    path = write_scenario(tmp_path, [("d", {"kernel_type": "KERNEL_TYPE_MIX_AIC_1_0"}, {"task_type": "dynamic"})],
                          chip="c310")
    table = {"3": {"kernel_type": "KERNEL_TYPE_MIX_AIC_1_0", "dav-c220-cube": "d__kernel0_middle"}}
    _edit_json(tmp_path, "d", lambda d: d["sub_operator_kernel_name"].update(dynamic_func_names=table))
    with pytest.raises(SkError, match="keyed for another chip") as exc:
        load_kernel_infos(path, get_platform(C310))
    assert "sub_operator_kernel_name.dynamic_func_names.3.dav-c220-cube" in exc.value.paragraph()
    table["3"] = {"kernel_type": "KERNEL_TYPE_MIX_AIC_1_0", "dav-c310-cube": "d__kernel0_middle"}
    _edit_json(tmp_path, "d", lambda d: d["sub_operator_kernel_name"].update(dynamic_func_names=table))
    op = load_kernel_infos(path, get_platform(C310)).ops[0]
    assert op.dynamic_keys[0].funcs == (("cube", "d__kernel0_middle"),)
