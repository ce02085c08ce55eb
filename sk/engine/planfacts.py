"""What the back half (entry compile, link) reads from the engine's plan JSON.

The plan (sk.engine.plan, written by `sk gen --plan-out`) is the engine's; this
module is the one place that knows its field names on our side, so a schema
change touches only here.
"""

from __future__ import annotations

import json
import re
from collections import namedtuple

from sk.base import infile, jsonload
from sk.base.errors import SkError


# Tuples, not dataclasses: `sk link` builds one per link-order line (4,800 at
# 1,200 sub-kernels), and importing dataclasses alone took 10 ms of it.
class LinkItem(namedtuple("LinkItem", "kind arch op_index object_name symbol derived_from")):
    """One object of the link order.

    kind: "sk_entry" or "sub"; arch: cube | vec; op_index: the op, for "sub";
    object_name: entry: <name>_mix_aic.o; sub: the archive member (obj_files /
    obj_files_splitN); symbol: the function this object must define;
    derived_from: split copy to make from this object (sub-op JSON without
    split copies), else None.
    """

    __slots__ = ()


class EntryFacts(namedtuple("EntryFacts", "arch symbol define object_name")):
    __slots__ = ()


class PlanFacts(namedtuple("PlanFacts", "kernel_name kernel_type task_ration block_dim split_mode entries "
                                        "compile_options link_order op_count raw")):
    """What the back half reads; kernel_type is the SK kernel type (KERNEL_TYPE_MIX_...)."""

    __slots__ = ()

    @property
    def entry_symbols(self) -> tuple[str, ...]:
        return tuple(e.symbol for e in self.entries)

    @property
    def chip(self) -> str | None:
        """The SoC's chip (c220, c310) the plan was made for; None where the plan does not say."""
        soc = self.raw.get("soc")
        chip = soc.get("chip") if isinstance(soc, dict) else None
        return chip if isinstance(chip, str) else None


# The top-level fields facts() reads.
FIELDS = ("kernel_name", "kernel_type", "task_ration", "block_dim", "split_mode", "entries", "compile_options",
          "link_order", "ops", "soc")


def load(path: str, fields: tuple[str, ...] | None = None) -> dict:
    """The plan document; with `fields`, possibly only those top-level fields (see _only_fields)."""
    text = _read(path)
    doc = _only_fields(text, fields) if fields else None
    return _decode(text, path) if doc is None else doc


def load_link_facts(path: str) -> PlanFacts:
    """facts(load(path, FIELDS), where=path): the same facts and errors, without decoding the long lists.

    The plan of 1,200 sub-kernels has 4,800 link-order lines and 1,200 op
    lines (1.7 MB): decoding them with json and checking each item was 0.07 s
    of `sk link`, which needs only the link order and the number of ops.
    In sk gen's layout (one list item per line) link-order lines of the shape
    gen writes are read by one regex and ops are counted by their lines;
    anything else is decoded with json as load() does.
    """
    text = _read(path)
    spans = _top_level_spans(text)
    if spans is None:
        return facts(_decode(text, path), where=path)
    doc, order, op_count = {}, None, None
    for key in FIELDS:
        if key not in spans:
            continue
        start, end = spans[key]
        if key == "link_order":
            order = _link_order_lines(text, start, end)
            if order is not None:
                continue
        elif key == "ops":
            op_count = _count_op_lines(text, start, end)
            if op_count is not None:
                continue
        try:
            doc[key] = json.loads(text[start:end])
        except json.JSONDecodeError:
            return facts(_decode(text, path), where=path)
    return facts(doc, where=path, link_order=order, op_count=op_count)


def _read(path: str) -> str:
    try:
        return infile.read_text(path)
    except FileNotFoundError:
        raise SkError("plan file not found", where="--plan", value=path,
                      allowed="pass the plan written by `sk gen --plan-out`") from None
    except (OSError, UnicodeDecodeError) as err:
        raise SkError(f"plan file cannot be read ({getattr(err, 'strerror', None) or err})", where="--plan",
                      value=path) from None


def _decode(text: str, path: str) -> dict:
    try:
        doc = jsonload.loads(text)
    except json.JSONDecodeError as err:
        raise SkError(f"plan is not valid JSON ({err.msg} at line {err.lineno})", where=path) from None
    if not isinstance(doc, dict):
        raise SkError("plan must be a JSON object", where=path)
    return doc


# A top-level key of `sk gen --plan-out`'s layout: a line of one space, the quoted key and ": "
# (nested lines are indented further; JSON text has no raw newline inside a string).
_TOP_KEY = re.compile(r' ("(?:[^"\\\n]|\\.)*"): ')


def _top_level_spans(text: str) -> dict | None:
    """{key: (start, end) of its value text} of a plan in sk gen's layout (one top-level key per line); else None.

    None also for a key given twice: json keeps the last, and the whole text
    is decoded then.
    """
    if not (text.startswith("{\n \"") and text.endswith("\n}\n")):
        return None
    starts, at = [], 1
    while at >= 0:  # str.find, not a multi-line regex search: 6 MB in C
        starts.append(at + 1)
        at = text.find('\n "', at + 1)
    spans = {}
    for k, start in enumerate(starts):
        m = _TOP_KEY.match(text, start)
        end = starts[k + 1] - 2 if k + 1 < len(starts) else len(text) - 3  # at ",\n " / "\n}\n"
        if m is None or (k + 1 < len(starts) and text[end] != ","):
            return None
        try:
            key = json.loads(m.group(1))
        except json.JSONDecodeError:
            return None
        if key in spans:
            return None
        spans[key] = (m.end(), end)
    return spans


def _only_fields(text: str, fields) -> dict | None:
    """Decodes only `fields` of a plan in sk gen's layout (one top-level key per line); None otherwise.

    The plan of 1,200 sub-kernels is 6 MB, mostly the generated code and the
    op list that the link step does not read: decoding all of it was 0.05 s of
    `sk link`. Anything else (another layout, a value that does not decode
    on its own) returns None and the whole text is decoded as usual.
    """
    spans = _top_level_spans(text)
    if spans is None:
        return None
    doc = {}
    for key, (start, end) in spans.items():
        if key in fields:
            try:
                doc[key] = json.loads(text[start:end])
            except json.JSONDecodeError:
                return None
    return doc


# A JSON string without escapes or control characters: its text between the quotes is its value.
_PLAIN = r'"([^"\\\x00-\x1f]*)"'
_INT = r"(?:0|[1-9][0-9]{0,17})"
# One link-order line exactly as sk gen writes it (sk.engine.plan's key order), ",\n"-terminated. For such a
# line json would give the same item and facts() no error, except for a "sub" with "op": null.
_LINK_LINE = re.compile(
    r'^  \{"kind": "(sk_entry|sub)", "arch": ' + _PLAIN + r', "op": (null|' + _INT + r'), "object": ' + _PLAIN
    + r', "symbol": ' + _PLAIN + r', "split": (?:null|-?' + _INT + r'), "derived_from": (null|"[^"\\\x00-\x1f]*")'
    r'\},\n', re.M)


def _link_order_lines(text: str, start: int, end: int) -> tuple[LinkItem, ...] | None:
    """The link order from its value text text[start:end] if every line has gen's shape, else None."""
    if not (text.startswith("[\n", start) and text.startswith("\n ]", end - 3)):
        return None
    body = text[start + 2:end - 3] + ",\n"
    rows = _LINK_LINE.findall(body)
    # Each match is one whole line (anchored at a line start, ending at its newline): as many matches
    # as lines means every line matched.
    if len(rows) != body.count("\n"):
        return None
    new = tuple.__new__  # LinkItem(...) without its Python-level __new__: 4,800 of them
    try:
        return tuple(new(LinkItem, (kind, arch, int(op) if kind == "sub" else None, obj, symbol,
                                    None if derived == "null" else derived[1:-1]))
                     for kind, arch, op, obj, symbol, derived in rows)
    except ValueError:  # a "sub" with "op": null: json's path reports it
        return None


def _count_op_lines(text: str, start: int, end: int) -> int | None:
    """The number of ops in the value text text[start:end] if line k is op k's object, else None.

    A line of sk gen's layout is one whole op object that starts with its
    index; the ops are not decoded, the link step reads none of their fields.
    """
    if not (text.startswith("[\n", start) and text.startswith("\n ]", end - 3)):
        return None
    lines = text[start + 2:end - 3].split("\n")
    last = len(lines) - 1
    for k, line in enumerate(lines):
        if not (line.startswith(f'  {{"index": {k}, ') and line.endswith("}," if k < last else "}")):
            return None
    return len(lines)


def _field(doc, key, where, types):
    if key not in doc:
        raise SkError("plan lacks a field the link step needs", where=f"{where}.{key}",
                      allowed="regenerate the plan with `sk gen` of the same sk version")
    value = doc[key]
    if not isinstance(value, types):
        raise SkError("plan field has the wrong type", where=f"{where}.{key}", value=value)
    return value


def facts(doc: dict, where: str = "plan", *, link_order: tuple[LinkItem, ...] | None = None,
          op_count: int | None = None) -> PlanFacts:
    """The facts of a plan document; link_order/op_count: already read from the lines (load_link_facts)."""
    entries = []
    for i, e in enumerate(_field(doc, "entries", where, list)):
        ew = f"{where}.entries[{i}]"
        entries.append(EntryFacts(arch=_field(e, "arch", ew, str), symbol=_field(e, "symbol", ew, str),
                                  define=_field(e, "define", ew, str), object_name=_field(e, "object", ew, str)))
    if link_order is None:
        link_order = _link_order(_field(doc, "link_order", where, list), where)
    flags = _field(doc, "compile_options", where, list)
    return PlanFacts(kernel_name=_field(doc, "kernel_name", where, str),
                     kernel_type=_field(doc, "kernel_type", where, str),
                     task_ration=_field(doc, "task_ration", where, str),
                     block_dim=_field(doc, "block_dim", where, int),
                     split_mode=_field(doc, "split_mode", where, int), entries=tuple(entries),
                     compile_options=tuple(flags), link_order=link_order,
                     op_count=len(_field(doc, "ops", where, list)) if op_count is None else op_count, raw=doc)


def _link_order(items: list, where: str) -> tuple[LinkItem, ...]:
    order = []
    for i, item in enumerate(items):
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
    return tuple(order)


class ParamLayout(namedtuple("ParamLayout", "slots op_offsets workspace_index workspace_bytes profiling_index")):
    """The SK entry's parameter array, as a launcher fills it.

    slots: length of the array (the op parameters, then the workspace,
    profiling and task-id slots where the plan has them); op_offsets: per op,
    the slot of each of its parameters in kernel-signature order;
    workspace_index / profiling_index: slot or None; workspace_bytes: the
    SuperKernel's own workspace (feed-sync-all area, plus the dump area).
    """

    __slots__ = ()


# The dump area the twin gives a plan with dump enabled (upstream's default dump size).
DUMP_BYTES = 1 << 20


def param_layout(doc: dict, where: str = "plan") -> ParamLayout:
    """The parameter layout of a plan document (sk gen's `params` and each op's `params`)."""
    layout = _field(doc, "params", where, dict)
    pw = f"{where}.params"
    count = _field(layout, "count", pw, int)
    indices = {k: layout.get(k) for k in ("workspace_index", "profiling_index", "task_id_index")}
    for key, value in indices.items():
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise SkError("plan field has the wrong type", where=f"{pw}.{key}", value=value)
    # count covers the op params; the workspace/profiling/task-id slots may lie beyond it.
    slots = max([count] + [i + 1 for i in indices.values() if i is not None])
    offsets = []
    for i, op in enumerate(_field(doc, "ops", where, list)):
        ow = f"{where}.ops[{i}]"
        offsets.append(tuple(_field(p, "offset", f"{ow}.params", int) for p in _field(op, "params", ow, list)))
    size = layout.get("workspace_size") or 0
    return ParamLayout(slots=slots, op_offsets=tuple(offsets), workspace_index=indices["workspace_index"],
                       workspace_bytes=int(size) + (DUMP_BYTES if layout.get("dump") else 0),
                       profiling_index=indices["profiling_index"])


def op_kernel_names(doc: dict, where: str = "plan") -> tuple[str, ...]:
    """The kernel name of each fused op, in scope order."""
    return tuple(_field(op, "kernel_name", f"{where}.ops[{i}]", str)
                 for i, op in enumerate(_field(doc, "ops", where, list)))


class Slot(namedtuple("Slot", "index kind op name inner")):
    """What one slot of the SK entry's parameter array holds (a launcher fills it).

    kind: "ffts" (the hardware sync address), "param" (op `op`'s parameter at
    position `name` of its signature, an int), "dynamic" (op's tiling-sink word
    `name`: tiling_key, block_num, wait_lock), "notify" / "wait" (op's event
    word for event `name`, `inner` when both ends are in this SuperKernel),
    "workspace" (the SuperKernel's own workspace), "profiling", "task_id".
    """

    __slots__ = ()


def param_slots(doc: dict, where: str = "plan") -> tuple:
    """Every slot of the plan's parameter array, in order: a Slot, or None where the plan names nothing.

    Read generically from the plan (each op's `params`, `dynamic_params`,
    `notify`, `wait`, and the `params` record), so a launcher fills every word
    the layout has; two claims on one slot are an error.
    """
    layout = param_layout(doc, where)
    slots = [None] * layout.slots
    pw = f"{where}.params"

    def claim(index, slot, at):
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(slots):
            raise SkError("plan slot index out of range", where=at, value=index,
                          allowed=f"0..{len(slots) - 1}")
        if slots[index] is not None:
            raise SkError("plan puts two parameters in one slot", where=at, value=index)
        slots[index] = slot._replace(index=index)

    ffts = doc["params"].get("ffts_slot")
    if ffts is not None:
        claim(ffts, Slot(0, "ffts", None, None, False), f"{pw}.ffts_slot")
    for i, op in enumerate(_field(doc, "ops", where, list)):
        ow = f"{where}.ops[{i}]"
        for k, offset in enumerate(layout.op_offsets[i]):
            claim(offset, Slot(0, "param", i, k, False), f"{ow}.params[{k}]")
        dynamic = op.get("dynamic_params") or {}
        if not isinstance(dynamic, dict):
            raise SkError("plan field has the wrong type", where=f"{ow}.dynamic_params", value=dynamic)
        for key, offset in dynamic.items():
            claim(offset, Slot(0, "dynamic", i, key, False), f"{ow}.dynamic_params.{key}")
        for kind in ("notify", "wait"):
            for k, word in enumerate(op.get(kind) or []):
                kw = f"{ow}.{kind}[{k}]"
                claim(_field(word, "offset", kw, int), Slot(0, kind, i, _field(word, "event", kw, int),
                                                            bool(word.get("inner"))), kw)
    for key, kind in (("workspace_index", "workspace"), ("profiling_index", "profiling"),
                      ("task_id_index", "task_id")):
        index = doc["params"].get(key)
        if index is not None:
            claim(index, Slot(0, kind, None, None, False), f"{pw}.{key}")
    return tuple(slots)
