"""Model descriptions for `sk run`: op instances in order, their kernels and tensors, SK scopes.

A model is a JSON object (paths relative to the file):

    {"name": "quickstart",
     "tensors": {"x": {"dtype": "float32", "shape": [10240], "init": "random"}, ...},
     "kernels": {"add_100": {"src": "kernels/add_100.cpp", "entry": "add_100",
                             "kernel_type": "AIV_ONLY", "block_dim": 40,
                             "inputs": ["x", "y"], "outputs": ["z"],
                             "output_shape": false, "workspace": false, "tiling": false,
                             "op_type": "Add", "copts": [], "include_dirs": []}, ...},
     "ops": [{"name": "a", "kernel": "add_100", "bind": {"x": "x", "y": "y", "z": "a_out"},
              "workspace_bytes": 0, "tiling": {"dtype": "int32", "values": [1, 2]},
              "stream": 0, "send_events": [], "recv_events": []}, ...],
     "super_kernels": [{"name": "add_skp", "ops": ["a", "b", "c", "d"], "options": ""}]}

* tensors: dtype one of DTYPES; init "random" (seeded), "zeros" or "ones";
  default: random for tensors no op writes, zeros otherwise. sk/twin/datafile.py lists
  every field: a tensor's contents may come from a file ("file": .npy, or raw .bin in the
  tensor's dtype and shape), and an output may name its expected contents ("expected", same
  forms), compared after each run within rtol/atol (defaults per dtype: DEFAULT_TOLERANCES).
* kernels: a kernel's parameters are inputs + outputs, then `output_shape`
  (a tensor, bound like an output) when "output_shape" is true, then
  `workspace` when "workspace" is true, then `tiling` when "tiling" is true
  (upstream's order, facts §14.4).
  kernel_type with or without the KERNEL_TYPE_ prefix. entry defaults to the
  kernel's key.
* ops: every input/output parameter bound to a tensor; the workspace is a
  zeroed buffer of workspace_bytes (default 1024) per op; the tiling is the
  given values packed little-endian. name defaults to the kernel's key.
  stream (default 0) and the event ids an op sends after it and waits for
  before it go into the SuperKernel's op_list (stream_id, send_event_list,
  recv_event_list), where they decide its shape (facts §14.1); separate
  launches run one after another, which every stream order allows.
* super_kernels: each scope lists consecutive ops (in model order) fused into
  one SuperKernel with the option string; an op is in at most one scope. Ops
  outside every scope run as ordinary launches in both runs.
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import re
import struct
import zlib
from collections import namedtuple
from dataclasses import dataclass

from sk.base import infile, jsonload, numbers
from sk.base.errors import SkError
from sk.twin import datafile

# dtype -> (struct code, bytes)
# bool is its byte (0 or 1; compared as the byte, so a kernel that writes 2 for true is caught), as
# CANN's bool masks (ScaledMaskedSoftmaxV2's) and numpy's .npy hold it.
DTYPES = {
    "float32": ("f", 4), "float16": ("e", 2), "int8": ("b", 1), "uint8": ("B", 1), "int16": ("h", 2),
    "int32": ("i", 4), "uint32": ("I", 4), "int64": ("q", 8), "uint16": ("H", 2), "uint64": ("Q", 8),
    "float64": ("d", 8), "bool": ("B", 1),
    # No struct code or numpy type: its 16-bit patterns, widened and narrowed by sk.binfmt.bfloat16.
    "bfloat16": ("H", 2),
}
BFLOAT16 = "bfloat16"
# The .npy element type a tensor's bytes are stored as where numpy has none (bfloat16: its bits).
NPY_DTYPE = {BFLOAT16: "uint16"}
INITS = ("random", "zeros", "ones")

# (rtol, atol) per dtype for `expected`: floating types within their precision, integers exact.
# bfloat16 keeps 8 significant bits (a unit in the last place is 2**-7 relative).
DEFAULT_TOLERANCES = {"float32": (1e-4, 1e-5), "float16": (1e-3, 1e-3), "float64": (1e-9, 1e-12),
                      "bfloat16": (1e-2, 1e-3)}
EXACT = (0.0, 0.0)
# A tensor file larger than this is refused before reading (the twin's buffers are capped below it).
MAX_TENSOR_FILE_BYTES = (1 << 30) + (1 << 16)
DEFAULT_WORKSPACE_BYTES = 1024
# The twin holds every buffer in host memory (and `sk run` snapshots tensors for the
# comparison): a larger one is a typo in a shape, not a model to run.
MAX_BUFFER_BYTES = 1 << 30
OUTPUT_SHAPE = "output_shape"
_RESERVED = (OUTPUT_SHAPE, "workspace", "tiling")
# An op's place among the streams: BUILD's sk_op says it (stream, send_events, recv_events).
STREAM_FIELDS = ("stream", "send_events", "recv_events")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


@dataclass(frozen=True)
class Tensor:
    name: str
    dtype: str
    shape: tuple[int, ...]
    init: str
    file: str | None = None      # absolute path: initial contents (datafile.DATA_FILE)
    expected: str | None = None  # absolute path: reference contents after each run
    rtol: float | None = None
    atol: float | None = None

    @property
    def tolerance(self) -> tuple:
        """(rtol, atol) of the comparison with `expected`."""
        rtol, atol = DEFAULT_TOLERANCES.get(self.dtype, EXACT)
        return (rtol if self.rtol is None else self.rtol, atol if self.atol is None else self.atol)

    @property
    def nbytes(self) -> int:
        count = 1
        for d in self.shape:
            count *= d
        return count * DTYPES[self.dtype][1]

    def initial_bytes(self, seed: int) -> bytes:
        if self.file:
            return read_tensor_file(self, self.file, "file")
        count = self.nbytes // DTYPES[self.dtype][1]
        code = DTYPES[self.dtype][0]
        if self.init == "zeros":
            return bytes(self.nbytes)
        if self.init == "ones":
            return pack(self.dtype, [1] * count)
        # Seeded per tensor name, so adding a tensor does not change the others.
        rng = random.Random((seed << 32) ^ zlib.crc32(self.name.encode()))
        if code in "fed" or self.dtype == BFLOAT16:
            values = [rng.uniform(-4.0, 4.0) for _ in range(count)]
        elif self.dtype == "bool":
            values = [rng.randint(0, 1) for _ in range(count)]
        else:
            bits = DTYPES[self.dtype][1] * 8
            lo, hi = (0, 2 ** bits - 1) if code.isupper() else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
            values = [rng.randint(max(lo, -100), min(hi, 100)) for _ in range(count)]
        return pack(self.dtype, values)


def pack(dtype: str, values) -> bytes:
    """values as little-endian elements of dtype (bfloat16 rounded to nearest even); struct.error or
    OverflowError when one does not fit."""
    if dtype == BFLOAT16:
        from sk.binfmt import bfloat16

        return bfloat16.pack(values)
    values = list(values)
    return struct.pack(f"<{len(values)}{DTYPES[dtype][0]}", *values)


def unpack(dtype: str, data: bytes) -> tuple:
    """The values of little-endian elements of dtype (bfloat16 widened exactly to float)."""
    if dtype == BFLOAT16:
        from sk.binfmt import bfloat16

        return tuple(bfloat16.unpack(data))
    code, size = DTYPES[dtype]
    return struct.unpack(f"<{len(data) // size}{code}", data)


def read_tensor_file(t: Tensor, path: str, field: str) -> bytes:
    """The bytes of tensor t in `path` (.npy: dtype and shape checked; otherwise raw), or an SkError
    naming the tensor, the field and the file."""
    return read_tensor(t, path, field)[1]


# A bfloat16 tensor's reference may be an .npy of float32 values (what a reference computed in float32
# holds), compared as they are, without rounding them to bfloat16 first.
WIDE_REFERENCE = {BFLOAT16: "float32"}


def read_tensor(t: Tensor, path: str, field: str, wide: bool = False) -> tuple:
    """(dtype, bytes) of tensor t in `path`: the tensor's dtype, or with wide=True (an `expected` file)
    WIDE_REFERENCE's dtype where the .npy holds that; an SkError naming the tensor, field and file."""
    from sk.binfmt import npy

    where = f"tensor {t.name}: {field} {os.path.basename(path)}"
    try:
        data = infile.read_bytes(path, MAX_TENSOR_FILE_BYTES)
    except (OSError, infile.NotReadable) as err:
        raise _err(f"cannot read the file ({err.strerror if isinstance(err, OSError) and err.strerror else err})",
                   where) from None
    if path.endswith(".npy"):
        try:
            dtype, shape, body = npy.parse(data)
        except npy.NpyError as err:
            raise _err(f"not a readable .npy file: {err}", where) from None
        stored = NPY_DTYPE.get(t.dtype, t.dtype)
        accepted = (stored,) + ((WIDE_REFERENCE[t.dtype],) if wide and t.dtype in WIDE_REFERENCE else ())
        if dtype not in accepted or shape != t.shape:
            raise _err(f"the file holds {dtype} {list(shape)}, the tensor is {t.dtype} {list(t.shape)}", where,
                       allowed=" or ".join(f"an .npy of {d}" for d in accepted) + f" with shape {list(t.shape)}"
                       + (f" ({t.dtype} bit patterns as {stored})" if stored != t.dtype else ""))
        return (t.dtype if dtype == stored else dtype), body
    if len(data) != t.nbytes:
        raise _err(f"a raw file must hold the tensor's {t.nbytes} bytes ({t.dtype} {list(t.shape)}); "
                   f"it holds {len(data)}", where,
                   allowed="raw little-endian elements of the tensor's dtype and shape, or an .npy file")
    return t.dtype, data


@dataclass(frozen=True)
class Kernel:
    key: str
    src: str  # absolute path
    entry: str
    kernel_type: str  # KERNEL_TYPE_...
    block_dim: int
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]
    output_shape: bool
    workspace: bool
    tiling: bool
    op_type: str
    copts: tuple[str, ...]
    include_dirs: tuple[str, ...]
    # A tiling-sink kernel (facts §15): its TILING_KEY_IS(k) keys, the host tiling function that
    # computes key, block dim and tiling from device memory (sk_tiling.h), its sources, and the bytes
    # of the tiling buffer it fills. Empty keys: an ordinary kernel.
    tiling_keys: tuple = ()
    # A CANN-style operator instance (docs/cann-ops.md): src is its template kernel, cann_kernel its
    # __global__ function; sk generates the entry. binary_config: absolute path or "".
    cann_kernel: str = ""
    binary_config: str = ""
    variant: str = ""
    tpl_args: str = ""
    tiling_func: str = ""
    tiling_srcs: tuple = ()
    tiling_bytes: int = 0

    @property
    def dynamic(self) -> bool:
        return bool(self.tiling_keys)

    @property
    def written(self) -> tuple[str, ...]:
        """The tensor parameters the kernel writes: its outputs and the output-shape tensor."""
        return self.outputs + ((OUTPUT_SHAPE,) if self.output_shape else ())

    @property
    def tensor_params(self) -> tuple[str, ...]:
        """The parameters bound to tensors, in signature order."""
        return self.inputs + self.written

    @property
    def params(self) -> tuple[str, ...]:
        return self.tensor_params + (("workspace",) if self.workspace else ()) + (("tiling",) if self.tiling else ())


@dataclass(frozen=True)
class Op:
    index: int
    name: str
    kernel: Kernel
    bind: dict  # param -> tensor name (inputs and outputs)
    workspace_bytes: int
    tiling: bytes
    stream: int = 0
    send_events: tuple = ()
    recv_events: tuple = ()

    @property
    def label(self) -> str:
        return f"op {self.index} ({self.name})"


TASK_KINDS = ("tiling", "prefetch")


@dataclass(frozen=True)
class Task:
    """A task of another engine a SuperKernel talks to through GM words (facts §15.1): an AI CPU
    tiling task computes op `op`'s tiling after event `wait_event`; a prefetch task loads tensor
    `tensor` into L2 (after `wait_event`, if any) and then sends `send_event`."""

    name: str
    kind: str
    op: int | None           # tiling: the op index whose tiling it computes
    wait_event: int | None
    send_event: int | None   # prefetch: the event it sends when done
    tensor: str | None       # prefetch: what it loads


@dataclass(frozen=True)
class Scope:
    name: str
    ops: tuple[int, ...]  # op indices, consecutive
    options: str


@dataclass(frozen=True)
class Model:
    name: str
    path: str
    tensors: dict
    kernels: dict
    ops: tuple[Op, ...]
    scopes: tuple[Scope, ...]
    tasks: tuple = ()  # Task

    def scope_of(self, op_index: int) -> Scope | None:
        for scope in self.scopes:
            if op_index in scope.ops:
                return scope
        return None

    def output_tensors(self) -> list[str]:
        names = {op.bind[p] for op in self.ops for p in op.kernel.written}
        return sorted(n for n in names if n is not None)


def _err(what, where, value=None, allowed=""):
    return SkError(what, where=where, value=value, allowed=allowed)


def _obj(doc, where, keys_required, keys_optional):
    if not isinstance(doc, dict):
        raise _err("must be a JSON object", where, type(doc).__name__)
    unknown = sorted(set(doc) - set(keys_required) - set(keys_optional))
    if unknown:
        raise _err("unknown field", f"{where}.{unknown[0]}",
                   allowed="known fields: " + ", ".join(sorted(set(keys_required) | set(keys_optional))))
    for key in keys_required:
        if key not in doc:
            raise _err("required field is missing", f"{where}.{key}")
    return doc


def _name(value, where):
    if not isinstance(value, str) or not _NAME.match(value):
        raise _err("must be a C identifier", where, value, "letters, digits and '_', not starting with a digit")
    return value


def _str_list(value, where):
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _err("must be a list of strings", where, value)
    return tuple(value)


def _one_of(value, choices, what, where):
    if not isinstance(value, str) or value not in choices:
        raise _err(f"unsupported {what}", where, value, "one of " + ", ".join(choices))
    return value


def _path(value, where):
    if not isinstance(value, str) or not value or "\0" in value:
        raise _err("must be a non-empty path without NUL characters", where, value,
                   "a path relative to the model file")
    return value


def _events(value, where):
    if not isinstance(value, list) or any(isinstance(e, bool) or not isinstance(e, int) or e < 0 for e in value):
        raise _err("must be a list of event ids (integers >= 0)", where, value)
    for k, event in enumerate(value):
        numbers.whole(event, numbers.INT32, where=f"{where}[{k}]", what="event id")
    if len(set(value)) != len(value):
        raise _err("names an event twice", where, value, "each event id once")
    return tuple(value)


def _pos_int(value, where, minimum=1, ctype=numbers.UINT32):
    """A whole number >= minimum within ctype (block dims uint32, streams int32, sizes uint64)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise _err(f"must be an integer >= {minimum}", where, value)
    return numbers.whole(value, ctype, where=where)


def load(path: str, need_sources: bool = True) -> Model:
    """need_sources=False: kernels come prebuilt (sk run --built), so their
    `src` files need not exist here."""
    return from_dict(_read(path), path, need_sources)


def from_dict(doc, path: str, need_sources: bool = True, task_where=None) -> Model:
    """task_where: per task, the place an error about it names (BUILD's sk_tiling_task/sk_prefetch_task
    target when the tasks come from BUILD); by default its JSON path in this file."""
    base = os.path.dirname(os.path.abspath(path))
    w = f"model {os.path.basename(path)}"
    _obj(doc, w, ("name", "tensors", "kernels", "ops"), ("super_kernels", "tasks"))
    name = _name(doc["name"], f"{w}: name")
    if not isinstance(doc["tensors"], dict) or not isinstance(doc["kernels"], dict):
        raise _err("must be JSON objects keyed by name", f"{w}: tensors/kernels")
    tensors = {}
    for tname, t in sorted(doc["tensors"].items()):
        where = f"{w}: tensors.{tname}"
        _name(tname, where)
        _obj(t, where, *datafile.keys("tensors.<name>"))
        _one_of(t["dtype"], DTYPES, "dtype", f"{where}.dtype")
        if not isinstance(t["shape"], list) or not t["shape"]:
            raise _err("shape must be a non-empty list of sizes", f"{where}.shape", t["shape"])
        shape = tuple(_pos_int(d, f"{where}.shape", ctype=numbers.UINT64) for d in t["shape"])
        init = t.get("init")  # None: resolved once the ops are known
        if init is not None and init not in INITS:
            raise _err("unknown init", f"{where}.init", init, "one of " + ", ".join(INITS))
        files = _tensor_files(t, where, base, init)
        tensors[tname] = Tensor(tname, t["dtype"], shape, init, **files)
        if tensors[tname].nbytes > MAX_BUFFER_BYTES:
            raise _err("tensor is too large for the CPU twin", where, f"{tensors[tname].nbytes} bytes",
                       f"at most {MAX_BUFFER_BYTES} bytes per tensor; check the shape")

    from sk.engine import kernel_types

    kernels = {}
    for key, k in sorted(doc["kernels"].items()):
        where = f"{w}: kernels.{key}"
        _name(key, where)
        _obj(k, where, ("src", "kernel_type", "block_dim", "inputs", "outputs"),
             ("entry", "output_shape", "workspace", "tiling", "op_type", "copts", "include_dirs") + _SINK_FIELDS
             + CANN_FIELDS)
        src = os.path.normpath(os.path.join(base, _path(k["src"], f"{where}.src")))
        problem = infile.input_problem(src, limit=infile.SOURCE_LIMIT) if need_sources else ""
        if problem:
            raise _err("kernel source not found" if not os.path.lexists(src) else f"kernel source {problem}",
                       f"{where}.src", k["src"], "a regular file, at a path relative to the model file")
        if not isinstance(k["kernel_type"], str):
            raise _err("unsupported kernel type", f"{where}.kernel_type", k["kernel_type"],
                       "a name such as AIV_ONLY or KERNEL_TYPE_MIX_AIC_1_2")
        kt = kernel_types.lookup(k["kernel_type"], f"{where}.kernel_type").name
        inputs, outputs = _str_list(k["inputs"], f"{where}.inputs"), _str_list(k["outputs"], f"{where}.outputs")
        for p in inputs + outputs:
            _name(p, f"{where}.inputs/outputs")
        if len(set(inputs + outputs)) != len(inputs + outputs):
            raise _err("parameter names must be unique", f"{where}.inputs/outputs", list(inputs + outputs))
        reserved = [p for p in inputs + outputs if p in _RESERVED]
        if reserved:
            raise _err("the parameter layout adds this name itself", f"{where}.inputs/outputs", reserved[0],
                       f'set "{reserved[0]}" on the kernel instead')
        if not isinstance(k.get("op_type", ""), str):
            raise _err("must be a string", f"{where}.op_type", k["op_type"], "an operator type such as Add")
        for flag in ("output_shape", "workspace", "tiling"):
            if not isinstance(k.get(flag, False), bool):
                raise _err("must be true or false", f"{where}.{flag}", k[flag])
        if k.get("output_shape") and not outputs:
            raise _err("an output-shape tensor needs outputs", f"{where}.output_shape", True, "list the outputs")
        sink = _tiling_sink(k, where, base, need_sources)
        sink.update(_cann_fields(k, where, base))
        kernels[key] = Kernel(
            **sink, key=key, src=src, entry=_name(k.get("entry", key), f"{where}.entry"), kernel_type=kt,
            block_dim=_pos_int(k["block_dim"], f"{where}.block_dim"), inputs=inputs, outputs=outputs,
            output_shape=k.get("output_shape", False), workspace=k.get("workspace", False), tiling=k.get("tiling", False),
            op_type=k.get("op_type", ""),
            copts=_str_list(k.get("copts", []), f"{where}.copts"),
            include_dirs=tuple(os.path.normpath(os.path.join(base, _path(d, f"{where}.include_dirs")))
                               for d in _str_list(k.get("include_dirs", []), f"{where}.include_dirs")))

    if not isinstance(doc["ops"], list) or not doc["ops"]:
        raise _err("ops must be a non-empty list", f"{w}: ops")
    ops, names = [], {}
    for i, o in enumerate(doc["ops"]):
        where = f"{w}: ops[{i}]"
        _obj(o, where, ("kernel", "bind"), ("name", "workspace_bytes", "tiling") + STREAM_FIELDS)
        if not isinstance(o["kernel"], str) or o["kernel"] not in kernels:
            raise _err("unknown kernel", f"{where}.kernel", o["kernel"],
                       "one of the model's kernels: " + ", ".join(kernels))
        kernel = kernels[o["kernel"]]
        oname = _name(o.get("name", o["kernel"]), f"{where}.name")
        if oname in names:
            raise _err("op name used twice", f"{where}.name", oname, "give each op a unique name")
        names[oname] = i
        bind = o["bind"]
        if not isinstance(bind, dict):
            raise _err("bind must map parameter names to tensors", f"{where}.bind", bind)
        want = set(kernel.tensor_params)
        for p, t in sorted(bind.items()):
            if p not in want:
                raise _err("kernel has no such parameter", f"{where}.bind.{p}",
                           allowed=f"{kernel.key} parameters: " + ", ".join(kernel.tensor_params))
            if t is None:
                continue  # absent: _check_variant_dtypes decides whether it may be
            if not isinstance(t, str) or t not in tensors:
                raise _err("unknown tensor", f"{where}.bind.{p}", t, "one of: " + ", ".join(tensors)
                           + " (or null: an absent optional parameter of a CANN operator)")
        missing = sorted(want - set(bind))
        if missing:
            raise _err("parameter is not bound to a tensor", f"{where}.bind.{missing[0]}",
                       allowed="bind every input and output (and the output-shape tensor)")
        _check_variant_dtypes(kernel, bind, tensors, where, oname)
        ws = o.get("workspace_bytes", DEFAULT_WORKSPACE_BYTES if kernel.workspace else 0)
        ws = _pos_int(ws, f"{where}.workspace_bytes", minimum=0, ctype=numbers.UINT64)
        if ws > MAX_BUFFER_BYTES:
            raise _err("workspace is too large for the CPU twin", f"{where}.workspace_bytes", ws,
                       f"at most {MAX_BUFFER_BYTES} bytes")
        tiling = _tiling(o.get("tiling"), f"{where}.tiling", kernel, base)
        stream = _pos_int(o.get("stream", 0), f"{where}.stream", minimum=0, ctype=numbers.INT32)
        send, recv = (_events(o.get(f, []), f"{where}.{f}") for f in ("send_events", "recv_events"))
        ops.append(Op(i, oname, kernel, dict(bind), ws, tiling, stream, send, recv))

    written = {op.bind[p] for op in ops for p in op.kernel.written} - {None}
    for tname, t in tensors.items():
        if t.init is None:
            tensors[tname] = dataclasses.replace(t, init="zeros" if tname in written else "random")

    scopes, taken = [], {}
    if not isinstance(doc.get("super_kernels", []), list):
        raise _err("super_kernels must be a list of scopes", f"{w}: super_kernels", type(doc["super_kernels"]).__name__,
                   '[{"name": ..., "ops": [...], "options": "..."}]')
    for s_i, s in enumerate(doc.get("super_kernels", [])):
        where = f"{w}: super_kernels[{s_i}]"
        _obj(s, where, ("name", "ops"), ("options",))
        sname = _name(s["name"], f"{where}.name")
        members = _str_list(s["ops"], f"{where}.ops")
        if not members:
            raise _err("a SuperKernel scope needs at least one op", f"{where}.ops")
        idx = []
        for m in members:
            if m not in names:
                raise _err("unknown op", f"{where}.ops", m, "op names: " + ", ".join(names))
            if m in taken:
                raise _err("op is already in another SuperKernel", f"{where}.ops", m, f"it is in {taken[m]}")
            taken[m] = sname
            idx.append(names[m])
        if idx != list(range(idx[0], idx[0] + len(idx))):
            raise _err("scope ops must be consecutive and in model order", f"{where}.ops", list(members))
        options = s.get("options", "")
        if not isinstance(options, str):
            raise _err("options must be a string", f"{where}.options", options)
        scopes.append(Scope(sname, tuple(idx), options))
    if len({s.name for s in scopes}) != len(scopes):
        raise _err("SuperKernel names must be unique", f"{w}: super_kernels")
    tasks = _tasks(doc.get("tasks", []), f"{w}: tasks", ops, names, scopes, tensors, task_where)
    return Model(name=name, path=os.path.abspath(path), tensors=tensors, kernels=kernels, ops=tuple(ops),
                 scopes=tuple(scopes), tasks=tasks)


_SINK_FIELDS = ("tiling_keys", "tiling_func", "tiling_srcs", "tiling_bytes")
def _check_variant_dtypes(kernel: "Kernel", bind: dict, tensors: dict, where: str, op: str = "") -> None:
    """A CANN operator instance reads and writes its tensors as its binary variant's dtypes (the
    -DDTYPE_<P> it is compiled with): a tensor of another dtype would be read as the wrong type without
    a word, so it is refused. Parameters match the variant's by position (inputs, then outputs); an
    absent optional one, a dynamic (list) one and a dtype the data file has no name for are not checked.

    A parameter bound to None is absent: the kernel gets a null GM pointer there, as the ADK passes for
    an optional parameter a call leaves out. Only a parameter the variant leaves out (null in its
    op_list entry) or marks `"paramType": "optional"` may be; any other is refused, naming op and param."""
    absent = sorted(p for p in kernel.tensor_params if p in bind and bind[p] is None)
    if absent and not (kernel.cann_kernel and kernel.binary_config):
        raise _err(f"op {op or kernel.key}: parameter '{absent[0]}' of {kernel.key} is left out (bound to null), "
                   "but only a CANN operator's binary variant can make a parameter optional", f"{where}.bind.{absent[0]}",
                   None, "bind it to a tensor")
    # Where the config is not at hand (an action that writes the model file), the run that loads the
    # model beside it checks.
    if not kernel.cann_kernel or not kernel.binary_config or not os.path.isfile(kernel.binary_config):
        return
    from sk.engine import cannop

    variant = cannop.find_variant(cannop.load_binary_config(kernel.binary_config), kernel.variant or "0",
                                  kernel.binary_config)
    for names, params in ((kernel.inputs, variant.inputs), (kernel.outputs, variant.outputs)):
        for pos, name in enumerate(names):
            p = params[pos] if pos < len(params) else None
            if name in absent and p is not None and not p.optional:
                raise _err(f"op {op or kernel.key}: parameter '{name}' is required by binary variant "
                           f"{variant.index} ({variant.bin_filename}) of {kernel.key} (its '{p.name}' is not "
                           "optional), so it cannot be left out", f"{where}.bind.{name}", None,
                           f"bind '{name}' to a tensor, or pick a variant that leaves '{p.name}' out or marks it "
                           '"paramType": "optional"')
        for name, p in zip(names, params):
            if p is None or p.dynamic or p.dtype not in DTYPES or bind.get(name) is None:
                continue
            t = tensors[bind[name]]
            if t.dtype != p.dtype:
                raise _err(f"binary variant {variant.index} ({variant.bin_filename}) of {kernel.key} takes "
                           f"{p.dtype} for parameter '{name}' (its '{p.name}'); tensor {t.name} is {t.dtype}",
                           f"{where}.bind.{name}", t.name,
                           f"a {p.dtype} tensor, or the sk_cann_op variant whose '{p.name}' is {t.dtype}")


# A CANN-style operator instance's fields (what sk_cann_op / sk_sub_kernel's cann_kernel say).
CANN_FIELDS = ("cann_kernel", "binary_config", "variant", "tpl_args")


def _cann_fields(k: dict, where: str, base: str) -> dict:
    if not any(f in k for f in CANN_FIELDS):
        return {}
    if "cann_kernel" not in k:
        raise _err("binary_config, variant and tpl_args describe a CANN-style operator", f"{where}.cann_kernel",
                   allowed="the kernel's __global__ function")
    out = {"cann_kernel": _name(k["cann_kernel"], f"{where}.cann_kernel")}
    for f in ("variant", "tpl_args"):
        if not isinstance(k.get(f, ""), str):
            raise _err("must be a string", f"{where}.{f}", k[f])
        out[f] = k.get(f, "")
    if "binary_config" in k:
        out["binary_config"] = os.path.normpath(os.path.join(base, _path(k["binary_config"], f"{where}.binary_config")))
    return out


def _tensor_files(t: dict, where: str, base: str, init) -> dict:
    """file / expected (absolute) and rtol / atol of a tensor, checked (datafile.DATA_FILE)."""
    out = {}
    for field in ("file", "expected"):
        if field in t:
            out[field] = os.path.normpath(os.path.join(base, _path(t[field], f"{where}.{field}")))
    if "file" in out and init is not None:
        raise _err("a tensor's contents come from init or from a file, not both", f"{where}.init", init,
                   "drop init (or file)")
    for field in ("rtol", "atol"):
        if field in t:
            v = t[field]
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not v >= 0 or v != v or v == float("inf"):
                raise _err("a tolerance is a finite number >= 0", f"{where}.{field}", v, "e.g. 1e-3")
            if "expected" not in out:
                raise _err("a tolerance applies to the comparison with expected", f"{where}.{field}", v,
                           "give expected (the reference file) too")
            out[field] = float(v)
    return out


def _tiling_sink(k: dict, where: str, base: str, need_sources: bool) -> dict:
    """The tiling-sink fields of a kernel, checked: all or none, keys distinct integers >= 0."""
    given = [f for f in _SINK_FIELDS if f in k]
    if not given:
        return {}
    missing = [f for f in _SINK_FIELDS if f not in k]
    if missing:
        raise _err("a tiling-sink kernel needs all of " + ", ".join(_SINK_FIELDS), f"{where}.{missing[0]}",
                   allowed="its TILING_KEY_IS keys, its host tiling function's name and sources, and the bytes "
                           "of the tiling buffer the function fills")
    keys = k["tiling_keys"]
    if (not isinstance(keys, list) or not keys or len(set(map(str, keys))) != len(keys)
            or any(isinstance(x, bool) or not isinstance(x, int) or x < 0 for x in keys)):
        raise _err("tiling_keys must be a non-empty list of distinct integers >= 0", f"{where}.tiling_keys", keys,
                   "the k of each TILING_KEY_IS(k) branch of the kernel")
    if not k.get("tiling", False):
        raise _err("a tiling-sink kernel takes a tiling parameter", f"{where}.tiling", k.get("tiling", False),
                   "true: its tiling function writes the op's tiling buffer")
    srcs = _str_list(k["tiling_srcs"], f"{where}.tiling_srcs")
    if not srcs:
        raise _err("the tiling function needs a source", f"{where}.tiling_srcs", [], "the C++ file(s) defining it")
    srcs = tuple(os.path.normpath(os.path.join(base, _path(x, f"{where}.tiling_srcs"))) for x in srcs)
    for x in srcs:
        problem = infile.input_problem(x, limit=infile.SOURCE_LIMIT) if need_sources else ""
        if problem:
            raise _err("tiling function source not found" if not os.path.lexists(x)
                       else f"tiling function source {problem}", f"{where}.tiling_srcs", x)
    return {"tiling_keys": tuple(keys), "tiling_func": _name(k["tiling_func"], f"{where}.tiling_func"),
            "tiling_srcs": srcs, "tiling_bytes": _pos_int(k["tiling_bytes"], f"{where}.tiling_bytes")}


def _tasks(doc, w: str, ops, names: dict, scopes, tensors, task_where=None) -> tuple:
    """The model's external tasks, checked against what BUILD shows: a dynamic op in a SuperKernel
    has exactly one tiling task, and every event a task waits for or sends joins it to an op of the
    SuperKernel it talks to (otherwise a word would never be written: a hang)."""
    if not isinstance(doc, list):
        raise _err("tasks must be a list", w, type(doc).__name__,
                   '[{"name": ..., "kind": "tiling", "op": ..., "wait_event": N}, ...]')
    scope_of = {i: sc for sc in scopes for i in sc.ops}
    sender = {e: op for op in ops for e in op.send_events}
    receivers: dict = {}
    for op in ops:
        for e in op.recv_events:
            receivers.setdefault(e, []).append(op)
    tasks, seen, tiled = [], set(), {}
    for i, t in enumerate(doc):
        where = task_where[i] if task_where else f"{w}[{i}]"

        def at(field, where=where):
            return f"{where} (attribute {field})" if task_where else f"{where}.{field}"
        _obj(t, where, ("name", "kind"), ("op", "wait_event", "send_event", "tensor"))
        tname = _name(t["name"], at("name"))
        if tname in seen:
            raise _err("task name used twice", at("name"), tname)
        seen.add(tname)
        kind = _one_of(t["kind"], TASK_KINDS, "task kind", at("kind"))
        wait = t.get("wait_event")
        send = t.get("send_event")
        for f, e in (("wait_event", wait), ("send_event", send)):
            if e is not None:
                _pos_int(e, at(f), minimum=0)
        if kind == "tiling":
            if send is not None or "tensor" in t:
                raise _err("a tiling task sends no event and loads no tensor", f"{where}",
                           allowed="op and wait_event; it releases its op's tiling lock")
            if t.get("op") not in names:
                raise _err("a tiling task names the tiling-sink op it computes the tiling of", at("op"),
                           t.get("op"), "one of the model's ops: " + ", ".join(names))
            op = ops[names[t["op"]]]
            if not op.kernel.dynamic:
                raise _err("the op's kernel has no tiling keys: nothing waits for a tiling task", at("op"),
                           op.name, f"give {op.kernel.key} tiling_keys and a tiling function")
            if op.index in tiled:
                raise _err("two tiling tasks for one op", at("op"), op.name, f"{tiled[op.index]} is its task")
            tiled[op.index] = tname
            scope = scope_of.get(op.index)
            if wait is not None:
                src = sender.get(wait)
                if src is None or scope is None or scope_of.get(src.index) is not scope or src.index >= op.index:
                    raise _err("the tiling task waits for an event no earlier op of its op's SuperKernel sends",
                               at("wait_event"), wait,
                               f"an event in the send_events of an op before {op.name} in the same SuperKernel "
                               "(the op whose output the tiling reads)")
                if src.index == op.index - 1:
                    raise _err("the tiling task waits for an event the op right before its tiling-sink op sends: "
                               "a SuperKernel writes an op's notify with the next op's barrier, after that op has "
                               "waited at its head for its tiling, so each would wait for the other",
                               at("wait_event"), wait,
                               f"an event sent by an op at least two before {op.name} (put an op such as the "
                               "token permute between the routing op and the tiling-sink op)")
                if any(scope_of.get(r.index) is scope for r in receivers.get(wait, [])):
                    raise _err("an op of the SuperKernel receives the tiling task's event, so it is internal "
                               "and never written to memory", at("wait_event"), wait,
                               "an event only the task waits for")
            tasks.append(Task(tname, kind, op.index, wait, None, None))
            continue
        if "op" in t:
            raise _err("a prefetch task computes no op's tiling", at("op"), t["op"],
                       "tensor and send_event (and wait_event)")
        tensor = t.get("tensor")
        if tensor not in tensors:
            raise _err("a prefetch task loads a tensor", at("tensor"), tensor, "one of: " + ", ".join(tensors))
        rcv = [r for r in receivers.get(send, []) if r.index in scope_of] if send is not None else []
        if send is None or not rcv or send in sender:
            raise _err("a prefetch task sends an event that an op of a SuperKernel waits for (and no op sends)",
                       at("send_event"), send, "an id in the recv_events of the op that reads the tensor")
        if len(rcv) > 1:
            raise _err("one prefetch event per waiting op", at("send_event"), send,
                       "an event one op receives: " + ", ".join(r.name for r in rcv) + " all do")
        scope = scope_of[rcv[0].index]
        if wait is not None:
            src = sender.get(wait)
            if src is None or scope_of.get(src.index) is not scope:
                raise _err("the prefetch task waits for an event no op of its SuperKernel sends",
                           at("wait_event"), wait, f"an event sent by an op of {scope.name}")
        tasks.append(Task(tname, kind, None, wait, send, tensor))
    for sc in scopes:
        for i in sc.ops:
            if ops[i].kernel.dynamic and i not in tiled:
                raise _err("a tiling-sink op in a SuperKernel needs a tiling task: nothing else would compute its "
                           "tiling and release its lock, and the SuperKernel would wait forever",
                           f"{w}", ops[i].name, f'{{"name": ..., "kind": "tiling", "op": "{ops[i].name}", '
                                                '"wait_event": <the event its predecessor sends>}')
        for i in sc.ops:
            for e in ops[i].recv_events:
                inner = e in sender and scope_of.get(sender[e].index) is sc
                if not inner and not any(t.send_event == e for t in tasks):
                    raise _err("an op of a SuperKernel waits for an event nothing sends", f"{w}", f"{ops[i].name}: {e}",
                               "an op of the same SuperKernel or a prefetch task must send it")
    return tuple(tasks)


# An op's tiling: {"dtype": ..., "values": [...]} packed little-endian, or {"file": path} whose raw bytes
# are the tiling buffer (as the tiling.bin an operator's data script writes, e.g. with numpy's tofile).
TILING_FORMS = ('{"dtype": <one of DTYPES>, "values": [...]}', '{"file": <path relative to the data file>}')
MAX_TILING_FILE_BYTES = 1 << 20


def _tiling(value, where, kernel, base: str = "") -> bytes:
    if kernel.dynamic:
        if value is not None:
            raise _err("a tiling-sink op's tiling is its tiling function's to write", where,
                       allowed="leave it out; the kernel's tiling_bytes sizes the buffer")
        return bytes(kernel.tiling_bytes)
    if value is None:
        if kernel.tiling:
            raise _err("the kernel takes a tiling parameter", where, allowed='give {"dtype": ..., "values": [...]}')
        return b""
    if not kernel.tiling:
        raise _err("the kernel takes no tiling parameter", where, allowed=f'set "tiling": true on {kernel.key}')
    if isinstance(value, dict) and "file" in value:
        _obj(value, where, ("file",), ())
        path = os.path.normpath(os.path.join(base, _path(value["file"], f"{where}.file")))
        try:
            data = infile.read_bytes(path, MAX_TILING_FILE_BYTES)
        except (OSError, infile.NotReadable) as err:
            raise _err(f"cannot read the tiling file ({err})", f"{where}.file", value["file"]) from None
        if not data:
            raise _err("the tiling file is empty", f"{where}.file", value["file"], "the tiling struct's bytes")
        return data
    if not isinstance(value, dict) or "dtype" not in value:
        raise _err("unsupported tiling", where, value, " or ".join(TILING_FORMS))
    _obj(value, where, *datafile.keys("ops[].tiling"))
    _one_of(value["dtype"], DTYPES, "dtype", f"{where}.dtype")
    values = value["values"]
    if not isinstance(values, list) or not values:
        raise _err("values must be a non-empty list", f"{where}.values", values)
    try:
        return pack(value["dtype"], values)
    except (struct.error, OverflowError, TypeError, ValueError) as err:
        raise _err(f"values do not fit {value['dtype']} ({err})", f"{where}.values", values) from None


# ------------------------------------------------------------ BUILD + data file

# Kernel fields a data file may repeat; each must then equal BUILD's. include_dirs is not
# among them: BUILD names headers (hdrs), not directories.
_KERNEL_FIELDS = ("src", "entry", "kernel_type", "block_dim", "inputs", "outputs", "output_shape", "workspace",
                  "tiling", "op_type", "copts")


def _differs(where, here, build, label, what="BUILD"):
    return _err(f"the data file and BUILD disagree: {what} says {json.dumps(build)}", where, here,
                f"say it once, in BUILD ({label}), or make the data file agree")


def from_build(build: dict, base_dir: str, data_path: str) -> Model:
    """A model declared in BUILD (an sk_model's manifest `build` section, paths relative to base_dir)
    with its tensors and per-op runtime data (tiling, workspace_bytes) from the data file.

    The data file may also be a self-contained model (kernels, op kernel/bind,
    super_kernels): every field it gives must equal BUILD's, or an SkError
    names the field; nothing is silently taken from one side.
    """
    return from_dict(merged(build, base_dir, data_path), data_path, need_sources=False,
                     task_where=_build_task_where(build))


def _build_tasks(build: dict) -> list:
    """BUILD's tasks as the model file has them (the manifest adds each one's target label)."""
    return [{f: v for f, v in t.items() if f != "label"} for t in build.get("tasks", [])]


def _build_task_where(build: dict):
    """Errors about a task from BUILD name its target: the data file has no tasks to point at."""
    tasks = build.get("tasks", [])
    if not all("label" in t for t in tasks):
        return None
    return [f"sk_{t['kind']}_task {t['label']}" if t.get("kind") in TASK_KINDS else t["label"] for t in tasks]


def merged(build: dict, base_dir: str, data_path: str) -> dict:
    """The model document of from_build (kernel sources absolute), checked the same way."""
    check = jsonload.check_fields
    check(build, {"kernels": dict, "ops": list, "tasks": list}, "manifest: build", required=("kernels",))
    for key, k in build["kernels"].items():
        kw = f"manifest: build.kernels.{key}"
        check(k, {"src": str, "tiling_srcs": list}, kw, required=("src",))
        for i, src in enumerate(k.get("tiling_srcs", [])):
            if not isinstance(src, str):
                raise SkError(f"a source path is {jsonload.json_kind(src)}", where=f"{kw}.tiling_srcs[{i}]",
                              value=src, allowed="a string")
    data = _read(data_path)
    w = f"data {os.path.basename(data_path)}"
    _obj(data, w, *datafile.keys(""))
    if "tasks" in data and data["tasks"] != _build_tasks(build):
        raise _differs(f"{w}: tasks", data["tasks"], _build_tasks(build), "sk_model tasks")
    kernels = {}
    for key, k in build["kernels"].items():
        kernels[key] = {f: k[f] for f in _KERNEL_FIELDS + _SINK_FIELDS + CANN_FIELDS if f in k}
        kernels[key]["src"] = os.path.normpath(os.path.join(base_dir, k["src"]))
        if "binary_config" in k:
            kernels[key]["binary_config"] = os.path.normpath(os.path.join(base_dir, k["binary_config"]))
        if "tiling_srcs" in k:
            kernels[key]["tiling_srcs"] = [os.path.normpath(os.path.join(base_dir, x)) for x in k["tiling_srcs"]]
    if "kernels" in data:
        _same_kernels(data["kernels"], build, kernels, os.path.dirname(os.path.abspath(data_path)), w)
    runtime = _data_ops(data.get("ops", []), build["ops"], w)
    ops = []
    for o in build["ops"]:
        op = {"name": o["name"], "kernel": o["kernel"], "bind": dict(o["bind"])}
        op.update({f: o[f] for f in STREAM_FIELDS if o.get(f)})  # only where not the default
        extra = runtime.get(o["name"], {})
        if o["workspace_bytes"] or "workspace_bytes" in extra:
            op["workspace_bytes"] = extra.get("workspace_bytes", o["workspace_bytes"])
        if "tiling" in extra:
            op["tiling"] = extra["tiling"]
        elif kernels[o["kernel"]]["tiling"] and not kernels[o["kernel"]].get("tiling_keys"):
            raise _err("the op's kernel takes a tiling parameter; give its values in the data file",
                       f"{w}: ops", o["name"], f'{{"name": "{o["name"]}", "tiling": {{"dtype": ..., "values": [...]}}}}')
        ops.append(op)
    if "super_kernels" in data:
        _same_scopes(data["super_kernels"], build["super_kernels"], w)
    doc = {"name": data.get("name", build["name"]), "tensors": data["tensors"], "kernels": kernels, "ops": ops,
           "super_kernels": [{"name": s["name"], "ops": s["ops"], "options": s["options"]}
                             for s in build["super_kernels"]]}
    if build.get("tasks"):
        doc["tasks"] = _build_tasks(build)
    return doc


def self_contained(build: dict, base_dir: str, data_path: str, out_path: str) -> str:
    """The JSON text of the model from_build reads, as one self-contained model file (`sk run --model`)
    to be written at out_path: kernel sources relative to it, as BUILD's are to base_dir."""
    doc = merged(build, base_dir, data_path)
    from_dict(doc, data_path, need_sources=False, task_where=_build_task_where(build))
    out_dir = os.path.dirname(os.path.abspath(out_path))
    for k in doc["kernels"].values():
        k["src"] = os.path.relpath(k["src"], out_dir).replace(os.sep, "/")
        if "binary_config" in k:
            k["binary_config"] = os.path.relpath(k["binary_config"], out_dir).replace(os.sep, "/")
        if "tiling_srcs" in k:
            k["tiling_srcs"] = [os.path.relpath(x, out_dir).replace(os.sep, "/") for x in k["tiling_srcs"]]
    # Files the data file names are relative to it; BUILD's manifest says where it lies beside the
    # kernel sources (runfiles layout), so the model file finds them the same way.
    data_dir = (os.path.join(base_dir, os.path.dirname(build["data"])) if build.get("data")
                else os.path.dirname(os.path.abspath(data_path)))

    def moved(rel):
        return os.path.relpath(os.path.normpath(os.path.join(data_dir, rel)), out_dir).replace(os.sep, "/")

    for t in doc["tensors"].values():
        for field in ("file", "expected"):
            if isinstance(t, dict) and isinstance(t.get(field), str):
                t[field] = moved(t[field])
    for o in doc["ops"]:
        if isinstance(o.get("tiling"), dict) and isinstance(o["tiling"].get("file"), str):
            o["tiling"] = {"file": moved(o["tiling"]["file"])}
    return json.dumps(doc, indent=1, sort_keys=True) + "\n"


def _read(path: str):
    try:
        return jsonload.loads(infile.read_text(path))
    except FileNotFoundError:
        raise _err("model file not found", path, allowed="pass --model PATH to a model JSON") from None
    except json.JSONDecodeError as err:
        raise _err(f"not valid JSON ({err.msg} at line {err.lineno} column {err.colno})", path) from None
    except (OSError, UnicodeDecodeError) as err:
        raise _err(f"model file cannot be read ({err})", path) from None


def _same_kernels(given, build_section: dict, resolved: dict, data_dir: str, w: str) -> None:
    from sk.engine import kernel_types

    build = build_section["kernels"]
    # Where BUILD put the data file, relative to the manifest as its kernel sources are: the two meet there
    # in a build action too, whose data file is under the source root and manifest under bazel-out.
    data_rel = os.path.dirname(build_section["data"]) if build_section.get("data") else None

    if not isinstance(given, dict):
        raise _err("must be a JSON object keyed by kernel", f"{w}: kernels", type(given).__name__)
    if sorted(given) != sorted(build):
        extra = sorted(set(given) - set(build))
        missing = sorted(set(build) - set(given))
        raise _err("the data file's kernels differ from the kernels BUILD runs", f"{w}: kernels",
                   extra[0] if extra else None,
                   f"BUILD runs {', '.join(sorted(build))}" + (f"; missing here: {', '.join(missing)}" if missing else ""))
    for key, k in sorted(given.items()):
        if not isinstance(k, dict):
            raise _err("must be a JSON object", f"{w}: kernels.{key}", type(k).__name__)
        label = build[key]["label"]
        for field in _KERNEL_FIELDS + ("tiling_keys", "tiling_func", "tiling_bytes"):
            if field not in k:
                continue
            if field not in resolved[key]:
                raise _differs(f"{w}: kernels.{key}.{field}", k[field], None, label)
            here, there = k[field], resolved[key][field]
            if field == "src" and isinstance(here, str):
                same = os.path.normpath(os.path.join(data_dir, here)) == there or \
                    os.path.realpath(os.path.join(data_dir, here)) == os.path.realpath(there) or \
                    (data_rel is not None and os.path.normpath(os.path.join(data_rel, here))
                     == os.path.normpath(build[key]["src"]))
                there = build[key]["src"]
            elif field == "kernel_type" and isinstance(here, str):
                same = kernel_types.lookup(here, f"{w}: kernels.{key}.kernel_type").name == there
            elif field in ("inputs", "outputs", "copts"):
                same = here == list(there)
            else:
                same = here == there
            if not same:
                raise _differs(f"{w}: kernels.{key}.{field}", here, there, label)


def _data_ops(given, build_ops: list, w: str) -> dict:
    """name -> {workspace_bytes, tiling} of the data file's ops; their kernel/bind checked against BUILD."""
    if not isinstance(given, list):
        raise _err("ops must be a list", f"{w}: ops", type(given).__name__,
                   '[{"name": <op>, "tiling": {...}, "workspace_bytes": N}, ...]')
    names = [o["name"] for o in build_ops]
    by_name = {o["name"]: o for o in build_ops}
    full = any(isinstance(o, dict) and ("kernel" in o or "bind" in o) for o in given)
    out = {}
    for i, o in enumerate(given):
        where = f"{w}: ops[{i}]"
        _obj(o, where, *datafile.keys("ops[]"))
        name = o.get("name", o.get("kernel"))
        if full and (i >= len(names) or name != names[i]):
            raise _differs(f"{where}.name", name, names[i] if i < len(names) else None, "the run order",
                           "BUILD's run order (sk_model ops)")
        if name not in by_name:
            raise _err("BUILD runs no op of this name", f"{where}.name", name, "one of: " + ", ".join(names))
        b = by_name[name]
        if "kernel" in o and o["kernel"] != b["kernel"]:
            raise _differs(f"{where}.kernel", o["kernel"], b["kernel"], b["label"])
        for field in STREAM_FIELDS:
            if field in o and o[field] != b.get(field, [] if field != "stream" else 0):
                raise _differs(f"{where}.{field}", o[field], b.get(field), b["label"])
        if "bind" in o:
            bind = o["bind"]
            if not isinstance(bind, dict):
                raise _err("bind must map parameter names to tensors", f"{where}.bind", bind)
            for p in sorted(set(bind) | set(b["bind"])):
                if bind.get(p) != b["bind"].get(p):
                    raise _differs(f"{where}.bind.{p}", bind.get(p), b["bind"].get(p), b["label"])
        if name in out:
            raise _err("op listed twice", f"{where}.name", name, "give each op's runtime data once")
        out[name] = {k: o[k] for k in ("workspace_bytes", "tiling") if k in o}
    if full and len(given) != len(names):
        raise _differs(f"{w}: ops", len(given), len(names), "the run order", "BUILD's run order (sk_model ops)")
    return out


def _same_scopes(given, build: list, w: str) -> None:
    from sk.engine.options import parse_options

    if not isinstance(given, list):
        raise _err("super_kernels must be a list of scopes", f"{w}: super_kernels", type(given).__name__)
    if len(given) != len(build):
        raise _differs(f"{w}: super_kernels", [s.get("name") if isinstance(s, dict) else s for s in given],
                       [s["name"] for s in build], "the run order", "BUILD's run order (sk_model ops)")
    for i, (s, b) in enumerate(zip(given, build)):
        where = f"{w}: super_kernels[{i}]"
        _obj(s, where, (), ("name", "ops", "options"))
        for field in ("name", "ops"):
            if field in s and s[field] != b[field]:
                raise _differs(f"{where}.{field}", s[field], b[field], b["label"])
        if "options" in s:
            here = parse_options(s["options"]).to_json() if isinstance(s["options"], str) else None
            there = parse_options(b["options"]).to_json()
            if here != there:
                ours, theirs = (here or {}).get("options", {}), there.get("options", {})
                keys = sorted(k for k in set(ours) | set(theirs) if ours.get(k) != theirs.get(k))
                raise _differs(f"{where}.options" + (f" ({keys[0]})" if keys else ""),
                               s["options"], b["options"], b["label"])
