"""After rendering, before anything is written: does the generated entry do what the plan owes?

A template or planner slip that leaves an op out produces a SuperKernel that
compiles, links and silently computes without it (upstream's feed-sync-all
path for a dynamic op did exactly that). This check reads the rendered source
back, independently of the steps that produced it, and compares it with the
plan's op records:

  * a static op: every entry symbol of each core side it has (its function
    and each split copy) is called with the op's first parameter slot exactly
    once on that core side, and nowhere else;
  * a dynamic op: on each core side it runs on, its tiling switch (waiting on
    the op's tiling lock) comes once and is followed by one `call_func_of_<op>`
    with the op's first slot; its lock is released once, after the call; the
    switch can pick every tiling key's functions;
  * every external event lock an op sends is notified once (`NotifyFunc`), every
    one it receives is reset once and waited on at most once (`WaitFunc`; see
    _events), and no other event lock is notified or waited on;
  * every queue function of two-stream mode is dispatched once from the entry.

"On a core side" means the code runs on that side's cores: inside an
`if ASCEND_IS_AIC`/`AIV` block (an `else` after one is the other side), inside
a queue function of that side, or unguarded; code under guards of both sides,
or of a side the SuperKernel does not launch, never runs and does not count.
Inner events (ordered by cross-core flags within the SuperKernel) are the
barrier planner's and are not checked here.

A violation is a bug in sk (EntryCheckError, exit 1), naming the op; `sk gen`
then writes nothing.
"""

from __future__ import annotations

import re

from sk.engine.kernel_types import CUBE, TABLE as KERNEL_TYPES, VEC

_SIDES = (CUBE, VEC)

_COMMENTS = re.compile(r'("(?:\\.|[^"\\\n])*")|//[^\n]*|/\*.*?\*/', re.S)
# One pattern per token kind, each starting with a literal the regex engine searches for quickly
# (a call `f(8);` is found by its `(8);`, then its name read backwards).
_TOKENS = {
    "dyn": re.compile(r"call_func_of_(?P<dyn>\w+)\((?P<dyn_off>\d+)\s*,"),
    "switch": re.compile(r"switch_func_of_(?P<sw>\w+)\(\s*param_base\[(?P<sw_key>\d+)\]\s*,"
                         r"\s*param_base\[(?P<sw_num>\d+)\]\s*,\s*param_base\[(?P<sw_lock>\d+)\]"),
    "release": re.compile(r"reinterpret_cast<__gm__\s+uint64_t\s*\*>\(param_base\[(?P<release>\d+)\]\)\s*;"
                          r"\s*\*lockAddr\s*=\s*0\s*;"),
    "notify": re.compile(r"NotifyFunc<\w+>\(param_base\[(?P<notify>\d+)\]\)\s*;"),
    "wait": re.compile(r"WaitFunc<\w+>\(param_base\[(?P<wait>\d+)\]\)\s*;"),
    "reset": re.compile(r"\*\(reinterpret_cast<__gm__\s+uint64_t\s*\*>\(param_base\[(?P<reset>\d+)\]\)\)\s*=\s*0\s*;"),
    "call": re.compile(r"\((?P<off>\d*)\)\s*;"),
}
_NAME_REVERSED = re.compile(r"\s*(\w+)")  # a name before a position, read in the reversed text
_BRACES = re.compile(r"[{}]")
_NOT_NEWLINE = re.compile(r"[^\n]")
_IF_SIDE = re.compile(r"\bif\s*\(?\s*ASCEND_IS_(AIC|AIV)\b")


class EntryCheckError(RuntimeError):
    """The generated source does not do what its plan owes (a bug in sk, never the user's input)."""


def _side_of_header(header: str, queue_sides: dict, last_closed: str | None) -> str | None:
    m = _IF_SIDE.search(header)
    if m:
        return CUBE if m.group(1) == "AIC" else VEC
    if header.strip() == "else" and last_closed:
        return VEC if last_closed == CUBE else CUBE
    for name, side in queue_sides.items():
        if re.search(rf"\b{re.escape(name)}\s*\(", header):
            return side
    return None


def _scan(text: str, queue_sides: dict, launched: tuple) -> list:
    """(kind, fields, position, sides it runs on) for every token of interest outside dead code."""
    # Comments blanked out in place, so positions stay those of the source.
    text = _COMMENTS.sub(lambda m: m.group(1) or _NOT_NEWLINE.sub(" ", m.group()), text)
    tokens = []
    for kind, pattern in _TOKENS.items():
        for m in pattern.finditer(text):
            fields = m.groupdict()
            if kind == "call":
                name = _NAME_REVERSED.match(text[max(0, m.start() - 256):m.start()][::-1])
                if name is None:
                    continue
                fields["fn"] = name.group(1)[::-1]
            tokens.append((m.start(), kind, fields))
    tokens.sort(key=lambda t: t[0])
    braces = [(m.start(), m.group()) for m in _BRACES.finditer(text)]
    stack, found = [], []          # stack: the side each open block restricts to (None: no restriction)
    boundary, last_closed, b = 0, None, 0
    for pos, kind, fields in tokens:
        while b < len(braces) and braces[b][0] < pos:
            at, brace = braces[b]
            b += 1
            if brace == "{":
                header = text[boundary:at].rsplit(";", 1)[-1]
                stack.append(_side_of_header(header, queue_sides, last_closed))
                last_closed = None
            else:
                last_closed = stack.pop() if stack else None
            boundary = at + 1
        guards = {s for s in stack if s}
        sides = tuple(s for s in launched if not guards or guards == {s})
        if sides:
            found.append((kind, fields, pos, sides))
    return found


def live_tokens(plan: dict, source: str) -> list:
    """(kind, fields, position, sides) of each call, switch, lock release, notify, wait and reset in the
    source that runs on some launched core side. plan: the plan's JSON form."""
    return _scan(source, {f["name"]: f["arch"] for f in plan["code"]["functions"]},
                 tuple(e["arch"] for e in plan["entries"]))


def check(plan: dict, source: str) -> None:
    """Raises EntryCheckError naming every op whose obligations the source does not meet.

    plan: a Plan (sk.engine.plan) or its JSON form."""
    plan = plan if isinstance(plan, dict) else plan.to_json()
    launched = tuple(e["arch"] for e in plan["entries"])
    functions = plan["code"]["functions"]
    found = live_tokens(plan, source)
    problems = []

    def where(op: dict) -> str:
        return f"op_list[{op['index']}] ({op['kernel_name']})"

    calls = {}
    for kind, g, pos, sides in found:
        if kind == "call":
            calls.setdefault((g["fn"], g["off"]), []).append((pos, sides))
    for f in functions:
        got = calls.get((f["name"], ""), [])
        if len(got) != 1 or f["arch"] not in got[0][1]:
            problems.append(f"the entry dispatches queue function {f['name']} {len(got)} time(s) "
                            f"(it must once, on the {f['arch']} side)")

    owned = set()
    for op in plan["ops"]:
        if op["task_type"] == "dynamic":
            problems += _dynamic(op, found, launched, where(op))
            continue
        # A MIX op's two sides may share one symbol: each side's function is expected once on its side.
        expected = {}
        for f in op["funcs"]:
            for sym in [f["func_name"]] + [s["symbol"] for s in f["splits"]]:
                expected.setdefault(sym, []).append(f["arch"])
        for sym, arches in expected.items():
            key = (sym, str(op["param_offset"]))
            owned.add(key)
            got = calls.get(key, [])
            for arch in arches:
                n = sum(1 for _, sides in got if sides == (arch,))
                if n != 1:
                    problems.append(f"{where(op)}: calls {sym}({op['param_offset']}) {n} time(s) on the {arch} side "
                                    "(it must exactly once)")
            stray = [sides for _, sides in got if len(sides) != 1 or sides[0] not in arches]
            if stray:
                problems.append(f"{where(op)}: calls {sym}({op['param_offset']}) on "
                                f"{' and '.join('/'.join(s) for s in stray)} cores, not only its own side")
    symbols = {sym for sym, _ in owned}
    for (fn, off), got in sorted(calls.items()):
        if fn in symbols and (fn, off) not in owned:
            problems.append(f"the entry calls {fn}({off}), which no op's first parameter slot is")

    problems += _events(plan["ops"], found, where)
    if problems:
        raise EntryCheckError(f"generated SuperKernel {plan['kernel_name']} does not do what its plan owes: "
                              + "; ".join(problems))


def _dynamic(op: dict, found: list, launched: tuple, where: str) -> list:
    name, offset = op["kernel_name"], str(op["param_offset"])
    lock = str(op["dynamic_params"]["wait_lock"])
    ration = KERNEL_TYPES[op["kernel_type"]].ration
    own = [s for s, n in zip(_SIDES, ration) if n and s in launched]
    problems = []
    call_pos = []
    for side in own:
        switches = [(p, g) for k, g, p, sides in found if k == "switch" and g["sw"] == name and side in sides
                    and g["sw_lock"] == lock]
        calls = [p for k, g, p, sides in found if k == "dyn" and g["dyn"] == name and g["dyn_off"] == offset
                 and side in sides]
        if len(calls) != 1:
            problems.append(f"{where}: calls call_func_of_{name}({offset}, ...) {len(calls)} time(s) on the {side} "
                            "side (a dynamic op must be called exactly once on each core side it runs on)")
            continue
        if not any(p < calls[0] for p, _ in switches):
            problems.append(f"{where}: no tiling switch waiting on its lock param_base[{lock}] before its call on "
                            f"the {side} side")
        call_pos.append(calls[0])
    releases = [p for k, g, p, sides in found if k == "release" and g["release"] == lock]
    if len(releases) != 1:
        problems.append(f"{where}: releases its tiling lock param_base[{lock}] {len(releases)} time(s) (it must once)")
    elif call_pos and releases[0] < min(call_pos):
        problems.append(f"{where}: releases its tiling lock param_base[{lock}] before it is called")
    return problems


def _events(ops: list, found: list, where) -> list:
    """External event locks: each one an op sends is notified once and each one it receives is reset once.
    A wait may be absent (upstream emits none for the first op of a two-stream queue whose sender comes
    later in fusion order: the cross-core flag orders them) but never doubled."""
    problems = []
    counts = {"notify": {}, "wait": {}, "reset": {}}
    for kind, g, pos, sides in found:
        if kind in counts:
            counts[kind][g[kind]] = counts[kind].get(g[kind], 0) + 1
    owed = {"notify": set(), "wait": set(), "reset": set()}
    for op in ops:
        for kind, field, allowed in (("notify", "notify", (1,)), ("wait", "wait", (0, 1)), ("reset", "wait", (1,))):
            for e in op[field]:
                if e["inner"]:
                    continue
                slot = str(e["offset"])
                owed[kind].add(slot)
                n = counts[kind].get(slot, 0)
                if n not in allowed:
                    verb = {"notify": "notifies", "wait": "waits for", "reset": "resets"}[kind]
                    problems.append(f"{where(op)}: {verb} event {e['event']} (lock param_base[{slot}]) {n} time(s) "
                                    f"(it must {'at most ' if 0 in allowed else ''}once)")
    for kind in ("notify", "wait"):
        for slot in sorted(set(counts[kind]) - owed[kind], key=int):
            problems.append(f"the entry {'notifies' if kind == 'notify' else 'waits for'} param_base[{slot}], "
                            "which is no op's external event lock")
    return problems
