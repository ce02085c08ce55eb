"""What the back half (entry compile, link) reads from the engine's plan JSON.

The plan (sk/plan.py, written by `sk gen --plan-out`) is the engine's; this
module is the one place that knows its field names on our side, so a schema
change touches only here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from sk.errors import SkError


@dataclass(frozen=True)
class LinkItem:
    kind: str  # "entry" or "sub"
    side: str  # cube | vec
    op_index: int | None  # for "sub"
    object_name: str  # entry: <name>_mix_aic.o; sub: the archive member (obj_files / obj_files_splitN)


@dataclass(frozen=True)
class PlanFacts:
    kernel_name: str
    kernel_type: str  # SK kernel type, KERNEL_TYPE_MIX_...
    block_dim: int
    split_mode: int
    entry_symbols: tuple[str, ...]
    link_order: tuple[LinkItem, ...]
    op_count: int


def load(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except FileNotFoundError:
        raise SkError("plan file not found", where="--plan", value=path,
                      allowed="pass the plan written by `sk gen --plan-out`") from None
    except json.JSONDecodeError as err:
        raise SkError(f"plan is not valid JSON ({err.msg} at line {err.lineno})", where=path) from None
    if not isinstance(doc, dict):
        raise SkError("plan must be a JSON object", where=path)
    return doc


def _field(doc, key, where, types):
    if key not in doc:
        raise SkError("plan lacks a field the link step needs", where=f"{where}.{key}",
                      allowed="regenerate the plan with `sk gen` of the same sk version")
    value = doc[key]
    if not isinstance(value, types):
        raise SkError("plan field has the wrong type", where=f"{where}.{key}", value=value)
    return value


def facts(doc: dict, where: str = "plan") -> PlanFacts:
    name = _field(doc, "kernel_name", where, str)
    ktype = _field(doc, "kernel_type", where, str)
    block_dim = _field(doc, "block_dim", where, int)
    split_mode = doc.get("split_mode", doc.get("options", {}).get("split-mode", 1) if isinstance(
        doc.get("options"), dict) else 1)
    entries = tuple(_field(doc, "entry_symbols", where, list))
    order = []
    for i, item in enumerate(_field(doc, "link_order", where, list)):
        iw = f"{where}.link_order[{i}]"
        if not isinstance(item, dict):
            raise SkError("link order entry must be an object", where=iw, value=item)
        kind = _field(item, "kind", iw, str)
        if kind not in ("entry", "sub"):
            raise SkError("unknown link order entry kind", where=f"{iw}.kind", value=kind, allowed="entry or sub")
        order.append(LinkItem(kind=kind, side=item.get("arch", item.get("side", "")),
                              op_index=item.get("op_index") if kind == "sub" else None,
                              object_name=_field(item, "object", iw, str)))
    return PlanFacts(kernel_name=name, kernel_type=ktype, block_dim=block_dim, split_mode=int(split_mode),
                     entry_symbols=entries, link_order=tuple(order), op_count=len(doc.get("ops", [])))
