// sk_twin_bias.h - the cube's bias table (TPosition::C2, 1 KB on Atlas A2/A3) on the CPU twin, from the Ascend C
// documentation "DataCopy (L1ToBiasTable Buffer)" and "Mmad" (the bias form):
//   DataCopy(c2, c1, count) / DataCopy(c2, c1, DataCopyParams) / DataCopy<T, U>(c2, c1, DataCopyParams) - bias
//     values from L1 into the table (float from float or half, int32_t from int32_t); blockLen counts 64-byte units
//     of the source, srcGap 32-byte blocks, dstGap 64-byte units; dst 64-byte aligned, src 32-byte aligned;
//   Mmad(dst, fm, filter, bias, MmadParams) - C starts from bias[j] on column j (cmatrixSource), then += A x B.
// The same-type forms are sk_twin_ascendc.h's DataCopy(LocalTensor, LocalTensor, ...): the runtime sends a copy
// into the table here. The rules are checked in src/cube.cc.
#ifndef SK_TWIN_BIAS_H_
#define SK_TWIN_BIAS_H_

#include <cstdint>
#include <type_traits>

#include "sk_twin.h"
#include "sk_twin_bias_hooks.h"
#include "sk_twin_ascendc.h"
#include "sk_twin_cube.h"

namespace AscendC {

// The two-type form (dst float from src half); a same-type deduced call resolves to sk_twin_ascendc.h's.
template <typename T, typename U>
inline void DataCopy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const DataCopyParams& p) {
  // The documented types; which pairs convert (float from float or half, int32_t from int32_t) is checked at the
  // call, as the toolkit does (CANN's int8_t convolution names int32_t from float on a path it does not take).
  static_assert(sk_detail::kOneOf<T, float, int32_t> && sk_detail::kOneOf<U, half, float, int32_t>,
                "AscendC::DataCopy(C2 <- C1): the CPU twin (as Atlas A2/A3) supports dst float or int32_t, src half, "
                "float or int32_t");
  ::sk_twin_cube_copy_bt(&dst.ref_, sk_detail::Dtype<T>::value, &src.ref_, sk_detail::Dtype<U>::value, 1, 0,
                         p.blockCount, p.blockLen, p.srcStride, p.dstStride);
}

template <typename T, typename U, typename S, typename V>
inline void Mmad(const LocalTensor<T>& dst, const LocalTensor<U>& fm, const LocalTensor<S>& filter,
                 const LocalTensor<V>& bias, const MmadParams& p) {
  static_assert(std::is_same<U, S>::value && sk_detail::kMmadTypes<T, U> && std::is_same<T, V>::value,
                "AscendC::Mmad with bias: the CPU twin supports fm/filter/dst/bias of half/half/float/float, "
                "bfloat16_t/bfloat16_t/float/float, float/float/float/float, int8_t/int8_t/int32_t/int32_t");
  ::sk_twin_cube_mmad_bias(&dst.ref_, &fm.ref_, &filter.ref_, &bias.ref_, sk_detail::Dtype<U>::value,
                           sk_detail::Dtype<T>::value, p.m, p.n, p.k);
}

template <typename T, typename U, typename S, typename V>
inline void MmadImpl(const LocalTensor<T>& dst, const LocalTensor<U>& fm, const LocalTensor<S>& filter,
                     const LocalTensor<V>& bias, const MmadParams& p) {
  Mmad(dst, fm, filter, bias, p);
}

}  // namespace AscendC

#endif  // SK_TWIN_BIAS_H_
