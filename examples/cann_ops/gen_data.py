"""Writes the example's inputs, tiling buffers and reference outputs (data/), as an operator's
data script does: inputs as .npy, tiling structs as raw .bin, references computed with numpy.

    python3 examples/cann_ops/gen_data.py [OUT_DIR]     (default: examples/cann_ops/data)

test_references.py runs it again and checks that data/ holds exactly what it writes.
"""

import os
import sys

import numpy as np

N = 2048            # elements per tensor: 8 blocks x 256
BLOCK_DIM = 8
UB_FACTOR = 64

# ScaledAddTilingData (scaled_add/op_kernel/scaled_add_tiling_data.h), little-endian, no padding.
TILING = np.dtype([("totalNum", "<i8"), ("blockFactor", "<i8"), ("ubFactor", "<i8"),
                   ("alpha", "<f4"), ("reserved", "<f4")])

WRONG_INDEX = 1234

# op name -> alpha (BUILD's sk_op targets)
ALPHA = {"sa": 1.5, "sb": 0.5, "sc": 2.0}
# op name -> scale of the KeyedScale ops (KeyedScaleTilingData has ScaledAddTilingData's layout:
# totalNum, blockFactor, ubFactor, scale, reserved)
KEYED_SCALE = {"ka": 0.75, "kb": 3.0}
# scale of the BiasedScale ops bs and bn (BiasedScaleTilingData: the same layout), a power of two so
# that bn's x * scale is exact in bfloat16 and its reference is compared bit for bit.
BIASED_SCALE = 2.0


def relu(v):
    return np.maximum(v, 0)


def main(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    rng = np.random.default_rng(2024)
    a = rng.uniform(-3, 3, N).astype(np.float32)
    b = rng.uniform(-3, 3, N).astype(np.float32)
    c = rng.uniform(-2, 2, N).astype(np.float16)
    d = rng.uniform(-2, 2, N).astype(np.float16)
    # The pipeline of BUILD's super_kernel `pipeline`, in float32 as the kernels compute:
    h = relu(a * np.float32(ALPHA["sa"]) + b)                         # sa: ScaledAdd f32, mode add, relu
    s = h * h                                                          # sq: square (plain kernel)
    r = relu(s * np.float32(ALPHA["sb"]) - a)                          # sb: ScaledAdd f32, mode sub, relu
    e = (c.astype(np.float32) * np.float32(ALPHA["sc"]) + d.astype(np.float32)).astype(np.float16)  # sc: f16
    # ka, kb: KeyedScale (keyed_scale/, TILING_KEY_IS 1 = float32, 2 = float16), y = |x| * scale.
    k = np.abs(a) * np.float32(KEYED_SCALE["ka"])
    k16 = (np.abs(c.astype(np.float32)) * np.float32(KEYED_SCALE["kb"])).astype(np.float16)
    arrays = {"a": a, "b": b, "c": c, "d": d, "h_golden": h, "s_golden": s, "r_golden": r, "e_golden": e,
              "k_golden": k, "k16_golden": k16}
    for name, arr in arrays.items():
        np.save(os.path.join(out_dir, name + ".npy"), arr)
    # bs, bn: BiasedScale in bfloat16 (biased_scale/), y = x * scale (+ bias; bn leaves bias out).
    # numpy has no bfloat16: tensors are their bit patterns (uint16), the upper half of a float32;
    # the inputs are float32 values cut to 16 bits (exact bfloat16 values), the references float32.
    p_bits = (rng.uniform(-3, 3, N).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    q_bits = (rng.uniform(-3, 3, N).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)
    widen = lambda bits: (bits.astype(np.uint32) << 16).view(np.float32)
    u = widen(p_bits) * np.float32(BIASED_SCALE) + widen(q_bits)        # rounded by the kernel: tolerance
    v_bits = (widen(p_bits) * np.float32(BIASED_SCALE)).view(np.uint32)  # x * 2 is exact in bfloat16
    assert not (v_bits & 0xFFFF).any()
    v_bits = (v_bits >> 16).astype(np.uint16)
    np.save(os.path.join(out_dir, "p_bf16.npy"), p_bits)
    q_bits.tofile(os.path.join(out_dir, "q_bf16.bin"))
    np.save(os.path.join(out_dir, "u_golden.npy"), u)
    np.save(os.path.join(out_dir, "v_golden_bf16.npy"), v_bits)
    arrays.update({"p_bf16": p_bits, "q_bf16": q_bits, "u_golden": u, "v_golden_bf16": v_bits})
    # A deliberately wrong reference (wrong/r.npy, data_wrong_reference.json): one element off, which
    # the run must report by tensor name and index.
    wrong = r.copy()
    wrong[WRONG_INDEX] += 1.0
    os.makedirs(os.path.join(out_dir, "wrong"), exist_ok=True)
    np.save(os.path.join(out_dir, "wrong", "r.npy"), wrong)
    for op, alpha in ALPHA.items():
        t = np.zeros(1, TILING)
        t[0] = (N, N // BLOCK_DIM, UB_FACTOR, alpha, 0.0)
        t.tofile(os.path.join(out_dir, "tiling_%s.bin" % op))
    t = np.zeros(1, TILING)
    t[0] = (N, N // BLOCK_DIM, UB_FACTOR, BIASED_SCALE, 0.0)
    t.tofile(os.path.join(out_dir, "tiling_bs.bin"))
    for op, scale in KEYED_SCALE.items():
        t = np.zeros(1, TILING)
        t[0] = (N, N // BLOCK_DIM, UB_FACTOR, scale, 0.0)
        t.tofile(os.path.join(out_dir, "tiling_%s.bin" % op))
    return arrays


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "data"))
