// sk_twin_quant.h - the quantisation high-level API on the CPU twin, from the public Ascend C documentation
// (adv_api/quantization/ascend_dequant.h): AscendDequant with DequantParams {m, n, calCount}, its calCount and
// parameterless forms and its scalar-scale forms, as Atlas A2/A3 run them. The numerics and the checked rules are
// in src/quant.cc. The PER_TOKEN/PER_GROUP forms (AscendDeQuantParam) exist on Ascend 950 only and stop at compile
// time naming it.
#ifndef SK_TWIN_QUANT_H_
#define SK_TWIN_QUANT_H_

#include <cstdint>
#include <type_traits>

#include "sk_twin_ascendc.h"
#include "sk_twin_quant_hooks.h"

namespace AscendC {

struct DequantParams {
  uint32_t m;         // rows
  uint32_t n;         // int32_t elements a row (n * 4 bytes a multiple of 32)
  uint32_t calCount;  // the first calCount elements of each row are dequantised
};

// What AscendDequant does with {1, n, calCount}: SINGLE_ROW takes it as {n / calCount, calCount, calCount} when
// calCount is a multiple of 32 / sizeof(dstT) and divides n; MULTI_ROW keeps it one row.
enum class DeQuantMode : uint8_t { DEQUANT_WITH_SINGLE_ROW = 0, DEQUANT_WITH_MULTI_ROW };

struct AscendDeQuantConfig {
  bool hasOffset;
  int32_t kDim = 1;
};
enum class AscendDeQuantPolicy : int32_t { PER_TOKEN, PER_GROUP, PER_CHANNEL_PER_GROUP, PER_TOKEN_PER_GROUP };
struct AscendDeQuantParam {
  uint32_t m;
  uint32_t n;
  uint32_t calCount;
  uint32_t groupSize = 0;
};

namespace sk_detail {
// Atlas A2/A3: a scale tensor of uint64_t (the float in its low 32 bits) for half, float or bfloat16_t for float
// and bfloat16_t; a scalar scale of float or bfloat16_t for float and bfloat16_t.
template <typename D, typename S, bool kTensor>
constexpr bool kDequantTypes =
    (kTensor && std::is_same<D, half>::value && std::is_same<S, uint64_t>::value) ||
    (kOneOf<D, float, bfloat16_t> && kOneOf<S, float, bfloat16_t>);
#define SK_TWIN_DEQUANT_TYPES                                                                                   \
  "AscendC::AscendDequant: on Atlas A2/A3 (the CPU twin) dstT/scaleT are half/uint64_t (scale tensor only), " \
  "float/float, float/bfloat16_t, bfloat16_t/bfloat16_t, bfloat16_t/float"

template <typename D, typename S, DeQuantMode mode>
inline void Dequant(const LocalTensor<D>& dst, const LocalTensor<int32_t>& src, const LocalTensor<S>* scale,
                    uint64_t scalar_bits, const LocalTensor<uint8_t>* tmp, uint32_t form, uint32_t m, uint32_t n,
                    uint32_t cal, uint64_t count) {
  ::sk_twin_ascend_dequant(&dst.ref_, Dtype<D>::value, &src.ref_, scale ? &scale->ref_ : nullptr, Dtype<S>::value,
                           scalar_bits, tmp ? &tmp->ref_ : nullptr, form, m, n, cal, count,
                           mode == DeQuantMode::DEQUANT_WITH_SINGLE_ROW ? 1u : 0u);
}
}  // namespace sk_detail

template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
inline void AscendDequant(const LocalTensor<dstT>& dst, const LocalTensor<int32_t>& src,
                          const LocalTensor<scaleT>& deqScale, const LocalTensor<uint8_t>& sharedTmpBuffer,
                          DequantParams params) {
  static_assert(sk_detail::kDequantTypes<dstT, scaleT, true>, SK_TWIN_DEQUANT_TYPES);
  sk_detail::Dequant<dstT, scaleT, mode>(dst, src, &deqScale, 0, &sharedTmpBuffer, 0, params.m, params.n,
                                         params.calCount, 0);
}
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
inline void AscendDequant(const LocalTensor<dstT>& dst, const LocalTensor<int32_t>& src,
                          const LocalTensor<scaleT>& deqScale, DequantParams params) {
  static_assert(sk_detail::kDequantTypes<dstT, scaleT, true>, SK_TWIN_DEQUANT_TYPES);
  sk_detail::Dequant<dstT, scaleT, mode>(dst, src, &deqScale, 0, nullptr, 0, params.m, params.n, params.calCount, 0);
}
// The calCount forms: src is rows of deqScale.GetSize() elements; its first calCount elements are dequantised.
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
inline void AscendDequant(const LocalTensor<dstT>& dst, const LocalTensor<int32_t>& src,
                          const LocalTensor<scaleT>& deqScale, const LocalTensor<uint8_t>& sharedTmpBuffer,
                          const uint32_t calCount) {
  static_assert(sk_detail::kDequantTypes<dstT, scaleT, true>, SK_TWIN_DEQUANT_TYPES);
  sk_detail::Dequant<dstT, scaleT, mode>(dst, src, &deqScale, 0, &sharedTmpBuffer, 1, 0, 0, 0, calCount);
}
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
inline void AscendDequant(const LocalTensor<dstT>& dst, const LocalTensor<int32_t>& src,
                          const LocalTensor<scaleT>& deqScale, const uint32_t calCount) {
  static_assert(sk_detail::kDequantTypes<dstT, scaleT, true>, SK_TWIN_DEQUANT_TYPES);
  sk_detail::Dequant<dstT, scaleT, mode>(dst, src, &deqScale, 0, nullptr, 1, 0, 0, 0, calCount);
}
// Without calCount: all of src.
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
inline void AscendDequant(const LocalTensor<dstT>& dst, const LocalTensor<int32_t>& src,
                          const LocalTensor<scaleT>& deqScale, const LocalTensor<uint8_t>& sharedTmpBuffer) {
  static_assert(sk_detail::kDequantTypes<dstT, scaleT, true>, SK_TWIN_DEQUANT_TYPES);
  sk_detail::Dequant<dstT, scaleT, mode>(dst, src, &deqScale, 0, &sharedTmpBuffer, 1, 0, 0, 0, src.GetSize());
}
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
inline void AscendDequant(const LocalTensor<dstT>& dst, const LocalTensor<int32_t>& src,
                          const LocalTensor<scaleT>& deqScale) {
  static_assert(sk_detail::kDequantTypes<dstT, scaleT, true>, SK_TWIN_DEQUANT_TYPES);
  sk_detail::Dequant<dstT, scaleT, mode>(dst, src, &deqScale, 0, nullptr, 1, 0, 0, 0, src.GetSize());
}
// A scalar scale.
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
inline void AscendDequant(const LocalTensor<dstT>& dst, const LocalTensor<int32_t>& src, const scaleT deqScale,
                          const LocalTensor<uint8_t>& sharedTmpBuffer, DequantParams params) {
  static_assert(sk_detail::kDequantTypes<dstT, scaleT, false>, SK_TWIN_DEQUANT_TYPES);
  sk_detail::Dequant<dstT, scaleT, mode>(dst, src, static_cast<const LocalTensor<scaleT>*>(nullptr),
                                         sk_detail::Bits(deqScale), &sharedTmpBuffer, 0, params.m, params.n,
                                         params.calCount, 0);
}
template <typename dstT, typename scaleT, DeQuantMode mode = DeQuantMode::DEQUANT_WITH_SINGLE_ROW>
inline void AscendDequant(const LocalTensor<dstT>& dst, const LocalTensor<int32_t>& src, const scaleT deqScale,
                          DequantParams params) {
  static_assert(sk_detail::kDequantTypes<dstT, scaleT, false>, SK_TWIN_DEQUANT_TYPES);
  sk_detail::Dequant<dstT, scaleT, mode>(dst, src, static_cast<const LocalTensor<scaleT>*>(nullptr),
                                         sk_detail::Bits(deqScale), nullptr, 0, params.m, params.n, params.calCount,
                                         0);
}
// PER_TOKEN / PER_GROUP: Ascend 950 only.
template <typename dstT, typename srcT, typename scaleT, const AscendDeQuantConfig& config,
          const AscendDeQuantPolicy& policy>
inline void AscendDequant(const LocalTensor<dstT>&, const LocalTensor<srcT>&, const LocalTensor<scaleT>&,
                          const LocalTensor<scaleT>&, const AscendDeQuantParam&) {
  static_assert(sizeof(dstT) == 0, "AscendC::AscendDequant with AscendDeQuantParam (PER_TOKEN/PER_GROUP) exists on "
                                   "Ascend 950 only; the CPU twin is Atlas A2/A3");
}
template <typename dstT, typename srcT, typename scaleT, const AscendDeQuantConfig& config,
          const AscendDeQuantPolicy& policy>
inline void AscendDequant(const LocalTensor<dstT>&, const LocalTensor<srcT>&, const LocalTensor<scaleT>&,
                          const LocalTensor<scaleT>&, const LocalTensor<uint8_t>&, const AscendDeQuantParam&) {
  static_assert(sizeof(dstT) == 0, "AscendC::AscendDequant with AscendDeQuantParam (PER_TOKEN/PER_GROUP) exists on "
                                   "Ascend 950 only; the CPU twin is Atlas A2/A3");
}

}  // namespace AscendC

#endif  // SK_TWIN_QUANT_H_
