"""Test helper: writes a small fusion input (kernel_infos, sub-op JSONs, objects) into a directory,
and builds the plan `sk gen` builds from it (the one way tests get a plan)."""

import json
import os

from sk.engine.kernel_types import TABLE as KERNEL_TYPES
from sk.tests.objfactory import make_object

def sub_op_json(name, kernel_type="KERNEL_TYPE_AIC_ONLY", block_dim=8, params=("x", "y", "workspace"),
                split_mode=4, chip="c220", **extra):
    """chip: the one its core-type keys are for (dav-<chip>-cube/vec of a MIX type)."""
    func = f"{name}__kernel0_middle"
    names = {key: {"func_name": func, "obj_files": f"{name}.o"}
             for _, key in KERNEL_TYPES[kernel_type].arch_keys(chip)}
    doc = {
        "kernelName": f"{name}__kernel0", "blockDim": block_dim, "sub_operator_params": list(params),
        "sub_operator_kernel_type": kernel_type, "sub_operator_kernel_name": names,
        "sub_operator_early_start_set_flag": False, "sub_operator_early_start_wait_flag": False,
        "sub_operator_call_dcci_before_kernel_start": False, "sub_operator_call_dcci_after_kernel_end": False,
        "sub_op_with_sync_all": False, "split_mode": split_mode,
    }
    if split_mode is None:
        del doc["split_mode"]
    doc.update(extra)
    return doc


def dynamic_op(name, kernel_type="KERNEL_TYPE_AIC_ONLY", **extra):
    """sub_op_json kwargs of a single-core-type dynamic op with one tiling key (2) calling its own entry."""
    func = f"{name}__kernel0_middle"
    names = {"AiCore": {"func_name": func, "obj_files": f"{name}.o"},
             "dynamic_func_names": {"2": {"AiCore": func, "kernel_type": kernel_type}}}
    return {"kernel_type": kernel_type, "sub_operator_kernel_name": names, **extra}


def write_scenario(root, ops, options="", kernel_name="te_superkernel_t", split=4, text_size=4080, chip="c220"):
    """ops: list of (name, sub_op_json_kwargs, op_entry_extras); chip: the sub-op JSONs' (sub_op_json)."""
    os.makedirs(root, exist_ok=True)
    op_list = []
    written = set()
    for name, kwargs, entry in ops:
        doc = sub_op_json(name, **{"chip": chip, **kwargs})
        if name not in written:
            written.add(name)
            with open(os.path.join(root, f"{name}.json"), "w") as f:
                json.dump(doc, f)
            func = f"{name}__kernel0_middle"
            extra = [s for k in doc["sub_operator_kernel_name"].get("dynamic_func_names", {}).values()
                     for key, s in k.items() if key != "kernel_type"]
            syms = sorted({func, *extra})
            make_object(os.path.join(root, f"{name}.o"), syms, text_size)
            for i in range(1, split):
                make_object(os.path.join(root, f"{name}_split{i}.o"), [f"{s}_split{i}" for s in syms], text_size)
        op_list.append({"stream_id": 0, "bin_path": f"{name}.o", "json_path": f"{name}.json", **entry})
    infos = {"kernel_name": kernel_name, "super_kernel_options": options, "op_list": op_list}
    path = os.path.join(root, "kernel_infos.json")
    with open(path, "w") as f:
        json.dump(infos, f)
    return path


def plan_from(kernel_infos, soc=None):
    """The plan `sk gen` builds from a kernel_infos JSON (a scenario's or an upstream golden's)."""
    from sk.engine.plan import build_plan
    from sk.engine.platforms import get_platform
    from sk.engine.subop import load_kernel_infos

    platform = get_platform(soc)
    return build_plan(load_kernel_infos(str(kernel_infos), platform), platform)


def scenario_plan(root, ops, options="", soc=None, **kw):
    """write_scenario(root, ops, options, **kw) with sub-op JSONs for the SoC's chip, then its plan."""
    from sk.engine.platforms import get_platform

    return plan_from(write_scenario(root, ops, options=options, chip=get_platform(soc).chip, **kw), soc)
