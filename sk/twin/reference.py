"""Real data out of the twin: output tensors as .npy files, and comparisons with reference files.

A tensor of the model with `expected` (sk/twin/datafile.py) must hold those contents
after the separate run and after the fused run, element by element within
|got - want| <= atol + rtol * |want| (NaN equals NaN; integers by default exactly). A failure
names the run, the tensor, the first differing index and both values.
"""

from __future__ import annotations

import math
import os
from collections import namedtuple

from sk.base.toolrun import write_files_atomic
from sk.binfmt import npy
from sk.twin import model as model_mod

RefMismatch = namedtuple("RefMismatch", "run tensor file index got want bad total rtol atol")


def _index(flat: int, shape) -> tuple:
    out = []
    for d in reversed(shape):
        out.append(flat % d)
        flat //= d
    return tuple(reversed(out))


def _close(got, want, rtol: float, atol: float) -> bool:
    if isinstance(got, float) and (math.isnan(got) or math.isnan(want)):
        return math.isnan(got) and math.isnan(want)
    if isinstance(got, float) and (math.isinf(got) or math.isinf(want)):
        return got == want
    return abs(got - want) <= atol + rtol * abs(want)


def compare(t: model_mod.Tensor, got_bytes: bytes, run: str, want_bytes: bytes | None = None):
    """A RefMismatch for tensor t (its first differing element) or None when it matches `expected`."""
    want_dtype = t.dtype
    if want_bytes is None:
        want_dtype, want_bytes = model_mod.read_tensor(t, t.expected, "expected", wide=True)
    rtol, atol = t.tolerance
    got, want = model_mod.unpack(t.dtype, got_bytes), model_mod.unpack(want_dtype, want_bytes)
    first, bad = None, 0
    for i, (g, w) in enumerate(zip(got, want)):
        if not _close(g, w, rtol, atol):
            bad += 1
            if first is None:
                first = i
    if first is None:
        return None
    return RefMismatch(run, t.name, os.path.basename(t.expected), _index(first, t.shape), got[first], want[first],
                       bad, len(got), rtol, atol)


def check(m: model_mod.Model, snapshot: dict, run: str) -> list:
    """The RefMismatches of every tensor with `expected`, in name order, after `run`."""
    out = []
    for name, t in sorted(m.tensors.items()):
        if t.expected:
            mm = compare(t, snapshot[name], run)
            if mm:
                out.append(mm)
    return out


def line(mm: RefMismatch) -> str:
    return (f"REFERENCE MISMATCH {mm.tensor} ({mm.run}): at index {list(mm.index)} got {mm.got!r}, "
            f"expected {mm.want!r} ({mm.file}); {mm.bad} of {mm.total} elements outside "
            f"rtol={mm.rtol:g} atol={mm.atol:g}")


def write_outputs(m: model_mod.Model, snapshots: dict, out_dir: str) -> list:
    """<out_dir>/<run>/<tensor>.npy for every output tensor of each run (snapshots: run -> name -> bytes);
    the paths written, sorted."""
    files = {}
    for run, snap in sorted(snapshots.items()):
        for name in m.output_tensors():
            t = m.tensors[name]
            stored = model_mod.NPY_DTYPE.get(t.dtype, t.dtype)  # bfloat16: its bits, as uint16
            files[os.path.join(out_dir, run, name + ".npy")] = npy.dumps(stored, t.shape, snap[name])
    write_files_atomic(files)
    return sorted(files)
