"""The SuperKernel kernel JSON."""

import json

from sk.render.meta import kernel_json, with_sha256
from sk.tests.scenario import scenario_plan


def test_fields_follow_the_plan(tmp_path):
    plan = scenario_plan(tmp_path, [("a", {"block_dim": 5, "sub_operator_op_type": "IsInf"}, {"send_event_list": [3]}),
                            ("b", {"split_mode": None, "debugOptions": "printf", "debugBufSize": 64},
                             {"stream_id": 1, "recv_event_list": [3]})], "feed-sync-all=1")
    doc = kernel_json(plan)
    assert "sha256" not in doc
    assert (doc["coreType"], doc["magic"], doc["taskRation"], doc["blockDim"]) == ("MIX", "RT_DEV_BINARY_MAGIC_ELF", "1:0", 8)
    assert doc["workspace"] == {"num": 1, "size": [8 * 512], "type": [0]}
    assert (doc["debugOptions"], doc["debugBufSize"]) == ("printf", 64)
    a, b = doc["SuperkernelInfo"]["kernelList"]["aicore"]
    assert a["sub_operator_op_type"] == "IsInf" and "sub_operator_op_type" not in b
    assert a["arg_list"] == {"param_offset": 1, "notify_param_offset": 4, "wait_param_offset": None}
    assert b["arg_list"] == {"param_offset": 5, "notify_param_offset": None, "wait_param_offset": 8}
    assert b["split_mode"] is None and b["streamid"] == 1 and b["debug_option"] == "printf"
    json.dumps(doc)


def test_with_sha256(tmp_path):
    plan = scenario_plan(tmp_path, [("a", {}, {})])
    obj = tmp_path / "sk.o"
    obj.write_bytes(b"abc")
    doc = with_sha256(kernel_json(plan), str(obj))
    assert doc["sha256"] == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    keys = list(doc)
    assert keys.index("sha256") == keys.index("parameters") + 1


def test_debug_fields_come_from_the_dumping_ops_only(tmp_path):
    # Upstream merges debugOptions and takes the largest debugBufSize over the ops that dump
    # (timestamp, printf or assert in their options); "oom" alone makes no dump.
    ops = [("a", {"debugOptions": "printf,oom", "debugBufSize": 4096}, {}),
           ("b", {"debugOptions": "oom", "debugBufSize": 1 << 20}, {}),
           ("c", {"debugOptions": "assert,printf", "debugBufSize": 1024}, {})]
    doc = kernel_json(scenario_plan(tmp_path, ops))
    assert (doc["debugOptions"], doc["debugBufSize"]) == ("printf,oom,assert", 4096)
    quiet = kernel_json(scenario_plan(tmp_path / "q", [("a", {"debugOptions": "oom", "debugBufSize": 64}, {})]))
    assert "debugOptions" not in quiet and "debugBufSize" not in quiet
