/*
 * sk_tiling.h - the host tiling function of a tiling-sink kernel (facts §15).
 *
 * A tiling-sink operator's tiling depends on device memory (a predecessor's
 * output), so it is computed when the operator runs, not when the graph is
 * built: by an AI CPU tiling task inside a SuperKernel, or on the host between
 * launches otherwise. Both call the same function:
 *
 *   #include "sk_tiling.h"
 *   extern "C" int grouped_add_tiling(SkTilingContext* ctx) {
 *     const int32_t* counts = ctx->Input<int32_t>(1);      // device memory, already written
 *     auto* t = ctx->TilingData<GroupedAddTiling>();       // the op's `tiling` buffer
 *     t->rows = counts[0];
 *     ctx->SetTilingKey(t->rows > 64 ? 2 : 1);              // selects the TILING_KEY_IS(k) branch
 *     ctx->SetBlockDim(...);                                // blocks that run it (<= max_block_dim)
 *     return 0;                                             // non-zero: the tiling failed
 *   }
 *
 * It must only read its inputs and write its tiling buffer, tiling key and
 * block count (the task that calls it writes them to the SuperKernel's words
 * and releases the op's lock, facts §15.3).
 */
#ifndef SK_TILING_H_
#define SK_TILING_H_

#include <stdint.h>

typedef struct SkTilingContext {
  uint32_t num_inputs;          /* the op's input tensors, in its kernel's input order */
  const uint8_t* const* inputs; /* device (GM) addresses */
  const uint64_t* input_bytes;
  uint8_t* tiling;              /* the op's tiling buffer (its `tiling` parameter) */
  uint64_t tiling_bytes;
  uint32_t max_block_dim;       /* the kernel's block_dim: the most blocks it may ask for */
  uint64_t tiling_key;          /* out: the TILING_KEY_IS(k) branch to run */
  uint32_t block_dim;           /* out: how many blocks run it, 1..max_block_dim */
#ifdef __cplusplus
  template <typename T>
  const T* Input(uint32_t i) const { return reinterpret_cast<const T*>(inputs[i]); }
  uint64_t InputBytes(uint32_t i) const { return input_bytes[i]; }
  template <typename T>
  T* TilingData() { return reinterpret_cast<T*>(tiling); }
  void SetTilingKey(uint64_t key) { tiling_key = key; }
  void SetBlockDim(uint32_t blocks) { block_dim = blocks; }
#endif
} SkTilingContext;

typedef int (*SkTilingFunc)(SkTilingContext* ctx);

#endif /* SK_TILING_H_ */
