// sk_twin_l0c_ub.h - the L0C -> UB copy (DataCopy with DataCopyEnhancedParams: CO1 -> CO2 with block mode and
// dequantisation), which the Ascend C documentation gives for the Atlas inference products only: Atlas A2/A3, the
// twin's model, has no path from L0C to the Unified Buffer (results leave L0C by Fixpipe to GM or L1). The types
// are here so that kernels carrying such a helper for other products compile; a call stops the compile, named.
#ifndef SK_TWIN_L0C_UB_H_
#define SK_TWIN_L0C_UB_H_

#include <cstdint>

#include "sk_twin_ascendc.h"

// The compiler's built-in pad mode of the CCE copy instructions (a global enum, as bisheng has it).
enum pad_t : uint8_t { PAD_NONE = 0, PAD_MODE1, PAD_MODE2, PAD_MODE3, PAD_MODE4, PAD_MODE5, PAD_MODE6, PAD_MODE7, PAD_MODE8 };

namespace AscendC {

enum class BlockMode : uint8_t {
  BLOCK_MODE_NORMAL = 0,
  BLOCK_MODE_MATRIX,
  BLOCK_MODE_VECTOR,
  BLOCK_MODE_SMALL_CHANNEL,
  BLOCK_MODE_DEPTHWISE,
};

enum class DeqScale : uint8_t { DEQ_NONE = 0, DEQ, VDEQ, DEQ8, VDEQ8, DEQ16, VDEQ16 };

struct DataCopyEnhancedParams {
  DataCopyEnhancedParams() {}
  DataCopyEnhancedParams(BlockMode blockModeIn, DeqScale deqScaleIn, uint64_t deqValueIn, uint8_t sidStoreModeIn,
                         bool isReluIn, pad_t padModeIn, uint64_t padValueIn)
      : blockMode(blockModeIn), deqScale(deqScaleIn), deqValue(deqValueIn), sidStoreMode(sidStoreModeIn),
        isRelu(isReluIn), padMode(padModeIn), padValue(padValueIn) {}
  BlockMode blockMode = BlockMode::BLOCK_MODE_NORMAL;
  DeqScale deqScale = DeqScale::DEQ_NONE;
  uint64_t deqValue = 0;
  uint8_t sidStoreMode = 0;
  bool isRelu = false;
  pad_t padMode = PAD_NONE;
  uint64_t padValue = 0;
  uint64_t deqTensorAddr = 0;
};

namespace sk_detail {
template <typename T>
constexpr bool kNoL0cToUb = sizeof(T) == 0;  // false, but only once a call is instantiated
}  // namespace sk_detail

// DataCopy with DataCopyEnhancedParams (L0C -> UB, or GM/UB copies with the enhanced fields): not on Atlas A2/A3.
template <typename T, typename U>
inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const DataCopyParams& p,
                     const DataCopyEnhancedParams& e) {
  static_assert(sk_detail::kNoL0cToUb<T>,
                "the CPU twin does not implement AscendC::DataCopy with DataCopyEnhancedParams (L0C -> UB): Atlas "
                "A2/A3, the twin's model, has no such path (Fixpipe moves L0C to GM or L1)");
  (void)dst, (void)src, (void)p, (void)e;
}
template <typename T>
inline void DataCopy(const LocalTensor<T>& dst, const GlobalTensor<T>& src, const DataCopyParams& p,
                     const DataCopyEnhancedParams& e) {
  static_assert(sk_detail::kNoL0cToUb<T>,
                "the CPU twin does not implement AscendC::DataCopy with DataCopyEnhancedParams: the form of the Atlas "
                "inference products, not of Atlas A2/A3 (the twin's model)");
  (void)dst, (void)src, (void)p, (void)e;
}
template <typename T>
inline void DataCopy(const GlobalTensor<T>& dst, const LocalTensor<T>& src, const DataCopyParams& p,
                     const DataCopyEnhancedParams& e) {
  static_assert(sk_detail::kNoL0cToUb<T>,
                "the CPU twin does not implement AscendC::DataCopy with DataCopyEnhancedParams: the form of the Atlas "
                "inference products, not of Atlas A2/A3 (the twin's model)");
  (void)dst, (void)src, (void)p, (void)e;
}

}  // namespace AscendC

#endif  // SK_TWIN_L0C_UB_H_
