"""Synthetic models for `sk run` (sk/twin/model.py format): long vector chains with independent branches and
small op graphs of vector, cube and mixed kernels.

    doc = chain_model(60, independent_every=4)     # a model dict
    path = write_model(doc, some_dir)               # model.json + kernels/*.cpp
    sk.twin.run.run_model(path, ...)                # or model.load(path) + run.build/execute

Kernels (sources in KERNEL_SOURCES, written by write_model), all over int32
tensors of ELEMENTS values with unsigned (wrapping, so well-defined)
arithmetic. Each block owns one tile of `out` but reads `a` one tile further
on, so an op depends on other blocks' output of the op that wrote `a`: fusing
a dependent pair is only correct with a barrier between them.
  * vadd  (AIV_ONLY):    out[i] = a[(i + tile) % N] + b[i] + ADD
  * cmul  (AIC_ONLY):    out[i] = a[(i + tile) % N] * 3 + b[i] + ADD
  * mixk  (MIX_AIC_1_2): the cube of AI core c fills the first half of tile c
                         with cmul's formula, its two vector cores a quarter
                         each with vadd's
  * vaddm (MIX_AIV_1_0), cmulm (MIX_AIC_1_0): vadd and cmul as MIX kernels of one side
  * mix11 (MIX_AIC_1_1): as mixk with one vector core per AI core filling the second half
  * dynamic (tiling-sink) kernels: DYNAMIC_KINDS below
Defines (per kernel, through "copts"): SK_ADD (the constant), SK_SPIN_BLOCK
and SK_SPIN (that block busy-waits SK_SPIN iterations before writing: makes
a missing barrier show as a wrong result, not only as a race).
"""

from __future__ import annotations

import json
import os

ELEMENTS = 2048
KINDS = {"vadd": "AIV_ONLY", "cmul": "AIC_ONLY", "mixk": "MIX_AIC_1_2"}
# The same computations under the other kernel types (a kernel of every type, for the differential test).
MORE_KINDS = {"vaddm": "MIX_AIV_1_0", "cmulm": "MIX_AIC_1_0", "mix11": "MIX_AIC_1_1"}
ALL_KINDS = {**KINDS, **MORE_KINDS}

_HEADER = r"""#include "kernel_operator.h"

#ifndef SK_ADD
#define SK_ADD 1
#endif
#ifndef SK_SPIN_BLOCK
#define SK_SPIN_BLOCK -1
#endif
#ifndef SK_SPIN
#define SK_SPIN 0
#endif

constexpr int64_t kElems = %(elements)d;

__aicore__ inline void SpinIfSlow(int64_t block) {
    if (block == SK_SPIN_BLOCK) {
        for (volatile int64_t s = 0; s < SK_SPIN; s = s + 1) {
        }
    }
}

__aicore__ inline void VecPart(GM_ADDR a, GM_ADDR b, GM_ADDR out, int64_t begin, int64_t end, int64_t tile) {
    __gm__ const uint32_t* x = (__gm__ const uint32_t*)a;
    __gm__ const uint32_t* y = (__gm__ const uint32_t*)b;
    __gm__ uint32_t* z = (__gm__ uint32_t*)out;
    for (int64_t i = begin; i < end; ++i) z[i] = x[(i + tile) %% kElems] + y[i] + (uint32_t)SK_ADD;
}

__aicore__ inline void CubePart(GM_ADDR a, GM_ADDR b, GM_ADDR out, int64_t begin, int64_t end, int64_t tile) {
    __gm__ const uint32_t* x = (__gm__ const uint32_t*)a;
    __gm__ const uint32_t* y = (__gm__ const uint32_t*)b;
    __gm__ uint32_t* z = (__gm__ uint32_t*)out;
    for (int64_t i = begin; i < end; ++i) z[i] = x[(i + tile) %% kElems] * 3u + y[i] + (uint32_t)SK_ADD;
}
"""

# A MIX kernel: the cube of AI core c fills the first half of tile c, its RATION vector cores the rest.
_MIX = r"""
extern "C" __global__ __aicore__ void NAME(GM_ADDR a, GM_ADDR b, GM_ADDR out) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_KTYPE);
    const int64_t tile = kElems / AscendC::GetBlockNum();
    if ASCEND_IS_AIC {
        const int64_t core = get_block_idx();
        SpinIfSlow(core);
        CubePart(a, b, out, core * tile, core * tile + tile / 2, tile);
    }
    if ASCEND_IS_AIV {
        const int64_t core = AscendC::GetBlockIdx() / RATION;
        const int64_t begin = core * tile + tile / 2 + AscendC::GetSubBlockIdx() * (tile / SHARE);
        VecPart(a, b, out, begin, begin + tile / SHARE, tile);
    }
}
"""

KERNEL_SOURCES = {
    "vadd.cpp": _HEADER + r"""
extern "C" __global__ __aicore__ void vadd(GM_ADDR a, GM_ADDR b, GM_ADDR out) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    const int64_t tile = kElems / AscendC::GetBlockNum();
    const int64_t block = AscendC::GetBlockIdx();
    SpinIfSlow(block);
    VecPart(a, b, out, block * tile, (block + 1) * tile, tile);
}
""",
    "cmul.cpp": _HEADER + r"""
extern "C" __global__ __aicore__ void cmul(GM_ADDR a, GM_ADDR b, GM_ADDR out) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY);
    const int64_t tile = kElems / AscendC::GetBlockNum();
    const int64_t block = get_block_idx();
    SpinIfSlow(block);
    CubePart(a, b, out, block * tile, (block + 1) * tile, tile);
}
""",
    "mixk.cpp": _HEADER + _MIX.replace("NAME", "mixk").replace("KTYPE", "MIX_AIC_1_2").replace(
        "RATION", "2").replace("SHARE", "4"),
    # One vector core per AI core: it fills the whole second half.
    "mix11.cpp": _HEADER + _MIX.replace("NAME", "mix11").replace("KTYPE", "MIX_AIC_1_1").replace(
        "RATION", "1").replace("SHARE", "2"),
}
for _kind, _base in (("vaddm", "vadd"), ("cmulm", "cmul")):
    KERNEL_SOURCES[f"{_kind}.cpp"] = KERNEL_SOURCES[f"{_base}.cpp"].replace(
        f"void {_base}(", f"void {_kind}(").replace(
        f"KERNEL_TYPE_{KINDS[_base]}", f"KERNEL_TYPE_{MORE_KINDS[_kind]}")

# Tiling-sink (dynamic) kernels: their tiling function picks the key and the block count from the first
# value of `b`, a model input no op writes (so the AI CPU tiling task needs no event). Inside a
# SuperKernel every launched core of their side calls them and GetBlockNum() is the tiling's count.
#   dvadd  (AIV_ONLY), dcmul (AIC_ONLY): key 1 vadd's formula, key 2 cmul's, on the tiling's blocks
#   dvsync (AIV_ONLY): SyncAll<true> between two phases (all launched cores take part): each block
#                      stages its tile in the workspace, then writes out[i] = ws[(i + tile) % N] + ADD
#   dvearly (AIV_ONLY): dvadd that also calls SetNextTaskStart(): fusing it is refused (early start)
DYNAMIC_KINDS = {"dvadd": "AIV_ONLY", "dcmul": "AIC_ONLY", "dvsync": "AIV_ONLY", "dvearly": "AIV_ONLY"}
DYNAMIC_BLOCK_DIM = 8     # the most blocks a dynamic kernel's tiling asks for
DYNAMIC_TILING = "kernels/dyn_tiling.cpp"

_DYNAMIC = r"""
extern "C" __global__ __aicore__ void NAME(GM_ADDR a, GM_ADDR b, GM_ADDR out, GM_ADDR workspace, GM_ADDR tiling) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_KTYPE);
    const int64_t block = IDX;
    if (block >= AscendC::GetBlockNum()) return;
    const int64_t tile = kElems / AscendC::GetBlockNum();
    SpinIfSlow(block);
    if (TILING_KEY_IS(1)) {
        VecPart(a, b, out, block * tile, (block + 1) * tile, tile);
    } else if (TILING_KEY_IS(2)) {
        CubePart(a, b, out, block * tile, (block + 1) * tile, tile);
    }
    EXTRA
}
"""
KERNEL_SOURCES["dvadd.cpp"] = _HEADER + _DYNAMIC.replace("NAME", "dvadd").replace("KTYPE", "AIV_ONLY").replace(
    "IDX", "AscendC::GetBlockIdx()").replace("EXTRA", "")
KERNEL_SOURCES["dcmul.cpp"] = _HEADER + _DYNAMIC.replace("NAME", "dcmul").replace("KTYPE", "AIC_ONLY").replace(
    "IDX", "get_block_idx()").replace("EXTRA", "")
KERNEL_SOURCES["dvearly.cpp"] = _HEADER + _DYNAMIC.replace("NAME", "dvearly").replace("KTYPE", "AIV_ONLY").replace(
    "IDX", "AscendC::GetBlockIdx()").replace("EXTRA", "AscendC::SetNextTaskStart();")
KERNEL_SOURCES["dvsync.cpp"] = _HEADER + r"""
extern "C" __global__ __aicore__ void dvsync(GM_ADDR a, GM_ADDR b, GM_ADDR out, GM_ADDR workspace, GM_ADDR tiling) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    const int64_t block = AscendC::GetBlockIdx();
    const int64_t n = AscendC::GetBlockNum();
    const int64_t tile = kElems / n;
    if (block < n) {
        SpinIfSlow(block);
        VecPart(a, b, workspace, block * tile, (block + 1) * tile, tile);
    }
    AscendC::SyncAll<true>();
    if (block >= n) return;
    __gm__ const uint32_t* ws = (__gm__ const uint32_t*)workspace;
    __gm__ uint32_t* z = (__gm__ uint32_t*)out;
    for (int64_t i = block * tile; i < (block + 1) * tile; ++i) z[i] = ws[(i + tile) %% kElems] + (uint32_t)SK_ADD;
}
"""
TILING_SOURCES = {"dyn_tiling.cpp": r"""#include "sk_tiling.h"

struct DynTiling {
    int32_t blocks;
    int32_t key;
};

extern "C" int dyn_tiling(SkTilingContext* ctx) {
    const int32_t v = ctx->Input<int32_t>(1)[0];   // inputs: a, b
    const uint32_t choices[4] = {1, 2, 4, 8};
    uint32_t blocks = choices[(v < 0 ? -v : v) % 4];
    if (blocks > ctx->max_block_dim) blocks = ctx->max_block_dim;
    DynTiling* t = ctx->TilingData<DynTiling>();
    t->blocks = (int32_t)blocks;
    t->key = (v & 1) ? 1 : 2;
    ctx->SetTilingKey((uint64_t)t->key);
    ctx->SetBlockDim(blocks);
    return 0;
}
"""}
for _name in KERNEL_SOURCES:
    KERNEL_SOURCES[_name] = KERNEL_SOURCES[_name] % {"elements": ELEMENTS}
KERNEL_SOURCES.update(TILING_SOURCES)


def kernel(kind: str, block_dim: int, add: int = 1, spin_block: int | None = None, spin: int = 0) -> dict:
    """A model "kernels" entry for one of ALL_KINDS."""
    if kind not in ALL_KINDS:
        raise ValueError(f"kind {kind!r} is not one of {sorted(ALL_KINDS)}")
    if ELEMENTS % (block_dim * 4):
        raise ValueError(f"block_dim {block_dim} must divide {ELEMENTS // 4}")
    copts = [f"-DSK_ADD={add}"]
    if spin_block is not None:
        copts += [f"-DSK_SPIN_BLOCK={spin_block}", f"-DSK_SPIN={spin}"]
    return {"src": f"kernels/{kind}.cpp", "entry": kind, "kernel_type": ALL_KINDS[kind], "block_dim": block_dim,
            "inputs": ["a", "b"], "outputs": ["out"], "op_type": kind.capitalize(), "copts": copts}


def dynamic_kernel(kind: str, add: int = 1) -> dict:
    """A model "kernels" entry for one of DYNAMIC_KINDS (needs a tiling task per op: dynamic_task)."""
    if kind not in DYNAMIC_KINDS:
        raise ValueError(f"kind {kind!r} is not one of {sorted(DYNAMIC_KINDS)}")
    return {"src": f"kernels/{kind}.cpp", "entry": kind, "kernel_type": DYNAMIC_KINDS[kind],
            "block_dim": DYNAMIC_BLOCK_DIM, "inputs": ["a", "b"], "outputs": ["out"],
            "op_type": kind.capitalize(), "copts": [f"-DSK_ADD={add}"], "workspace": True, "tiling": True,
            "tiling_keys": [1, 2], "tiling_func": "dyn_tiling", "tiling_srcs": [DYNAMIC_TILING], "tiling_bytes": 8}


def dynamic_task(op: str) -> dict:
    """The AI CPU tiling task of a dynamic op (its tiling reads only a model input: no event to wait for)."""
    return {"name": f"tiling_{op}", "kind": "tiling", "op": op}


def model(name: str, tensors, kernels: dict, ops, options: str = "sync-elision=1", fuse: bool = True) -> dict:
    """A model over int32 tensors of ELEMENTS values; ops are (op name, kernel key, a, b, out)."""
    doc = {
        "name": name,
        "tensors": {t: {"dtype": "int32", "shape": [ELEMENTS]} for t in tensors},
        "kernels": kernels,
        "ops": [{"name": o, "kernel": k, "bind": {"a": a, "b": b, "out": out}} for o, k, a, b, out in ops],
    }
    if fuse:
        doc["super_kernels"] = [{"name": f"{name}_sk", "ops": [o[0] for o in ops], "options": options}]
    return doc


def chain_model(n: int, independent_every: int | None = None, *, variants: int = 4, block_dim: int = 8,
                options: str = "sync-elision=1", name: str | None = None) -> dict:
    """n vadd ops fused into one SuperKernel: op i computes t<i> from t<i-1> and the input y.

    Every `independent_every`-th op (i > 0, i % k == 0) starts a new branch from the
    input x instead of t<i-1>: it has no hazard with op i-1, so sync-elision drops
    that barrier; the next op depends on it again. Expected with sync-elision=1:
    naive n-1 barriers, (n-1)//k elided (none without k). `variants` distinct
    kernels (SK_ADD 1..variants) cycle along the chain."""
    if n < 1:
        raise ValueError("a chain needs at least one op")
    if independent_every is not None and independent_every < 1:
        raise ValueError("independent_every must be >= 1")
    kernels = {f"vadd{v}": kernel("vadd", block_dim, add=v + 1) for v in range(variants)}
    ops = []
    for i in range(n):
        fresh = i == 0 or (independent_every is not None and i % independent_every == 0)
        ops.append((f"op{i}", f"vadd{i % variants}", "x" if fresh else f"t{i - 1}", "y", f"t{i}"))
    tensors = ["x", "y"] + [f"t{i}" for i in range(n)]
    return model(name or f"chain{n}", tensors, kernels, ops, options)


def write_model(doc: dict, directory) -> str:
    """Writes doc as <directory>/model.json with the kernel sources beside it; returns the path."""
    os.makedirs(os.path.join(directory, "kernels"), exist_ok=True)
    for fname, text in sorted(KERNEL_SOURCES.items()):
        with open(os.path.join(directory, "kernels", fname), "w", encoding="utf-8") as f:
            f.write(text)
    path = os.path.join(directory, "model.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    return path
