"""The SuperKernel's compiled kernel JSON (facts §7), built from the plan.

Until a binary exists the `sha256` field is absent; `with_sha256` adds the
hash of the built object. Field order follows upstream's writer.
"""

from __future__ import annotations

import hashlib

from sk.engine.plan import Plan
from sk.engine.plan.layout import sk_debug


def _kernel_entry(op: dict) -> dict:
    entry = {"func_name": op["kernel_name"], "split_mode": op["split_mode_json"], "blockDim": op["block_dim"]}
    if op["op_type"] is not None:
        entry["sub_operator_op_type"] = op["op_type"]
    entry.update({
        "sub_operator_kernel_type": op["kernel_type"],
        "sub_operator_early_start_set_flag": op["early_start_set"],
        "sub_operator_early_start_wait_flag": op["early_start_wait"],
        "sub_operator_call_dcci_before_kernel_start": op["dcci_flags_json"]["before"],
        "sub_operator_call_dcci_after_kernel_end": op["dcci_flags_json"]["after"],
    })
    if op["dcci_disable"] is not None:
        entry["sub_operator_call_dcci_disable_on_kernel"] = op["dcci_disable"]
    entry.update({
        "streamid": op["stream_id"],
        "send_event_list": list(op["send_events"]),
        "recv_event_list": list(op["recv_events"]),
        "arg_list": {
            "param_offset": op["param_offset"],
            "notify_param_offset": op["notify"][0]["offset"] if op["notify"] else None,
            "wait_param_offset": op["wait"][0]["offset"] if op["wait"] else None,
        },
    })
    if op["debug_option"]:
        entry["debug_option"] = op["debug_option"]
        entry["debug_size"] = op["debug_size"]
    return entry


def kernel_json(plan: Plan, sha256: str | None = None) -> dict:
    doc = {
        "binFileName": plan.kernel_name,
        "binFileSuffix": ".o",
        "blockDim": plan.block_dim,
        "coreType": "MIX",
        "intercoreSync": 1,
        "kernelName": plan.kernel_name,
        "magic": "RT_DEV_BINARY_MAGIC_ELF",
        "memoryStamping": [],
        "opParaSize": 8,
        "parameters": [],
    }
    if sha256 is not None:
        doc["sha256"] = sha256
    doc.update({
        "taskRation": plan.task_ration,
        "optionalInputMode": "gen_placeholder",
        "optionalOutputMode": "gen_placeholder",
        "supportSuperKernel": 1,
    })
    options, size = sk_debug((op["debug_option"], op["debug_size"]) for op in plan.ops)
    if options:
        doc["debugOptions"] = options
        doc["debugBufSize"] = size
    if plan.params["workspace_size"]:
        doc["workspace"] = {"num": 1, "size": [plan.params["workspace_size"]], "type": [0]}
    doc["SuperkernelInfo"] = {"kernelList": {"aicore": [_kernel_entry(op) for op in plan.ops]}}
    return doc


def with_sha256(doc: dict, object_path: str) -> dict:
    """`doc` with sha256 of the built SuperKernel object, placed where upstream puts it."""
    with open(object_path, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    out = {}
    for key, value in doc.items():
        if key == "sha256":
            continue
        out[key] = value
        if key == "parameters":
            out["sha256"] = digest
    return out
