/* sk_twin_quant_hooks.h - the C hooks behind the twin's quantisation APIs (sk_twin_quant.h); the runtime
 * implements them in src/quant.cc. */
#ifndef SK_TWIN_QUANT_HOOKS_H_
#define SK_TWIN_QUANT_HOOKS_H_

#include <stdint.h>

#include "sk_twin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* AscendDequant (Atlas A2/A3 forms): dst (dst_dtype) rows of align32(n) elements = src (int32_t, rows of n)
 * times a scale: the tensor `scale` (scale_dtype; its element i for column i) or, when scale is NULL, the
 * scalar scalar_bits (scale_dtype). form 0: DequantParams {m, n, cal} with the first cal columns of each row;
 * form 1: the first `count` elements of src row after row (n = cal = the scale's size). single_row: the
 * DEQUANT_WITH_SINGLE_ROW mode ({1, n, cal} taken as {n / cal, cal, cal} where the documented conditions
 * hold). tmp: the sharedTmpBuffer or NULL. */
void sk_twin_ascend_dequant(const SkTwinLocalRef* dst, uint32_t dst_dtype, const SkTwinLocalRef* src,
                            const SkTwinLocalRef* scale, uint32_t scale_dtype, uint64_t scalar_bits,
                            const SkTwinLocalRef* tmp, uint32_t form, uint32_t m, uint32_t n, uint32_t cal,
                            uint64_t count, uint32_t single_row);

/* One move out of L0C (src/cube.cc): Fixpipe and DataCopy(L0C->GM/L1). Exactly one of gm and l1 is the
 * destination. nz2nd: ND rows of dst_stride elements (nd_num matrices, src_nd_stride * 1024 bytes apart in L0C,
 * dst_nd_stride elements apart in dst); otherwise NZ, Z columns dst_stride * 32 bytes apart. quant: QuantMode_t;
 * deq_scalar for DEQF16 (its float in the low 32 bits, 19 bits of it used); quant_tensor (uint64_t in L1) for
 * VDEQF16. api names the call in messages ("Fixpipe", "DataCopy"). */
typedef struct SkTwinFixpipe {
  const char* api;
  const SkTwinGlobalRef* gm;
  const SkTwinLocalRef* l1;
  const SkTwinLocalRef* src;
  const SkTwinLocalRef* quant_tensor;
  uint32_t src_dtype, dst_dtype;
  uint32_t n, m, src_stride, dst_stride, quant, relu, channel_split, nz2nd;
  uint32_t nd_num, src_nd_stride, dst_nd_stride;
  uint64_t deq_scalar;
} SkTwinFixpipe;
void sk_twin_cube_fixpipe_move(const SkTwinFixpipe* f);

/* The fixpipe registers DataCopy(L0C->...) reads: SetFixpipeNz2ndFlag's ND layout and SetFixpipePreQuantFlag's
 * scalar; sk_twin_cube_fixpipe_regs returns them (nd[3] = ndNum, srcNdStride, dstNdStride). */
void sk_twin_cube_set_nz2nd(uint32_t nd_num, uint32_t src_nd_stride, uint32_t dst_nd_stride);
void sk_twin_cube_set_pre_quant(uint64_t scalar);
void sk_twin_cube_fixpipe_regs(uint32_t* nd, uint64_t* scalar);

#ifdef __cplusplus
}
#endif

#endif /* SK_TWIN_QUANT_HOOKS_H_ */
