// sk_twin_softmax_flash.h - SoftmaxFlashV2 (Ascend C adv_api/activation/
// softmaxflashv2.h, the FlashAttention-2 step) for ND data, and the
// pointer-form block reductions BlockReduceSum/Max/MinIntrinsicsImpl that
// kernels call on GetPhyAddr() addresses.
//
// SoftmaxFlashV2, per row i of the [srcM, srcK] source (softmaxShapeInfo's
// shape, or the tiling's when its srcK is 0; srcK 32-byte aligned), in float
// and rounded once to each output's type:
//   isUpdate false: m = max_j x, dst = exp(x - m), sum = sum_j dst;
//   isUpdate true:  m = max(inMax_i, max_j x), dst = exp(x - m),
//                   expMax = exp(inMax_i - m), sum = expMax * inExpSum_i + sum_j dst.
// max/sum/expMax (and inMax/inExpSum) hold row i as one 32-byte DataBlock of
// the value (SOFTMAX_NORMAL), or at element i (SOFTMAX_OUTPUT_WITHOUT_BRC).
// A row's inputs are read before its outputs are written, so dst may be src,
// maxTensor inMaxTensor and expSumTensor inExpSumTensor (as documented). NZ
// and the forms with outReduceMax stop compile by name (sk_twin_not_yet.h).
#ifndef SK_TWIN_SOFTMAX_FLASH_H_
#define SK_TWIN_SOFTMAX_FLASH_H_

#include <cmath>
#include <cstdint>
#include <vector>

namespace AscendC {

namespace sk_detail {
template <typename T, typename S, bool isUpdate, const SoftmaxConfig& config>
static inline void SoftmaxFlashV2Rows(const LocalTensor<T>& dst, const LocalTensor<S>& expSum,
                                      const LocalTensor<S>& maxOut, const LocalTensor<T>& src,
                                      const LocalTensor<T>& expMax, const LocalTensor<S>& inExpSum,
                                      const LocalTensor<S>& inMax, const SoftMaxTiling& tiling,
                                      const SoftMaxShapeInfo& shape) {
  static_assert(kOneOf<T, half, float> && kOneOf<S, half, float>, "AscendC::SoftmaxFlashV2: T is half or float");
  const bool own = shape.srcK != 0;
  const uint32_t rows = own ? shape.srcM : tiling.srcM;
  const uint32_t cols = own ? shape.srcK : tiling.srcK;
  if (cols == 0 || (uint64_t{cols} * sizeof(T)) % ONE_BLK_SIZE != 0) {
    ::sk_twin_fail("AscendC::SoftmaxFlashV2: the last axis (srcK) must be above 0 and 32-byte aligned");
  }
  constexpr bool brc = config.mode == SoftmaxMode::SOFTMAX_NORMAL;
  // Row i's value in a per-row tensor of element type U: its DataBlock (all lanes), or element i.
  auto lanes = [](auto tag) -> uint32_t { return brc ? ONE_BLK_SIZE / sizeof(decltype(tag)) : 1u; };
  const uint32_t s_lanes = lanes(S{}), t_lanes = lanes(T{});
  std::vector<float> x(cols);
  for (uint32_t i = 0; i < rows; ++i) {
    float rowmax = -INFINITY;
    for (uint32_t j = 0; j < cols; ++j) {
      x[j] = static_cast<float>(src.GetValue(i * cols + j));
      if (x[j] > rowmax || x[j] != x[j]) rowmax = x[j];
    }
    float m = rowmax, e = 0.0f, carried = 0.0f;
    if constexpr (isUpdate) {
      const float in_max = static_cast<float>(inMax.GetValue(i * s_lanes));
      const float in_sum = static_cast<float>(inExpSum.GetValue(i * s_lanes));
      m = (in_max > rowmax || in_max != in_max) ? in_max : rowmax;
      e = std::exp(in_max - m);
      carried = e * in_sum;
    }
    float total = 0.0f;
    for (uint32_t j = 0; j < cols; ++j) {
      x[j] = std::exp(x[j] - m);
      total += x[j];
    }
    for (uint32_t j = 0; j < cols; ++j) dst.SetValue(i * cols + j, static_cast<T>(x[j]));
    for (uint32_t j = 0; j < s_lanes; ++j) {
      expSum.SetValue(i * s_lanes + j, static_cast<S>(carried + total));
      maxOut.SetValue(i * s_lanes + j, static_cast<S>(m));
    }
    if constexpr (isUpdate) {
      for (uint32_t j = 0; j < t_lanes; ++j) expMax.SetValue(i * t_lanes + j, static_cast<T>(e));
    }
  }
}
}  // namespace sk_detail

#define SK_TWIN_SOFTMAX_FLASH_V2_NZ \
  static_assert(!isDataFormatNZ, "the CPU twin does not implement AscendC::SoftmaxFlashV2 yet (or not this form of it: NZ)")
template <typename T, bool isUpdate = false, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
static inline void SoftmaxFlashV2(const LocalTensor<T>& dstTensor, const LocalTensor<T>& expSumTensor,
                                  const LocalTensor<T>& maxTensor, const LocalTensor<T>& srcTensor,
                                  const LocalTensor<T>& expMaxTensor, const LocalTensor<T>& inExpSumTensor,
                                  const LocalTensor<T>& inMaxTensor, const SoftMaxTiling& tiling,
                                  const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
  SK_TWIN_SOFTMAX_FLASH_V2_NZ;
  sk_detail::SoftmaxFlashV2Rows<T, T, isUpdate, config>(dstTensor, expSumTensor, maxTensor, srcTensor, expMaxTensor,
                                                        inExpSumTensor, inMaxTensor, tiling, softmaxShapeInfo);
}
template <typename T, bool isUpdate = false, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
static inline void SoftmaxFlashV2(const LocalTensor<half>& dstTensor, const LocalTensor<float>& expSumTensor,
                                  const LocalTensor<float>& maxTensor, const LocalTensor<half>& srcTensor,
                                  const LocalTensor<half>& expMaxTensor, const LocalTensor<float>& inExpSumTensor,
                                  const LocalTensor<float>& inMaxTensor, const SoftMaxTiling& tiling,
                                  const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
  SK_TWIN_SOFTMAX_FLASH_V2_NZ;
  sk_detail::SoftmaxFlashV2Rows<half, float, isUpdate, config>(dstTensor, expSumTensor, maxTensor, srcTensor,
                                                               expMaxTensor, inExpSumTensor, inMaxTensor, tiling,
                                                               softmaxShapeInfo);
}
template <typename T, bool isUpdate = false, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
static inline void SoftmaxFlashV2(const LocalTensor<T>& dstTensor, const LocalTensor<T>& expSumTensor,
                                  const LocalTensor<T>& maxTensor, const LocalTensor<T>& srcTensor,
                                  const LocalTensor<T>& expMaxTensor, const LocalTensor<T>& inExpSumTensor,
                                  const LocalTensor<T>& inMaxTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
                                  const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
  SK_TWIN_SOFTMAX_FLASH_V2_NZ;
  (void)sharedTmpBuffer;
  sk_detail::SoftmaxFlashV2Rows<T, T, isUpdate, config>(dstTensor, expSumTensor, maxTensor, srcTensor, expMaxTensor,
                                                        inExpSumTensor, inMaxTensor, tiling, softmaxShapeInfo);
}
template <typename T, bool isUpdate = false, bool isReuseSource = false, bool isBasicBlock = false,
          bool isDataFormatNZ = false, const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
static inline void SoftmaxFlashV2(const LocalTensor<half>& dstTensor, const LocalTensor<float>& expSumTensor,
                                  const LocalTensor<float>& maxTensor, const LocalTensor<half>& srcTensor,
                                  const LocalTensor<half>& expMaxTensor, const LocalTensor<float>& inExpSumTensor,
                                  const LocalTensor<float>& inMaxTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
                                  const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
  SK_TWIN_SOFTMAX_FLASH_V2_NZ;
  (void)sharedTmpBuffer;
  sk_detail::SoftmaxFlashV2Rows<half, float, isUpdate, config>(dstTensor, expSumTensor, maxTensor, srcTensor,
                                                               expMaxTensor, inExpSumTensor, inMaxTensor, tiling,
                                                               softmaxShapeInfo);
}
#undef SK_TWIN_SOFTMAX_FLASH_V2_NZ

// The raw block reductions (vcgadd/vcgmax/vcgmin) behind BlockReduceSum/Max/Min, on UB addresses: the lanes come
// from the mask register as the kernel set it (SetVectorMask, normal or counter mode), as BlockReduce*<T, false>.
// Each address must lie in a live buffer (the tensor runs from it to the buffer's end).
#define SK_TWIN_BLOCK_REDUCE_INTRINSICS(NAME, API)                                                           \
  template <typename T>                                                                                      \
  static inline void NAME(__ubuf__ T* dstLocal, __ubuf__ T* srcLocal, const int32_t repeatTime,              \
                          const int32_t dstRepStride, const int32_t srcBlkStride, const int32_t srcRepStride) { \
    LocalTensor<T> d, s;                                                                                     \
    ::sk_twin_local_ref_at(reinterpret_cast<uint64_t>(dstLocal), #NAME, &d.ref_);                            \
    ::sk_twin_local_ref_at(reinterpret_cast<uint64_t>(srcLocal), #NAME, &s.ref_);                            \
    API<T, false>(d, s, 0, repeatTime, dstRepStride, srcBlkStride, srcRepStride);                            \
  }
SK_TWIN_BLOCK_REDUCE_INTRINSICS(BlockReduceSumIntrinsicsImpl, BlockReduceSum)
SK_TWIN_BLOCK_REDUCE_INTRINSICS(BlockReduceMaxIntrinsicsImpl, BlockReduceMax)
SK_TWIN_BLOCK_REDUCE_INTRINSICS(BlockReduceMinIntrinsicsImpl, BlockReduceMin)
#undef SK_TWIN_BLOCK_REDUCE_INTRINSICS

}  // namespace AscendC

#endif  // SK_TWIN_SOFTMAX_FLASH_H_
