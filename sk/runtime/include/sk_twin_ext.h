/*
 * sk_twin_ext.h - the C ABI behind the wider Ascend C vector surface
 * (sk_twin_vector_ext.h): the mask/repeat ("tensor high-dimension slicing")
 * forms of the vector instructions, the mask and atomic registers, the
 * logic and shift instructions, Gather/GatherMask, the per-repeat
 * reductions, Brcb and the index fills. Implemented in src/vector_ext.cc
 * and src/atomic.cc; every hook checks the hardware's rules and fails the
 * launch with a message naming the call and its values.
 */
#ifndef SK_TWIN_EXT_H_
#define SK_TWIN_EXT_H_

#include <stdint.h>

#include "sk_twin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Element-wise operations beyond SK_TWIN_V_* (which keep their codes). */
#define SK_TWIN_X_AND 32u
#define SK_TWIN_X_OR 33u
#define SK_TWIN_X_NOT 34u
#define SK_TWIN_X_SHIFT_LEFT 35u
#define SK_TWIN_X_SHIFT_RIGHT 36u
#define SK_TWIN_X_AXPY 37u
#define SK_TWIN_X_CAST 38u
#define SK_TWIN_X_COPY 39u
#define SK_TWIN_X_COMPARE 40u  /* dst: bit mask; src1 NULL: the scalar (Compares) */
#define SK_TWIN_X_SELECT 41u   /* sel: the bit mask; src1 NULL: the scalar (mode 1) */
#define SK_TWIN_X_COMPARE_REG 42u  /* Compare into the CMPMASK register (no dst) */
#define SK_TWIN_X_SELECT_REG 43u   /* Select by the CMPMASK register */
/* Element-wise math of the high-level API (floating types, count form). */
#define SK_TWIN_X_FLOOR 44u
#define SK_TWIN_X_CEIL 45u
#define SK_TWIN_X_TRUNC 46u
#define SK_TWIN_X_ROUND 47u   /* half away from zero */
#define SK_TWIN_X_SIGN 48u
#define SK_TWIN_X_SIN 49u
#define SK_TWIN_X_COS 50u
#define SK_TWIN_X_TAN 51u
#define SK_TWIN_X_TANH 52u
#define SK_TWIN_X_SINH 53u
#define SK_TWIN_X_COSH 54u
#define SK_TWIN_X_ATAN 55u
#define SK_TWIN_X_ERF 56u
#define SK_TWIN_X_LOG2 57u
#define SK_TWIN_X_LOG10 58u
#define SK_TWIN_X_POWER 59u   /* src0 ^ (src1 or the scalar); scalar ^ src0 with mode 1 */
#define SK_TWIN_X_ASIN 60u
#define SK_TWIN_X_ACOS 61u
#define SK_TWIN_X_ERFC 62u
#define SK_TWIN_X_SIGMOID 63u  /* 1 / (1 + e^-x) */
#define SK_TWIN_X_ASINH 64u
#define SK_TWIN_X_ACOSH 65u
#define SK_TWIN_X_ATANH 66u
#define SK_TWIN_X_FUSED_MUL_ADD 67u  /* dst = src0 * dst + src1 */
#define SK_TWIN_X_MUL_ADD_DST 68u    /* dst = src0 * src1 + dst (src: src_dtype) */
#define SK_TWIN_X_END 69u

/* How the lanes of a call are chosen. */
#define SK_TWIN_MASK_COUNT 0u  /* count form: mask[0] elements, contiguous */
#define SK_TWIN_MASK_CONT 1u   /* mask[0] leading lanes per repeat (counter mode: elements in all) */
#define SK_TWIN_MASK_BITS 2u   /* mask[0] lanes 0-63, mask[1] lanes 64-127 (counter mode: mask[0] elements) */
#define SK_TWIN_MASK_REG 3u    /* the worker's mask register (isSetMask = false / no mask argument) */

/* One vector instruction. Strides are in 32-byte blocks. */
typedef struct SkTwinRep {
  uint32_t op;         /* SK_TWIN_V_* or SK_TWIN_X_* */
  uint32_t dtype;      /* element type of dst (of the sources for COMPARE) */
  uint32_t src_dtype;  /* element type of src0/src1 (CAST, AXPY); else = dtype */
  uint32_t mask_kind;  /* SK_TWIN_MASK_* */
  uint64_t mask[2];
  int64_t repeat;      /* repeatTime as the kernel passed it (checked 0..255) */
  uint32_t dst_blk, src0_blk, src1_blk;
  uint32_t dst_rep, src0_rep, src1_rep;
  uint32_t unary;      /* the call took UnaryRepeatParams (for the message) */
  uint32_t mode;       /* RoundMode (CAST), CMPMODE (COMPARE), SELMODE (SELECT) */
  uint64_t scalar;     /* the bits of a scalar of src_dtype */
  const SkTwinLocalRef* dst;
  const SkTwinLocalRef* src0;
  const SkTwinLocalRef* src1;
  const SkTwinLocalRef* sel;
} SkTwinRep;
void sk_twin_rep(const SkTwinRep* rep);

/* The vector mask register: what 0 SetMaskNorm, 1 SetMaskCount,
 * 2 SetVectorMask(high, low), 3 ResetMask (all lanes, normal mode). */
void sk_twin_mask(uint32_t what, uint64_t high, uint64_t low);

/* Atomic accumulation of UB -> GM copies: kind 0 none, 1 add, 2 max, 3 min;
 * dtype the element type it was set for. */
void sk_twin_set_atomic(uint32_t kind, uint32_t dtype);

/* Gather: dst[i] = src[(base + offset[i]) / sizeof(T)], offsets in bytes
 * (uint32). mask_kind COUNT (mask[0] = count) or CONT/BITS with repeat and
 * dst_rep (32-byte blocks). */
void sk_twin_gather(uint32_t dtype, const SkTwinLocalRef* dst, const SkTwinLocalRef* src,
                    const SkTwinLocalRef* offsets, uint32_t base, uint32_t mask_kind, const uint64_t* mask,
                    int64_t repeat, uint32_t dst_rep);

/* GatherMask: pattern 1..7 (built in) or a pattern tensor (pattern 0);
 * reduce_mode 1 = counter mode (mask elements in all); returns the count kept. */
uint64_t sk_twin_gather_mask(uint32_t dtype, const SkTwinLocalRef* dst, const SkTwinLocalRef* src0,
                             const SkTwinLocalRef* pattern_tensor, uint32_t pattern, uint32_t reduce_mode,
                             uint32_t mask, uint32_t src0_blk, int64_t repeat, uint32_t src0_rep,
                             uint32_t src1_rep);

/* Broadcast (dim 1 or 2): dst[i][j] = src[i or 0][j or 0] where the source
 * dimension is 1; every other dimension must be equal. */
void sk_twin_broadcast(uint32_t dtype, const SkTwinLocalRef* dst, const SkTwinLocalRef* src, uint32_t dim,
                       const uint32_t* dst_shape, const uint32_t* src_shape);

/* The high-level ReduceSum/Max/Min over one axis of a [rows, cols] tensor
 * (op SK_TWIN_V_REDUCE_*): ar 1 reduces each row (Pattern AR), 0 each column
 * (RA); inner_pad: rows are stored 32-byte aligned. */
void sk_twin_reduce_axis(uint32_t op, uint32_t dtype, const SkTwinLocalRef* dst, const SkTwinLocalRef* src,
                         uint32_t rows, uint32_t cols, uint32_t ar, uint32_t inner_pad);

/* MrgSort: merges the valid ones of 4 descending (score, index) lists of
 * lens[i] pairs into dst, descending, ties taken from the lower list first;
 * stop_exhausted: stop when a list runs out; repeat: the 4 lists are
 * contiguous and each repeat moves all of them (and dst) by their total. */
void sk_twin_mrgsort(uint32_t dtype, const SkTwinLocalRef* dst, const SkTwinLocalRef* srcs, const uint16_t* lens,
                     uint32_t valid_bits, uint32_t stop_exhausted, int64_t repeat);

/* TransDataTo5HD: repeat r reads DataBlock i at src i + off_src as row i of
 * a matrix; 16-bit: element j of it goes to element i of DataBlock j at
 * dst j + off_dst; 8-bit: element (src_high ? 16 : 0) + j goes to byte
 * (dst_high ? 16 : 0) + i of DataBlock j (the other half is kept); 32-bit:
 * element p goes to element i % 8 of DataBlock 2p + i / 8 (NC1HWC0 with
 * C0 = 16). off = stride * 32 bytes for a single repeat and r * stride * 32
 * otherwise (as documented). refs: the 16 LocalTensors of each list, or NULL
 * with addrs: raw UB addresses. */
void sk_twin_trans5hd(uint32_t dtype, const SkTwinLocalRef* dst_refs, const SkTwinLocalRef* src_refs,
                      const uint64_t* dst_addrs, const uint64_t* src_addrs, int64_t repeat, uint32_t dst_rep,
                      uint32_t src_rep, uint32_t dst_high, uint32_t src_high);

/* The sort family, layout of Atlas A2/A3 (8-byte (score, index) pairs: the
 * score in the low bytes, the uint32 index in the high 4). what 0 Concat
 * (16 elements a repeat copied as they are), 1 Sort (32 a repeat, descending,
 * equal scores keep their order; full: all repeat * 32 at once), 2 Extract
 * (32 a repeat: values to dst, indices to index). */
void sk_twin_sort(uint32_t what, uint32_t dtype, const SkTwinLocalRef* dst, const SkTwinLocalRef* src,
                  const SkTwinLocalRef* index, int64_t repeat, uint32_t full);

/* SetDeqScale(half): the DEQSCALE register Cast int32_t -> half multiplies by. */
void sk_twin_set_deq_scale(uint64_t half_bits);

/* The count of the last GatherMask (AscendCUtils::GetRsvdCnt). */
uint64_t sk_twin_rsvd_cnt(void);

/* The ACC_VAL register: the bits of the last ReduceSum (count form) result. */
uint64_t sk_twin_acc_val(void);

/* GetMrgSortResult: the pairs the last MrgSort took from each of its 4 lists. */
void sk_twin_mrg_sort_result(uint16_t* taken);

/* WholeReduceSum/Max/Min (op SK_TWIN_V_REDUCE_*), PairReduceSum (op 1000)
 * and BlockReduceSum/Max/Min (op + 100): one result group per repeat.
 * order: AscendC::ReduceOrder value (Max/Min). */
void sk_twin_repeat_reduce(uint32_t op, uint32_t dtype, const SkTwinLocalRef* dst, const SkTwinLocalRef* src,
                           uint32_t mask_kind, const uint64_t* mask, int64_t repeat, uint32_t dst_rep,
                           uint32_t src_blk, uint32_t src_rep, uint32_t order);

/* Brcb: each of the repeat * 8 source elements fills one 32-byte block. */
void sk_twin_brcb(uint32_t dtype, const SkTwinLocalRef* dst, const SkTwinLocalRef* src, int64_t repeat,
                  uint32_t dst_blk, uint32_t dst_rep);

/* dst[i] = first + i * diff (ArithProgression, CreateVecIndex), bits of T. */
void sk_twin_arith(uint32_t dtype, const SkTwinLocalRef* dst, uint64_t first, uint64_t diff, int64_t count,
                   const char* name);

/* ---------------------------------------------- the cube Matmul API (sk_twin_matmul.h) */
/* One Matmul call: C[row0 + i][col0 + j] (i < m, j < n) of the single-core
 * problem = sum_k A[row0 + i][k] * B[k][col0 + j] (+ bias[col0 + j]); lda,
 * ldb, ldc are the row strides of A, B, C as stored (transposed A is stored
 * K x M, transposed B N x K). c_local: C goes to UB packed with row stride
 * n_stride instead of to GM. */
/* The element code of int4b_t A/B (two a byte, element 2k in the low nibble), known to the Matmul only. */
#define SK_TWIN_MM_DT_INT4 100u
typedef struct SkTwinMatmul {
  const char* call;
  const SkTwinGlobalRef* a;
  const SkTwinGlobalRef* b;
  const SkTwinGlobalRef* bias;  /* NULL: no bias */
  const SkTwinGlobalRef* c;
  const SkTwinLocalRef* c_local;
  uint32_t a_dtype, b_dtype, c_dtype, bias_dtype;
  uint32_t a_format, b_format, c_format; /* AscendC::CubeFormat values */
  uint32_t trans_a, trans_b, atomic;
  int64_t m, n, k, row0, col0;
  int64_t lda, ldb, ldc, n_stride;
  /* A or B in L1 (TPosition::TSCM/A1/B1) instead of GM: the tensor (NULL: a/b is read). */
  const SkTwinLocalRef* a_local;
  const SkTwinLocalRef* b_local;
  /* NZ operands: rows of one column block of C0 = 32 / sizeof(T) columns (the stored matrix's rows, 16-aligned). */
  int64_t a_height, b_height;
  /* c_local holds C in L0C (TPosition::CO1) as 16 x 16 NZ fractals; c_accumulate adds to what it holds. */
  uint32_t c_l0c, c_accumulate;
  /* SetQuantScalar (quant 1: quant_scalar) / SetQuantVector (quant 2: quant_vector, uint64_t, column col0 + j at
   * element col0 + j): int8_t A/B to half C, the int32_t result scaled on the way out (DEQF16 / VDEQF16). */
  uint32_t quant;
  uint64_t quant_scalar;
  const SkTwinGlobalRef* quant_vector;
  /* c_block: C goes to `c` as the block alone (rows n_stride elements apart from its start), not at (row0, col0)
   * of an ldc-wide C: the workspace block GetTensorC() returns after Iterate<false>(). */
  uint32_t c_block;
} SkTwinMatmul;
void sk_twin_matmul(const SkTwinMatmul* mm);
/* The copy callbacks' operand image (MatmulCallBackFunc CopyA1/CopyB1): operand 0 (A) or 1 (B) of this worker,
 * rows x cols of `dtype` row-major, zeroed; *out views it as a GlobalTensor the Matmul then reads as ND. */
void sk_twin_matmul_image(uint32_t operand, uint32_t dtype, int64_t rows, int64_t cols, SkTwinGlobalRef* out);
/* Copies one L1 tile a callback filled (NZ, column blocks as high as its rows aligned to 16) into the image at
 * (row0, col0); tile_rows x tile_cols in the stored orientation (K x M for a transposed A). */
void sk_twin_matmul_tile(const char* call, uint32_t operand, const SkTwinLocalRef* tile, int64_t row0, int64_t col0,
                         int64_t tile_rows, int64_t tile_cols);
/* 1 when the caller is an AIC of a launch whose blocks have AIVs: it would
 * serve the AIVs' Matmul messages, so it leaves the kernel. */
int32_t sk_twin_matmul_is_server(void);
/* Fails the launch naming the Matmul call (a missing SetTensorA, ...). */
void sk_twin_matmul_fail(const char* call, const char* problem, const char* allowed);

#ifdef __cplusplus
}
#endif

#endif /* SK_TWIN_EXT_H_ */
