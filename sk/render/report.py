"""The fusion report: a reviewer's view of one SuperKernel, rendered from its plan.

Everything here is read from the plan and the final kernel JSON; nothing is
decided. Output is Markdown, deterministic (no paths beyond the basenames the
plan already holds, no times).
"""

from __future__ import annotations

import json

from sk.base import infile, jsonload
from sk.base.errors import SkError
from sk.base.toolrun import write_text_atomic


def _load(path: str, what: str) -> dict:
    try:
        return jsonload.loads(infile.read_text(path))
    except UnicodeDecodeError as err:
        raise SkError(f"the {what} is not UTF-8 text", where=path, allowed=str(err))
    except OSError as err:
        raise SkError(f"cannot read the {what}", where=path, allowed=str(err.strerror or err))
    except json.JSONDecodeError as err:
        raise SkError(f"the {what} is not valid JSON ({err.msg} at line {err.lineno})", where=path)


def _row(cells) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def render(plan: dict, meta: dict) -> str:
    ops = plan.get("ops", [])
    out = [f"# SuperKernel `{plan['kernel_name']}`", ""]
    out += [
        _row(["kernel type", "task ration", "block dim", "mode", "early start", "split mode", "ops"]),
        _row(["---"] * 7),
        _row([plan["kernel_type"].replace("KERNEL_TYPE_", ""), plan["task_ration"], plan["block_dim"],
              plan["mode"], plan["early_start"], plan["split_mode"], len(ops)]),
        "",
    ]
    explicit = {k: v for k, v in sorted(plan.get("options", {}).items())}
    out += ["## Options", "", "```", json.dumps(explicit, sort_keys=True), "```", ""]
    if plan.get("warnings"):
        out += ["Warnings:", ""] + [f"* {w}" for w in plan["warnings"]] + [""]

    out += ["## Ops in scope order", "",
            _row(["#", "kernel", "type", "block dim", "AIC/AIV cores", "stream", "param offset",
                  ".text bytes", "preload", "split copies", "SyncAll", "feed-sync-all"]),
            _row(["---"] * 12)]
    for op in ops:
        funcs = op.get("funcs", [])
        text = "/".join(str(f.get("text_size")) for f in funcs) or "-"
        preload = "/".join(str(f.get("preload_count")) for f in funcs) or "-"
        splits = sum(len(f.get("splits", [])) for f in funcs)
        cores = op.get("cores") or {}
        out.append(_row([op["index"], f"`{op['kernel_name']}`", op["kernel_type"].replace("KERNEL_TYPE_", ""),
                         op["block_dim"], f"{cores.get('aic', '-')}/{cores.get('aiv', '-')}", op.get("stream_id", 0),
                         op.get("param_offset"), text, preload, splits,
                         "yes" if op.get("sync_all") else "", "yes" if op.get("feed_sync_all") else ""]))
    out.append("")

    barriers = plan.get("barriers", [])
    out += [f"## Barriers ({len(barriers)})", ""]
    if barriers:
        out += [_row(["between", "kind", "reason"]), _row(["---"] * 3)]
        for b in barriers:
            a, c = b["between"]
            out.append(_row([f"{a} → {c}", b["kind"], b.get("reason", "")]))
    else:
        out.append("None.")
    out.append("")

    out += ["## Link", "", f"{len(plan.get('link_order', []))} objects in upstream order "
            "(PerCubeHerVecWithSuper); entry symbols: "
            + ", ".join(f"`{e['symbol']}`" for e in plan.get("entries", [])), ""]
    ws = (meta.get("workspace") or {}).get("size")
    out += ["## Kernel JSON", "",
            _row(["kernelName", "blockDim", "taskRation", "workspace", "sha256"]), _row(["---"] * 5),
            _row([meta.get("kernelName"), meta.get("blockDim"), meta.get("taskRation"),
                  ws if ws else "-", meta.get("sha256") or "(not linked)"]), ""]
    return "\n".join(out)


# Top-level plan fields render() reads without a default.
_PLAN_FIELDS = ("kernel_name", "kernel_type", "task_ration", "block_dim", "mode", "early_start", "split_mode")
# The type of every field render() shows: a field of another type (hand-edited, another tool's) is refused,
# never rendered as whatever str() makes of it.
_PLAN_TYPES = {"kernel_name": str, "kernel_type": str, "task_ration": str, "block_dim": int, "mode": str,
               "early_start": int, "split_mode": int, "ops": list, "options": dict, "warnings": list,
               "barriers": list, "link_order": list, "entries": list}
_OP_TYPES = {"index": int, "kernel_name": str, "kernel_type": str, "block_dim": int, "cores": (dict, None),
             "stream_id": int, "param_offset": (int, None), "funcs": list, "sync_all": bool, "feed_sync_all": bool}
_FUNC_TYPES = {"text_size": (int, None), "preload_count": (int, None), "splits": list}
_BARRIER_TYPES = {"between": list, "kind": str, "reason": str}
_META_TYPES = {"kernelName": str, "blockDim": int, "taskRation": str, "workspace": (dict, None),
               "sha256": (str, None)}


def _check_types(plan: dict, plan_path: str, meta: dict, meta_path: str) -> None:
    check = jsonload.check_fields
    check(plan, _PLAN_TYPES, plan_path, required=_PLAN_FIELDS)
    for i, op in enumerate(plan.get("ops", [])):
        check(op, _OP_TYPES, f"{plan_path}: ops[{i}]", required=("index", "kernel_name", "kernel_type", "block_dim"))
        check(op.get("cores") or {}, {"aic": int, "aiv": int}, f"{plan_path}: ops[{i}].cores")
        for j, func in enumerate(op.get("funcs", [])):
            check(func, _FUNC_TYPES, f"{plan_path}: ops[{i}].funcs[{j}]")
    for i, barrier in enumerate(plan.get("barriers", [])):
        where = f"{plan_path}: barriers[{i}]"
        check(barrier, _BARRIER_TYPES, where, required=("between", "kind"))
        between = barrier["between"]
        if len(between) != 2 or not all(isinstance(n, int) and not isinstance(n, bool) for n in between):
            raise SkError("a barrier lies between two op indices", where=f"{where}.between", value=between,
                          allowed="[first, second], two whole numbers")
    for i, entry in enumerate(plan.get("entries", [])):
        check(entry, {"symbol": str}, f"{plan_path}: entries[{i}]", required=("symbol",))
    for i, warning in enumerate(plan.get("warnings", [])):
        if not isinstance(warning, str):
            raise SkError(f"a warning is {jsonload.json_kind(warning)}", where=f"{plan_path}: warnings[{i}]",
                          value=warning, allowed="a string")
    check(meta, _META_TYPES, meta_path)
    size = check(meta.get("workspace") or {}, {"size": (list, None)}, f"{meta_path}: workspace").get("size") or []
    if not all(isinstance(n, int) and not isinstance(n, bool) for n in size):
        raise SkError("a workspace size is not a whole number", where=f"{meta_path}: workspace.size", value=size,
                      allowed="a list of whole numbers, as `sk gen` writes it")


def write_report(plan_path: str, meta_path: str, out_path: str) -> None:
    plan, meta = _load(plan_path, "plan"), _load(meta_path, "kernel JSON")
    for doc, path, what in ((plan, plan_path, "plan"), (meta, meta_path, "kernel JSON")):
        if not isinstance(doc, dict):
            raise SkError(f"the {what} must be a JSON object", where=path, value=type(doc).__name__,
                          allowed=f"pass the {what} written by `sk gen`" + (" --plan-out" if what == "plan" else ""))
    missing = [f for f in _PLAN_FIELDS if f not in plan]
    if missing or not isinstance(plan.get("ops", []), list):
        raise SkError("this is not a plan written by `sk gen --plan-out`", where=f"{plan_path}",
                      value=missing or "ops", allowed="regenerate it with `sk gen --plan-out` of this sk version")
    _check_types(plan, plan_path, meta, meta_path)
    try:
        text = render(plan, meta)
    except (KeyError, TypeError, AttributeError, IndexError) as err:
        # A hand-edited or foreign plan; one from `sk gen` always renders.
        raise SkError(f"the plan has a field of an unexpected shape ({type(err).__name__}: {err})",
                      where=plan_path, allowed="regenerate it with `sk gen --plan-out` of this sk version") from None
    write_text_atomic(out_path, text)
