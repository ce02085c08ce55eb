/* sk_twin_bias_hooks.h - the C hooks behind the twin's bias table (sk_twin_bias.h); src/cube.cc implements them. */
#ifndef SK_TWIN_BIAS_HOOKS_H_
#define SK_TWIN_BIAS_HOOKS_H_

#include <stdint.h>

#include "sk_twin.h"

#ifdef __cplusplus
extern "C" {
#endif
/* L1 -> the bias table (src/cube.cc). kind 0: count elements (rounded down to whole 32-byte blocks), same types;
 * kind 1: block_count bursts of block_len 64-byte units of the source, src_gap (32 B) / dst_gap (64 B) apart. */
void sk_twin_cube_copy_bt(const SkTwinLocalRef* dst, uint32_t dst_dtype, const SkTwinLocalRef* src,
                          uint32_t src_dtype, uint32_t kind, uint64_t count, uint32_t block_count,
                          uint32_t block_len, uint32_t src_gap, uint32_t dst_gap);
/* Mmad with C initialised from the bias table (n elements of out_dtype at bias). */
void sk_twin_cube_mmad_bias(const SkTwinLocalRef* c, const SkTwinLocalRef* a, const SkTwinLocalRef* b,
                            const SkTwinLocalRef* bias, uint32_t in_dtype, uint32_t out_dtype, uint32_t m, uint32_t n,
                            uint32_t k);
#ifdef __cplusplus
}
#endif


#endif  /* SK_TWIN_BIAS_HOOKS_H_ */
