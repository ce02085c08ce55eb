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

#ifdef __cplusplus
}
#endif

#endif /* SK_TWIN_QUANT_HOOKS_H_ */
