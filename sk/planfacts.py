"""What the back half (entry compile, link) reads from the engine's plan JSON.

The plan (sk/plan.py, written by `sk gen --plan-out`) is the engine's; this
module is the one place that knows its field names on our side, so a schema
change touches only here.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from sk.errors import SkError


@dataclass(frozen=True)
class LinkItem:
    kind: str  # "sk_entry" or "sub"
    arch: str  # cube | vec
    op_index: int | None  # for "sub"
    object_name: str  # entry: <name>_mix_aic.o; sub: the archive member (obj_files / obj_files_splitN)
    symbol: str  # the function this object must define
    derived_from: str | None  # split copy to make from this object (sub-op JSON without split copies)


@dataclass(frozen=True)
class EntryFacts:
    arch: str
    symbol: str
    define: str
    object_name: str


@dataclass(frozen=True)
class PlanFacts:
    kernel_name: str
    kernel_type: str  # SK kernel type, KERNEL_TYPE_MIX_...
    task_ration: str
    block_dim: int
    split_mode: int
    entries: tuple[EntryFacts, ...]
    compile_options: tuple[str, ...]
    link_order: tuple[LinkItem, ...]
    op_count: int
    raw: dict

    @property
    def entry_symbols(self) -> tuple[str, ...]:
        return tuple(e.symbol for e in self.entries)


# The top-level fields facts() reads.
FIELDS = ("kernel_name", "kernel_type", "task_ration", "block_dim", "split_mode", "entries", "compile_options",
          "link_order", "ops")


def load(path: str, fields: tuple[str, ...] | None = None) -> dict:
    """The plan document; with `fields`, possibly only those top-level fields (see _only_fields)."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        raise SkError("plan file not found", where="--plan", value=path,
                      allowed="pass the plan written by `sk gen --plan-out`") from None
    doc = _only_fields(text, fields) if fields else None
    if doc is not None:
        return doc
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as err:
        raise SkError(f"plan is not valid JSON ({err.msg} at line {err.lineno})", where=path) from None
    if not isinstance(doc, dict):
        raise SkError("plan must be a JSON object", where=path)
    return doc


# A top-level key of `sk gen --plan-out`'s layout: a line of one space, the quoted key and ": "
# (nested lines are indented further; JSON text has no raw newline inside a string).
_TOP_KEY = re.compile(r' ("(?:[^"\\\n]|\\.)*"): ')


def _only_fields(text: str, fields) -> dict | None:
    """Decodes only `fields` of a plan in sk gen's layout (one top-level key per line); None otherwise.

    The plan of 1,200 sub-kernels is 6 MB, mostly the generated code and the
    op list that the link step does not read: decoding all of it was 0.05 s of
    `sk link`. Anything else (another layout, a value that does not decode
    on its own) returns None and the whole text is decoded as usual.
    """
    if not (text.startswith("{\n \"") and text.endswith("\n}\n")):
        return None
    starts, at = [], 1
    while at >= 0:  # str.find, not a multi-line regex search: 6 MB in C
        starts.append(at + 1)
        at = text.find('\n "', at + 1)
    doc = {}
    for k, start in enumerate(starts):
        m = _TOP_KEY.match(text, start)
        end = starts[k + 1] - 2 if k + 1 < len(starts) else len(text) - 3  # at ",\n " / "\n}\n"
        if m is None or (k + 1 < len(starts) and text[end] != ","):
            return None
        try:
            key = json.loads(m.group(1))
            if key in fields:
                doc[key] = json.loads(text[m.end():end])
        except json.JSONDecodeError:
            return None
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
    entries = []
    for i, e in enumerate(_field(doc, "entries", where, list)):
        ew = f"{where}.entries[{i}]"
        entries.append(EntryFacts(arch=_field(e, "arch", ew, str), symbol=_field(e, "symbol", ew, str),
                                  define=_field(e, "define", ew, str), object_name=_field(e, "object", ew, str)))
    order = []
    for i, item in enumerate(_field(doc, "link_order", where, list)):
        iw = f"{where}.link_order[{i}]"
        if not isinstance(item, dict):
            raise SkError("link order entry must be an object", where=iw, value=item)
        kind = _field(item, "kind", iw, str)
        if kind not in ("sk_entry", "sub"):
            raise SkError("unknown link order entry kind", where=f"{iw}.kind", value=kind,
                          allowed="sk_entry or sub")
        order.append(LinkItem(kind=kind, arch=_field(item, "arch", iw, str),
                              op_index=_field(item, "op", iw, int) if kind == "sub" else None,
                              object_name=_field(item, "object", iw, str), symbol=_field(item, "symbol", iw, str),
                              derived_from=item.get("derived_from")))
    flags = _field(doc, "compile_options", where, list)
    return PlanFacts(kernel_name=_field(doc, "kernel_name", where, str),
                     kernel_type=_field(doc, "kernel_type", where, str),
                     task_ration=_field(doc, "task_ration", where, str),
                     block_dim=_field(doc, "block_dim", where, int),
                     split_mode=_field(doc, "split_mode", where, int), entries=tuple(entries),
                     compile_options=tuple(flags), link_order=tuple(order),
                     op_count=len(_field(doc, "ops", where, list)), raw=doc)
