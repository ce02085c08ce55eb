"""The launch API of a SuperKernel target, as data: its arguments, its launches and every slot of each.

Inputs: the launch manifest Starlark writes for a `super_kernel` (what BUILD
says: ops, their kernels and bindings, the pieces the scope became) and the
plan of each fused piece. Output: a LaunchSpec that sk/render/launch.py spells
out as a C++ header and an implementation (CPU twin or CANN).

Arguments are named after BUILD: a bound tensor by its tensor name, an op's
tiling buffer `<op>_tiling`, its tiling-sink words `<op>_<word>`, its external
event words `<op>_notify_<event>` / `<op>_wait_<event>`. One `workspace`
buffer holds the SuperKernel's own workspace (the kernel JSON's ask) followed
by every op's workspace, each at a 512-byte aligned offset. Each launch's slots
come from the plan's parameter layout (sk.engine.planfacts.param_slots), so a
word the layout gains is an argument (or an error here), never a silent zero.
"""

from __future__ import annotations

import dataclasses
import json

from sk.base import infile, jsonload, numbers
from sk.base.errors import SkError
from sk.engine import kernel_types, planfacts

# Workspace slices start at multiples of this (GE aligns workspaces to 512 bytes).
WORKSPACE_ALIGN = 512

# Words a C++ identifier must not be (the arguments are fields of a struct).
_CPP_KEYWORDS = frozenset("""
alignas alignof and and_eq asm auto bitand bitor bool break case catch char char16_t char32_t char8_t class
compl concept const consteval constexpr constinit const_cast continue co_await co_return co_yield decltype
default delete do double dynamic_cast else enum explicit export extern false float for friend goto if inline
int long mutable namespace new noexcept not not_eq nullptr operator or or_eq private protected public register
reinterpret_cast requires return short signed sizeof static static_assert static_cast struct switch template
this thread_local throw true try typedef typeid typename union unsigned using virtual void volatile wchar_t
while xor xor_eq
""".split())

# Argument names the API itself uses.
_RESERVED = frozenset({"workspace", "workspace_bytes", "profiling", "Args", "Launch"})


@dataclasses.dataclass(frozen=True)
class Arg:
    """One field of the Args struct.

    kind: "tensor" (a device address), "tiling" (a device address plus
    `<name>_bytes`), "word" (a device address of a uint64 word: tiling-sink
    and event words), "profiling"; op/param: the first op and parameter that
    use it (for error messages); min_bytes: the least `<name>_bytes` a tiling
    buffer may have.
    """

    name: str
    kind: str
    op: str
    param: str
    doc: str
    min_bytes: int = 0


@dataclasses.dataclass(frozen=True)
class SlotValue:
    """How a launch fills one slot: "zero", "ffts", "arg" (args.<name>), "workspace" (+offset)."""

    source: str
    name: str = ""
    offset: int = 0
    doc: str = ""


@dataclasses.dataclass(frozen=True)
class Launch:
    """One launch of the sequence: a fused piece (entries per core side) or an op on its own."""

    name: str          # kernel name: the fused entry's base name or the op's kernel entry
    fused: bool
    block_dim: int
    aic: int           # cube cores per block
    aiv: int           # vector cores per block
    entries: tuple     # ((arch, symbol), ...) for a fused launch; ((None, entry),) for an op
    slots: tuple       # SlotValue per parameter slot, in order
    binary: str        # path of the object this launch runs (embedded by the CANN flavour)
    ops: tuple         # op names it runs


@dataclasses.dataclass(frozen=True)
class WorkspaceSlice:
    owner: str         # op name, or "" for the SuperKernel's own workspace
    offset: int
    bytes: int


@dataclasses.dataclass(frozen=True)
class LaunchSpec:
    name: str          # C++ namespace: the super_kernel's kernel name
    label: str
    args: tuple        # Arg, in first-use order
    launches: tuple    # Launch, in run order
    unfused: tuple     # Launch per op on its own (LaunchUnfused), or () when an op has no standalone binary
    workspace: tuple   # WorkspaceSlice
    workspace_bytes: int
    block_dim: int     # the largest block count of the launches
    aic: int
    aiv: int


def _identifier(name: str, where: str, what: str) -> str:
    ok = bool(name) and (name[0].isalpha() or name[0] == "_") and all(c.isalnum() or c == "_" for c in name)
    if not ok or not name.isascii() or name in _CPP_KEYWORDS:
        raise SkError(f"{what} is not a C++ identifier, so it cannot name an argument of the launch API",
                      where=where, value=name,
                      allowed="use letters, digits and '_' (not starting with a digit, not a C++ keyword)")
    return name


def _align(n: int) -> int:
    return (n + WORKSPACE_ALIGN - 1) // WORKSPACE_ALIGN * WORKSPACE_ALIGN


def _load_json(path: str, what: str) -> dict:
    try:
        return jsonload.loads(infile.read_text(path))
    except UnicodeDecodeError as err:
        raise SkError(f"the {what} is not UTF-8 text ({err.reason} at byte {err.start})", where=path) from None
    except OSError as err:
        raise SkError(f"cannot read the {what}", where=path, allowed=str(err.strerror or err)) from None
    except json.JSONDecodeError as err:
        raise SkError(f"the {what} is not valid JSON ({err.msg} at line {err.lineno})", where=path) from None


def load_manifest(path: str) -> dict:
    """The launch manifest at `path` (a JSON object); SkError naming the file otherwise."""
    doc = _load_json(path, "launch manifest")
    if not isinstance(doc, dict):
        raise SkError("the launch manifest must be a JSON object", where=path, value=type(doc).__name__,
                      allowed="the manifest the super_kernel rule writes")
    return doc


def _field(doc, key, where, types):
    if not isinstance(doc, dict):
        raise SkError("launch manifest entry must be a JSON object", where=where, value=doc)
    if key not in doc or not isinstance(doc[key], types) or isinstance(doc[key], bool) and types is int:
        raise SkError("launch manifest field missing or of the wrong type", where=f"{where}.{key}",
                      value=doc.get(key))
    return doc[key]


class _Builder:
    def __init__(self, manifest: dict, where: str):
        self.where = where
        self.name = _identifier(_field(manifest, "name", where, str), f"{where}.name", "the kernel name")
        self.label = _field(manifest, "label", where, str)
        self.ops = _field(manifest, "ops", where, list)
        self.args: dict = {}
        for i, op in enumerate(self.ops):
            ow = f"{where}.ops[{i}]"
            _identifier(_field(op, "name", ow, str), f"op {op.get('label', op['name'])}", "the op name")

    def _op(self, i: int) -> dict:
        return self.ops[i]

    def _where(self, op: dict) -> str:
        return f"{self.label}: op {op['name']} ({op['label']})"

    def arg(self, name: str, kind: str, op: dict, param: str, doc: str, min_bytes: int = 0) -> str:
        where = f"{self._where(op)}, parameter {param}"
        _identifier(name, where, "the tensor name" if kind == "tensor" else "the argument name")
        if name in _RESERVED or (kind != "tiling" and name.endswith("_bytes")):
            raise SkError("argument name is reserved by the launch API", where=where, value=name,
                          allowed="bind the parameter to another tensor name (workspace, profiling and "
                                  "names ending in _bytes are the API's own)")
        old = self.args.get(name)
        new = Arg(name=name, kind=kind, op=op["name"], param=param, doc=doc, min_bytes=min_bytes)
        if old is None:
            self.args[name] = new
        elif old != new and (old.kind != kind or kind != "tensor"):
            raise SkError("two different arguments of the launch API get the same name", where=where, value=name,
                          allowed=f"it is already {old.kind} '{old.param}' of op {old.op}; rename the tensor "
                                  "or the op")
        return name

    def op_values(self, i: int, ws_offset: dict) -> list:
        """SlotValue per parameter of op i in its kernel's signature order."""
        op = self._op(i)
        k = op["kernel"]
        ow = f"{self.where}.ops[{i}]"
        tensor_params = set(_field(k, "tensor_params", f"{ow}.kernel", list))
        out = []
        for p in _field(k, "params", f"{ow}.kernel", list):
            if p in tensor_params:
                tensor = _field(op, "bind", ow, dict).get(p, p)
                if tensor == "":
                    raise SkError("the parameter is left out (bound to \"\"): only sk_model passes a null pointer "
                                  "for an absent optional parameter", where=f"{self._where(op)}, parameter {p}",
                                  allowed="bind it to a tensor in the sk_op this launch API is made from")
                name = self.arg(tensor, "tensor", op, p, f"tensor '{tensor}'")
                out.append(SlotValue("arg", name, doc=f"{op['name']}.{p}"))
            elif p == "workspace":
                out.append(SlotValue("workspace", offset=ws_offset[op["name"]], doc=f"{op['name']}.workspace"))
            elif p == "tiling":
                size = numbers.whole(k.get("tiling_size") or 0, numbers.UINT32, where=f"{ow}.kernel.tiling_size")
                name = self.arg(f"{op['name']}_tiling", "tiling", op, p, f"tiling data of op {op['name']}",
                                min_bytes=max(size, 1))
                out.append(SlotValue("arg", name, doc=f"{op['name']}.tiling"))
            else:
                raise SkError("kernel parameter the launch API does not know", where=self._where(op), value=p,
                              allowed="inputs, outputs, output_shape, workspace, tiling")
        return out


def build(manifest: dict, where: str = "launch manifest", load=_load_json) -> LaunchSpec:
    """The LaunchSpec of a manifest; `load(path, what)` reads the plans it names.

    The manifest is the super_kernel rule's; one edited by hand or written by something else may hold
    a field of another shape somewhere the checks above do not look: that is refused naming the
    manifest, never an internal error.
    """
    try:
        return _build(manifest, where, load)
    except (KeyError, TypeError, AttributeError, ValueError, IndexError) as err:
        raise SkError(f"the launch manifest has a field of an unexpected shape ({type(err).__name__}: {err})",
                      where=where, allowed="the manifest the super_kernel rule writes") from None


def _build(manifest: dict, where: str, load) -> LaunchSpec:
    b = _Builder(manifest, where)
    ops = b.ops
    pieces = _field(manifest, "pieces", where, list)
    if not pieces:
        raise SkError("the scope has nothing to launch", where=where)

    # Workspace: the SuperKernel's own (largest over the fused pieces, which run one after another), then per op.
    plans = {}
    sk_ws = 0
    for n, piece in enumerate(pieces):
        if "plan" in piece:
            pw = f"{where}.pieces[{n}]"
            doc = load(_field(piece, "plan", pw, str), "plan")
            plans[n] = doc
            sk_ws = max(sk_ws, planfacts.param_layout(doc, where=piece["plan"]).workspace_bytes)
    slices, offset = [], 0
    if sk_ws:
        slices.append(WorkspaceSlice("", 0, sk_ws))
        offset = _align(sk_ws)
    ws_offset = {}
    for i, op in enumerate(ops):
        size = numbers.whole(_field(op["kernel"], "workspace", f"{where}.ops[{i}].kernel", int), numbers.UINT64,
                             where=f"{where}.ops[{i}].kernel.workspace")
        if size:
            ws_offset[op["name"]] = offset
            slices.append(WorkspaceSlice(op["name"], offset, size))
            offset = _align(offset + size)
    total = slices[-1].offset + slices[-1].bytes if slices else 0

    launches = []
    for n, piece in enumerate(pieces):
        pw = f"{where}.pieces[{n}]"
        first = _field(piece, "first", pw, int)
        count = _field(piece, "count", pw, int)
        if first < 0 or count < 1 or first + count > len(ops):
            raise SkError("piece names ops outside the scope", where=pw, value=[first, count])
        if n in plans:
            launches.append(_fused(b, plans[n], piece, first, count, ws_offset, pw))
        else:
            launches.append(_single(b, piece, first, ws_offset, pw))
    unfused = tuple(_single(b, u, _field(u, "first", f"{where}.unfused[{n}]", int), ws_offset, f"{where}.unfused[{n}]")
                    for n, u in enumerate(manifest.get("unfused") or []))
    biggest = max(launches, key=lambda l: (l.block_dim * (l.aic + l.aiv), l.fused))
    return LaunchSpec(name=b.name, label=b.label, args=tuple(b.args.values()), launches=tuple(launches), unfused=unfused,
                      workspace=tuple(slices), workspace_bytes=total, block_dim=biggest.block_dim,
                      aic=biggest.aic, aiv=biggest.aiv)


def _fused(b: _Builder, doc: dict, piece: dict, first: int, count: int, ws_offset: dict, pw: str) -> Launch:
    where = piece["plan"]
    facts = planfacts.facts(doc, where=where)
    if facts.op_count != count:
        raise SkError("the plan fuses another number of ops than BUILD's piece", where=where, value=facts.op_count,
                      allowed=f"{count} ops ({pw})")
    names = planfacts.op_kernel_names(doc, where=where)
    values = {i: b.op_values(first + i, ws_offset) for i in range(count)}
    slots = []
    for index, slot in enumerate(planfacts.param_slots(doc, where=where)):
        if slot is None:
            raise SkError("the plan's parameter layout has a slot the launcher does not know how to fill",
                          where=f"{where}: slot {index}", allowed="regenerate the plan with this sk version")
        op = b._op(first + slot.op) if slot.op is not None else None
        if slot.kind == "ffts":
            slots.append(SlotValue("ffts", doc="ffts (hardware sync address)"))
        elif slot.kind == "param":
            vals = values[slot.op]
            if slot.name >= len(vals):
                raise SkError("the plan gives an op more parameters than its kernel has in BUILD",
                              where=f"{where}: op {slot.op} ({names[slot.op]})", value=slot.name + 1,
                              allowed=f"{len(vals)} parameters ({op['label']})")
            slots.append(vals[slot.name])
        elif slot.kind == "dynamic":
            name = b.arg(f"{op['name']}_{slot.name}", "word", op, slot.name,
                         f"tiling-sink word {slot.name} of op {op['name']}")
            slots.append(SlotValue("arg", name, doc=f"{op['name']}.{slot.name}"))
        elif slot.kind in ("notify", "wait"):
            if slot.inner:
                # Both ends are inside this SuperKernel: the generated code synchronises them itself.
                slots.append(SlotValue("zero", doc=f"{op['name']}.{slot.kind} event {slot.name} (inner)"))
            else:
                name = b.arg(f"{op['name']}_{slot.kind}_{slot.name}", "word", op, f"{slot.kind} event {slot.name}",
                             f"{slot.kind} word of event {slot.name} (op {op['name']})")
                slots.append(SlotValue("arg", name, doc=f"{op['name']}.{slot.kind} event {slot.name}"))
        elif slot.kind == "workspace":
            slots.append(SlotValue("workspace", offset=0, doc="SuperKernel workspace"))
        elif slot.kind == "profiling":
            b.args.setdefault("profiling", Arg("profiling", "profiling", "", "profiling",
                                               "profiling buffer (options profiling=1)"))
            slots.append(SlotValue("arg", "profiling", doc="profiling buffer"))
        else:  # task_id: the launch is task 0
            slots.append(SlotValue("zero", doc=slot.kind))
    for i, vals in values.items():
        used = sum(1 for s in planfacts.param_slots(doc, where=where) if s.kind == "param" and s.op == i)
        if used != len(vals):
            raise SkError("the plan gives an op fewer parameters than its kernel has in BUILD",
                          where=f"{where}: op {i} ({names[i]})", value=used, allowed=f"{len(vals)} parameters")
    aic, aiv = (int(x) for x in facts.task_ration.split(":"))
    return Launch(name=facts.kernel_name, fused=True, block_dim=facts.block_dim, aic=aic, aiv=aiv,
                  entries=tuple((e.arch, e.symbol) for e in facts.entries), slots=tuple(slots),
                  binary=_field(piece, "binary", pw, str), ops=tuple(b._op(first + i)["name"] for i in range(count)))


def _single(b: _Builder, piece: dict, i: int, ws_offset: dict, pw: str) -> Launch:
    op = b._op(i)
    kw = f"{b.where}.ops[{i}].kernel"
    k = _field(op, "kernel", f"{b.where}.ops[{i}]", dict)
    kt = kernel_types.lookup(k["kernel_type"], f"{b._where(op)}: kernel_type")
    entry = _identifier(_field(k, "entry", kw, str), f"{kw}.entry", "the kernel's entry")
    block_dim = numbers.whole(_field(k, "block_dim", kw, int), numbers.UINT32, minimum=1, where=f"{kw}.block_dim")
    return Launch(name=entry, fused=False, block_dim=block_dim, aic=kt.ration[0], aiv=kt.ration[1],
                  entries=((None, entry),), slots=tuple(b.op_values(i, ws_offset)),
                  binary=_field(piece, "binary", pw, str), ops=(op["name"],))


def twin_symbol(spec: LaunchSpec, symbol: str) -> str:
    """The name a launched symbol has in the CPU-twin launch library (unique to this SuperKernel target)."""
    return f"sk_launch_{spec.name}__{symbol}"


def twin_entries(launch: Launch) -> tuple:
    """(entry, entry_aiv) symbols of a twin launch: cube workers run the cube half, vector workers the other."""
    if not launch.fused:
        return launch.entries[0][1], None
    by_arch = dict(launch.entries)
    if launch.aic:
        return by_arch.get("cube"), by_arch.get("vec") if launch.aiv else None
    return by_arch.get("vec"), None


def twin_objects(spec: LaunchSpec) -> dict:
    """binary -> (renames ((old, new), ...), localize): the object copies a twin launch library links.

    A fused object keeps its entries (the link left them its only globals); a standalone kernel object is
    localised to its entry first.
    """
    out = {}
    for launch in spec.launches + spec.unfused:
        symbols = [s for s in twin_entries(launch) if s]
        renames = tuple((s, twin_symbol(spec, s)) for s in symbols)
        if out.setdefault(launch.binary, (renames, not launch.fused)) != (renames, not launch.fused):
            raise SkError("one object is launched under two different entries", where=launch.binary,
                          value=[r[0] for r in renames])
    return out
