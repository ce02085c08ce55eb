"""The plan's decisions: shape, params, barriers, sync edges, feed-sync-all, validation."""

import json

import pytest

from sk.base.errors import SkError
from sk.engine.plan import dev_class, preload_count
from sk.engine.platforms import get_platform
from sk.tests.scenario import dynamic_op, plan_from, scenario_plan, write_scenario

AIC, AIV = "KERNEL_TYPE_AIC_ONLY", "KERNEL_TYPE_AIV_ONLY"


def test_preload_count_rule():
    assert [preload_count(n) for n in (4080, 10224, 2048, 2049, 16384, 100000)] == [2, 5, 1, 2, 8, 8]


def test_dev_class():
    assert [dev_class(t) for t in (AIC, "KERNEL_TYPE_MIX_AIC_1_0", AIV, "KERNEL_TYPE_MIX_AIV_1_0",
                                   "KERNEL_TYPE_MIX_AIC_1_1", "KERNEL_TYPE_MIX_AIC_1_2")] == [0, 0, 1, 1, 2, 2]


@pytest.mark.parametrize("types,blocks,expect", [
    ((AIC, AIC), (32, 1), ("KERNEL_TYPE_MIX_AIC_1_0", 32, "1:0")),
    ((AIV, AIV), (3, 40), ("KERNEL_TYPE_MIX_AIV_1_0", 40, "0:1")),
    ((AIC, AIV), (32, 1), ("KERNEL_TYPE_MIX_AIC_1_1", 32, "1:1")),
    ((AIC, AIV), (8, 40), ("KERNEL_TYPE_MIX_AIC_1_2", 20, "1:2")),
    (("KERNEL_TYPE_MIX_AIC_1_2", "KERNEL_TYPE_MIX_AIC_1_2"), (32, 1), ("KERNEL_TYPE_MIX_AIC_1_2", 32, "1:2")),
    (("KERNEL_TYPE_MIX_AIC_1_1",), (7,), ("KERNEL_TYPE_MIX_AIC_1_1", 7, "1:1")),
])
def test_sk_kernel_type_and_block(tmp_path, types, blocks, expect):
    ops = [(f"op{i}", {"kernel_type": t, "block_dim": b}, {}) for i, (t, b) in enumerate(zip(types, blocks))]
    p = scenario_plan(tmp_path, ops)
    assert (p.kernel_type, p.block_dim, p.task_ration) == expect


def test_debug_core_num_override(tmp_path):
    ops = [("a", {"block_dim": 8}, {}), ("b", {"kernel_type": AIV, "block_dim": 16}, {})]
    p = scenario_plan(tmp_path, ops, "debug-aic-num=12:debug-aiv-num=24")
    assert (p.kernel_type, p.block_dim) == ("KERNEL_TYPE_MIX_AIC_1_2", 12)
    with pytest.raises(SkError, match="below the vector cores"):
        scenario_plan(tmp_path / "x", ops, "debug-aic-num=8:debug-aiv-num=8")
    with pytest.raises(SkError, match="exceeds the SoC's AI cores"):
        scenario_plan(tmp_path / "y", ops, "debug-aic-num=30:debug-aiv-num=30")
    with pytest.raises(SkError, match="no vector cores"):
        scenario_plan(tmp_path / "z", ops, "debug-aic-num=12")


def test_param_layout_with_events_and_dynamic(tmp_path):
    path = write_scenario(tmp_path, [("a", {}, {"send_event_list": [100], "task_type": "dynamic"}),
                                     ("b", {"params": ("x", "y", "z", "w")}, {"stream_id": 1, "recv_event_list": [101]})],
                          options="stream-fusion=1:profiling=1:feed-sync-all=1")
    doc = json.loads((tmp_path / "a.json").read_text())
    doc["sub_operator_kernel_name"]["dynamic_func_names"] = {
        "2": {"AiCore": "a__kernel0_middle", "kernel_type": AIC}}
    (tmp_path / "a.json").write_text(json.dumps(doc))
    p = plan_from(path)
    a, b = p.ops
    assert a["param_offset"] == 1 and [x["offset"] for x in a["params"]] == [1, 2, 3]
    assert a["dynamic_params"] == {"tiling_key": 4, "block_num": 5, "wait_lock": 6}
    assert a["notify"] == [{"event": 100, "offset": 7, "inner": False}]
    assert b["param_offset"] == 8 and b["wait"] == [{"event": 101, "offset": 12, "inner": False}]
    assert p.params["workspace_index"] == 13 and p.params["profiling_index"] == 14
    # the dynamic op counts as full-core (24 AI cores): 24 blocks x 512 B
    assert p.params["task_id_index"] == 15 and p.params["workspace_size"] == 24 * 512
    assert p.block_dim == 24 and a["feed_sync_all"] is False  # no sync_all in its JSON
    assert b["params"][0]["name"] == "x_1"
    assert "-D__SUPER_KERNEL_DYNAMIC_BLOCK_NUM__" in p.compile_options
    assert "-D__ASCENDC_SUPERKERNEL_EARLY_START_V2" not in p.compile_options  # two streams: no early start


def test_single_stream_barriers_follow_early_start(tmp_path):
    ops = [("a", {}, {}), ("b", {"kernel_type": AIV}, {})]
    p = scenario_plan(tmp_path, ops)
    assert p.mode == "single_stream" and p.early_start == 1
    assert [(b["between"], b["kind"]) for b in p.barriers] == [([0, 1], "early_start")]
    body = p.code["entry"]["body"]
    step = next(s for s in body if s["kind"] == "es_barrier")
    assert step["config"] == 0b0001 and "extra" not in step
    assert [(s["arch"], s["action"]) for s in step["set"]] == [("cube", "set"), ("vec", "aic_only")]
    assert [s["arch"] for s in step["wait"]] == ["vec", "cube"]  # b is a vector op: its blocks vector first
    # Upstream's extra sync follows an event wait block only (gen_wait_block_extra_sync), and b waits for none.
    assert not any(s["kind"] == "wait_extra_sync" for s in body)
    p0 = scenario_plan(tmp_path / "es0", ops, "early-start=0")
    assert [b["kind"] for b in p0.barriers] == ["sync_all"]
    assert "-D__ASCENDC_ENABLE_SET_NEXT_TASK_START" not in p0.compile_options


def test_sub_op_early_start_flags_guard_the_complement(tmp_path):
    ops = [("a", {"sub_operator_early_start_set_flag": True}, {}),
           ("b", {"sub_operator_early_start_wait_flag": True, "block_dim": 3}, {})]
    step = next(s for s in scenario_plan(tmp_path, ops).code["entry"]["body"] if s["kind"] == "es_barrier")
    assert step["set"][0]["cond"] == [">=", "raw", 8] or step["set"][0]["cond"] == (">=", "raw", 8)
    assert tuple(step["wait"][0]["cond"]) == (">=", "raw", 3) and step["wait"][1]["cond"] is None
    step2 = next(s for s in scenario_plan(tmp_path / "m2", ops, "early-start=2").code["entry"]["body"]
                 if s["kind"] == "es_barrier")
    # Mode 2 guards by the JSON flags too (upstream); an inherited-options compile leaves them unset there.
    assert tuple(step2["set"][0]["cond"]) == (">=", "raw", 8)


def test_two_stream_crossed_edges_pruned(tmp_path):
    ops = [("c", {}, {"stream_id": 0, "send_event_list": [100]}),
           ("v", {"kernel_type": AIV, "block_dim": 1}, {"stream_id": 1, "recv_event_list": [101]}),
           ("c", {}, {"stream_id": 0, "send_event_list": [101]}),
           ("v", {"kernel_type": AIV, "block_dim": 1}, {"stream_id": 1, "recv_event_list": [100]})]
    p = scenario_plan(tmp_path, ops, "stream-fusion=1")
    assert p.mode == "two_stream"
    assert p.sync_edges == [{"from": 0, "to": 2, "kind": "cub:cub"}, {"from": 1, "to": 3, "kind": "vec:vec"},
                            {"from": 2, "to": 1, "kind": "cub:vec"}]
    assert [e["inner"] for e in p.events] == [True, False]
    assert {(tuple(b["between"]), b["kind"]) for b in p.barriers} >= {((2, 1), "c2v_ffts"), ((0, 2), "aic_ffts")}
    names = [f["name"] for f in p.code["functions"]]
    assert names == ["auto_gen_te_superkernel_t_kernel_aic", "auto_gen_te_superkernel_t_kernel_aiv"]


def test_feed_sync_all_needed_only_for_sync_all_ops_on_fewer_cores(tmp_path):
    ops = [("a", {"block_dim": 32}, {}), ("b", {"block_dim": 4, "sub_op_with_sync_all": True}, {}),
           ("c", {"block_dim": 32, "sub_op_with_sync_all": True}, {})]
    p = scenario_plan(tmp_path, ops, "feed-sync-all=1")
    assert [op["feed_sync_all"] for op in p.ops] == [False, True, False]
    assert p.params["workspace_size"] == 16384
    # Without feed-sync-all, op b would hang (hang checks below); the others need no workspace.
    assert scenario_plan(tmp_path / "off", [ops[0], ops[2]]).params["workspace_index"] is None


@pytest.mark.parametrize("ops,options,match", [
    ([("a", {"split_mode": 2}, {})], "", "split_mode differs"),
    ([("a", {"sub_operator_early_start_set_flag": True}, {})], "early-start=0", "compiled with early start"),
    ([("a", {}, {"recv_event_list": [1]}), ("b", {}, {})], "", "first op must not wait"),
    ([("a", {}, {}), ("b", {}, {"send_event_list": [1]})], "", "last op must not send"),
    ([("a", {}, {"send_event_list": [1]}), ("b", {}, {"recv_event_list": [1]})], "", "within one stream"),
    ([("a", {}, {"send_event_list": [1], "recv_event_list": [1]}), ("b", {}, {})], "", "sends and receives"),
    ([("a", {}, {}), ("b", {}, {"stream_id": 1})], "", "stream-fusion=1"),
])
def test_validation_errors(tmp_path, ops, options, match):
    with pytest.raises(SkError, match=match):
        scenario_plan(tmp_path, ops, options)


def test_connected_streams_need_no_stream_fusion(tmp_path):
    ops = [("a", {}, {"send_event_list": [7]}), ("b", {}, {"stream_id": 1, "recv_event_list": [7]})]
    p = scenario_plan(tmp_path, ops)
    assert p.mode == "single_stream" and p.events[0]["inner"]


def test_split_copies_derived_when_json_lacks_split_mode(tmp_path):
    p = scenario_plan(tmp_path, [("a", {"split_mode": None}, {}), ("b", {}, {})])
    splits = p.ops[0]["funcs"][0]["splits"]
    assert [s["object"] for s in splits] == ["a_split1.o", "a_split2.o", "a_split3.o"]
    assert all(s["derived_from"] == "a.o" for s in splits)
    assert all(s["derived_from"] is None for s in p.ops[1]["funcs"][0]["splits"])


def test_link_order_per_cube_her_vec_with_super(tmp_path):
    p = scenario_plan(tmp_path, [("a", {"split_mode": 2}, {}), ("b", {"kernel_type": AIV, "split_mode": 2}, {}),
                           ("a", {"split_mode": 2}, {})], split=2, options="split-mode=2")
    kinds = [(x["kind"], x["arch"], x["object"]) for x in p.link_order]
    assert kinds == [("sk_entry", "cube", "te_superkernel_t_mix_aic.o"), ("sub", "cube", "a.o"),
                     ("sub", "cube", "a_split1.o"), ("sk_entry", "vec", "te_superkernel_t_mix_aiv.o"),
                     ("sub", "vec", "b.o"), ("sub", "vec", "b_split1.o")]
    assert [e["symbol"] for e in p.entries] == ["te_superkernel_t_mix_aic", "te_superkernel_t_mix_aiv"]


def test_plan_json_is_plain_and_stable(tmp_path):
    p = scenario_plan(tmp_path, [("a", {}, {}), ("b", {}, {})])
    text = json.dumps(p.to_json(), sort_keys=True)
    assert json.loads(text)["schema_version"] == 1
    assert str(tmp_path) not in text
    assert text == json.dumps(scenario_plan(tmp_path, [("a", {}, {}), ("b", {}, {})]).to_json(), sort_keys=True)


def test_unknown_soc():
    with pytest.raises(SkError, match="Known SoCs: Ascend910B1"):
        get_platform("Ascend310P3")


def test_one_kernel_name_with_per_location_symbols_declares_each(tmp_path):
    # sk run compiles a kernel once per scope location: same kernelName, own entry symbols.
    path = write_scenario(tmp_path, [("a", {"split_mode": 1}, {}), ("b", {"split_mode": 1}, {}),
                                     ("a", {"split_mode": 1}, {})], split=1, options="split-mode=1")
    doc = json.loads((tmp_path / "b.json").read_text())
    doc["kernelName"] = "a__kernel0"
    (tmp_path / "b.json").write_text(json.dumps(doc))
    p = plan_from(path)
    assert [u["declare"] for u in p.code["header"]["units"]] == [["a__kernel0_middle"], ["b__kernel0_middle"]]


# ---------------------------------------------------------------- the stream walk (facts §14.1)

def _error(tmp_path, ops, options=""):
    with pytest.raises(SkError) as err:
        scenario_plan(tmp_path, ops, options)
    return str(err.value)


def test_walk_op_sending_and_receiving_one_event_names_op_and_ids(tmp_path):
    text = _error(tmp_path, [("a", {}, {}), ("b", {}, {"send_event_list": [4, 5], "recv_event_list": [5]}),
                             ("c", {}, {"stream_id": 1})], "stream-fusion=1")
    assert "op_list[1] (b__kernel0)" in text and "sends and receives the same event" in text and "[5]" in text


def test_walk_same_stream_pair_with_event_is_an_error_naming_both_ops(tmp_path):
    text = _error(tmp_path, [("a", {}, {"send_event_list": [7, 8]}), ("b", {}, {"recv_event_list": [8]})],
                  "stream-fusion=1")
    assert "within one stream" in text and "op_list[1] (b__kernel0).recv_event_list" in text
    assert "op_list[0] (a__kernel0) sends it" in text and "[8]" in text


def test_walk_other_stream_without_event_needs_stream_fusion(tmp_path):
    ops = [("a", {}, {"send_event_list": [3]}), ("b", {}, {"stream_id": 1, "recv_event_list": [4]}),
           ("c", {}, {"send_event_list": [4]}), ("d", {}, {"stream_id": 1, "recv_event_list": [3]})]
    text = _error(tmp_path, ops)
    assert "use 'options=\"stream-fusion=1\"'" in text and "'stream 0 -> stream 1'" in text
    assert "op_list[0] (a__kernel0) sends [3], op_list[1] (b__kernel0) receives [4]" in text
    p = scenario_plan(tmp_path / "fused", ops, "stream-fusion=1")
    assert p.mode == "two_stream" and p.early_start == 0 and p.code["functions"]


def test_walk_other_stream_joined_by_events_is_one_logical_stream(tmp_path):
    # Streams 0 and 1, op 0 sends {100, 101}, op 1 receives both: stream ids alone never decide.
    ops = [("a", {}, {"send_event_list": [100, 101]}),
           ("b", {"kernel_type": AIV}, {"stream_id": 1, "recv_event_list": [100, 101]}),
           ("c", {}, {"stream_id": 1})]
    for options in ("stream-fusion=1", ""):
        p = scenario_plan(tmp_path / (options or "plain"), ops, options)
        assert p.mode == "single_stream" and p.code["functions"] == [] and p.sync_edges == []
        assert [(e["id"], e["inner"]) for e in p.events] == [(100, True), (101, True)]
        # ordinary inter-op barriers with early start, no notify/wait to the outside
        assert p.early_start == 1 and "-D__ASCENDC_SUPERKERNEL_EARLY_START_V2" in p.compile_options
        assert [b["kind"] for b in p.barriers] == ["early_start", "early_start"]
        kinds = [s["kind"] for s in p.code["entry"]["body"]]
        assert kinds.count("es_barrier") == 2 and "notify" not in kinds and "wait" not in kinds
        assert p.code["entry"]["epilogue"] == []


def test_walk_stops_at_the_first_pair_of_two_real_streams_but_every_pair_of_a_stream_is_checked(tmp_path):
    # Past the first unjoined stream change the walk checks no more pairs, as upstream's; its
    # find_all_inner_event_id_set still refuses an event between two ops of one stream.
    ops = [("a", {}, {}), ("b", {}, {"stream_id": 1, "send_event_list": [9]}),
           ("c", {}, {"stream_id": 1, "recv_event_list": [9]}), ("d", {}, {})]
    assert "send/recv event pair within one stream" in _error(tmp_path, ops, "stream-fusion=1")
    ops[2] = ("c", {}, {"stream_id": 1})
    ops[3] = ("d", {}, {"recv_event_list": [9]})
    assert scenario_plan(tmp_path / "ok", ops, "stream-fusion=1").mode == "two_stream"


def test_walk_joined_pair_then_unjoined_pair_is_two_streams(tmp_path):
    ops = [("a", {}, {"send_event_list": [1]}), ("b", {}, {"stream_id": 1, "recv_event_list": [1]}),
           ("c", {}, {})]
    p = scenario_plan(tmp_path, ops, "stream-fusion=1")
    assert p.mode == "two_stream" and p.events == [{"id": 1, "senders": [0], "receivers": [1], "inner": True}]
    assert "stream-fusion=1" in _error(tmp_path / "plain", ops)


def test_event_between_non_consecutive_ops_of_one_stream_is_refused(tmp_path):
    # The walk only looks at consecutive pairs; upstream's find_all_inner_event_id_set looks at all.
    ops = [("a", {}, {"send_event_list": [6]}), ("b", {}, {}), ("c", {}, {"recv_event_list": [6]})]
    assert "send/recv event pair within one stream" in _error(tmp_path, ops)


# ---------------------------------------------------------------- preload-code=max placement (facts §14.2)

def test_preload_max_single_stream_stays_in_the_entry(tmp_path):
    p = scenario_plan(tmp_path, [("a", {}, {}), ("b", dynamic_op("b"), {"task_type": "dynamic"})], "preload-code=max")
    prologue = [s["kind"] for s in p.code["entry"]["prologue"]]
    assert prologue == ["dyn_locals", "preload_all"] and p.code["functions"] == []


def test_preload_max_two_streams_in_each_queue_function(tmp_path):
    ops = [("a", {}, {}), ("v", dynamic_op("v", AIV), {"stream_id": 1, "task_type": "dynamic"})]
    p = scenario_plan(tmp_path, ops, "stream-fusion=1:preload-code=max:profiling=1")
    assert p.mode == "two_stream"
    assert [s["kind"] for s in p.code["entry"]["prologue"]] == ["profile"]
    assert [s["kind"] for s in p.code["entry"]["body"]] == ["dispatch", "dispatch"]
    for f in p.code["functions"]:
        assert f["steps"][0] == {"kind": "preload_all", "count": 8}
        assert [s["kind"] for s in f["steps"]].count("preload_all") == 1


# ---------------------------------------------------------------- hangs refused at build time

@pytest.mark.parametrize("ops,expect", [
    # AIV op on 4 of the 16 AIV cores: SyncAll<true> waits for all of them.
    ([("a", {"kernel_type": AIV, "block_dim": 16}, {}),
      ("b", {"kernel_type": AIV, "block_dim": 4, "sub_op_with_sync_all": True}, {})],
     ["op_list[1] (b__kernel0)", "SyncAll<true>", "blockDim 4: 4 AIV cores",
      "KERNEL_TYPE_MIX_AIV_1_0 block dim 16: 16 AIV cores"]),
    # a 1:1 op in a 1:2 SK: all AIC cores, half the AIV cores.
    ([("m", {"kernel_type": "KERNEL_TYPE_MIX_AIC_1_1", "block_dim": 8, "sub_op_with_sync_all": True}, {}),
      ("n", {"kernel_type": "KERNEL_TYPE_MIX_AIC_1_2", "block_dim": 8}, {})],
     ["op_list[0] (m__kernel0)", "SyncAll<false>", "blockDim 8: 8 AIV cores",
      "KERNEL_TYPE_MIX_AIC_1_2 block dim 8: 16 AIV cores"]),
    ([("a", {"block_dim": 2, "sub_op_with_sync_all": True}, {}), ("b", {"block_dim": 24}, {})],
     ["op_list[0] (a__kernel0)", "all AIC cores", "blockDim 2: 2 AIC cores", "block dim 24: 24 AIC cores"]),
])
def test_sync_all_on_fewer_cores_without_feed_sync_all_is_refused(tmp_path, ops, expect):
    text = _error(tmp_path, ops)
    for part in expect + ["hangs", "feed-sync-all=1"]:
        assert part in text, (part, text)
    p = scenario_plan(tmp_path / "fed", ops, "feed-sync-all=1")
    assert [op["feed_sync_all"] for op in p.ops] == [op[1].get("sub_op_with_sync_all", False) for op in ops]


def test_sync_all_on_every_core_or_dynamic_is_no_hang(tmp_path):
    ops = [("a", {"block_dim": 24, "sub_op_with_sync_all": True}, {}),
           ("d", dynamic_op("d", block_dim=4, sub_op_with_sync_all=True), {"task_type": "dynamic"})]
    assert scenario_plan(tmp_path, ops).block_dim == 24


def test_debug_core_num_can_make_a_sync_all_op_hang(tmp_path):
    ops = [("a", {"block_dim": 8, "sub_op_with_sync_all": True}, {})]
    assert "block dim 12: 12 AIC cores" in _error(tmp_path, ops, "debug-aic-num=12")


MIX11, MIX12 = "KERNEL_TYPE_MIX_AIC_1_1", "KERNEL_TYPE_MIX_AIC_1_2"


@pytest.mark.parametrize("ops,options", [
    # facts §3.1: C and V mixed with max_aiv <= max_aic gives a 1:1 SK, 1:2 ops included.
    ([("m", {"kernel_type": MIX12, "block_dim": 4}, {}), ("c", {"block_dim": 8}, {})], ""),
    ([("m", {"kernel_type": MIX12, "block_dim": 4}, {})], "debug-aic-num=8:debug-aiv-num=8"),
])
def test_mix_1_2_op_in_a_1_1_superkernel_is_refused_unless_allowed(tmp_path, ops, options):
    text = _error(tmp_path, ops, options)
    assert "op_list[0] (m__kernel0)" in text and "second vector sub-block does not exist" in text
    assert "KERNEL_TYPE_MIX_AIC_1_2 in a KERNEL_TYPE_MIX_AIC_1_1 SuperKernel" in text
    assert "allow-mix-1-2-in-1-1=1" in text
    p = scenario_plan(tmp_path / "allowed", ops, ":".join(filter(None, [options, "allow-mix-1-2-in-1-1=1"])))
    assert p.kernel_type == MIX11 and p.options["allow-mix-1-2-in-1-1"] == 1


def test_mix_1_2_op_in_a_1_2_superkernel_is_fine(tmp_path):
    p = scenario_plan(tmp_path, [("m", {"kernel_type": MIX12, "block_dim": 8}, {}), ("c", {"block_dim": 8}, {})])
    assert p.kernel_type == MIX12


def test_debug_core_numbers_are_checked_against_the_superkernel_without_them(tmp_path):
    # AIC_ONLY on 10 blocks + AIV_ONLY on 12: MIX_AIC_1_2 on 10 blocks, 20 vector cores. 12:12 gives
    # every sub-op its cores, yet the SuperKernel it replaces launches 20 vector cores (upstream refuses it).
    ops = [("a", {"block_dim": 10}, {}), ("b", {"kernel_type": "KERNEL_TYPE_AIV_ONLY", "block_dim": 12}, {})]
    with pytest.raises(SkError, match="debug-aiv-num is below") as err:
        scenario_plan(tmp_path, ops, "debug-aic-num=12:debug-aiv-num=12")
    assert "At least 20 (without the options the SuperKernel is MIX_AIC_1_2 on 10 blocks)" in str(err.value)
    p = scenario_plan(tmp_path / "ok", ops, "debug-aic-num=12:debug-aiv-num=24")
    assert (p.kernel_type, p.block_dim) == ("KERNEL_TYPE_MIX_AIC_1_2", 12)


def test_an_event_between_two_ops_of_one_stream_is_refused_even_when_they_are_not_neighbours(tmp_path):
    # a (stream 0) -> b (stream 1) joined by 100; b -> c (stream 0) joined by 102; a -> c by 101, on one stream.
    ops = [("a", {}, {"stream_id": 0, "send_event_list": [100, 101]}),
           ("b", {}, {"stream_id": 1, "recv_event_list": [100], "send_event_list": [102]}),
           ("c", {}, {"stream_id": 0, "recv_event_list": [101, 102]})]
    with pytest.raises(SkError, match="send/recv event pair within one stream") as err:
        scenario_plan(tmp_path, ops)
    assert "op_list[2]" in str(err.value) and "[101]" in str(err.value)


def test_two_consecutive_ops_with_dcci_disabled_warn_from_their_json_flags(tmp_path):
    # Upstream's check_dcci_before_after_op_options reads each sub-op's own flag (its SK-mode compile set it).
    off = {"sub_operator_call_dcci_disable_on_kernel": True}
    p = scenario_plan(tmp_path, [("a", off, {}), ("b", off, {}), ("c", {}, {})])
    assert any("dcci disabled" in w for w in p.warnings)
    assert not scenario_plan(tmp_path / "one", [("a", off, {}), ("b", {}, {}), ("c", off, {})]).warnings


def test_dynamic_ops_link_last_and_a_dump_sizes_each_core_s_share(tmp_path):
    # gen_super_kernel_link_obj_sequence appends the dynamic bins after [cube entry, cube subs, vector
    # entry, vector subs]; compile_super_kernel adds -DONE_CORE_DUMP_SIZE=debug_size/75 when ops dump.
    ops = [("d", dynamic_op("d"), {"task_type": "dynamic"}),
           ("a", {"debugOptions": "printf", "debugBufSize": 78643200}, {}),
           ("b", {"kernel_type": AIV}, {})]
    p = scenario_plan(tmp_path, ops)
    assert [item["op"] for item in p.link_order] == [None, 1, 1, 1, 1, None, 2, 2, 2, 2, 0, 0, 0, 0]
    assert "-DONE_CORE_DUMP_SIZE=1048576.0" in p.compile_options
    assert not any(f.startswith("-DONE_CORE_DUMP_SIZE") for f in scenario_plan(tmp_path / "q", ops[2:]).compile_options)
