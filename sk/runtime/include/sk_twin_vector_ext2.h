// sk_twin_vector_ext2.h - more of the Ascend C vector/scalar surface of the
// CPU twin, written from the public Ascend C API documentation (the forms
// CANN's ops-nn kernels use). Included by kernel_operator.h after
// sk_twin_vector_ext.h:
//   - GetAccVal / GetReduceRepeatSumSpr: the ACC_VAL register that the count
//     form of ReduceSum also writes its sum to;
//   - the whole-tensor forms (count = the source's size) of the high-level
//     element-wise math (Log, Log2, Log10, ...) and of Power.
#ifndef SK_TWIN_VECTOR_EXT2_H_
#define SK_TWIN_VECTOR_EXT2_H_

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "sk_twin_ext.h"
#include "sk_twin_vector_ext.h"

namespace AscendC {

// float elements in one 32-byte DataBlock (a toolkit constant kernels name).
constexpr uint32_t ONE_BLK_FLOAT_NUM = ONE_BLK_SIZE / sizeof(float);

// ------------------------------------------------------------ ACC_VAL
// The register holds the bits of the last ReduceSum(dst, src, tmp, count)
// result of this core (low bits first); GetAccVal<T>() reads them as T.
static inline int64_t GetReduceRepeatSumSpr() { return static_cast<int64_t>(::sk_twin_acc_val()); }
static inline int64_t GetAccVal() { return GetReduceRepeatSumSpr(); }
template <typename T>
static inline T GetReduceRepeatSumSpr() {
  static_assert(sk_detail::kOneOf<T, half, float>, "AscendC::GetReduceRepeatSumSpr<T>: T is half or float");
  const uint64_t bits = ::sk_twin_acc_val();
  if constexpr (std::is_same<T, half>::value) {
    return half::FromBits(static_cast<uint16_t>(bits));
  } else {
    float v;
    const uint32_t low = static_cast<uint32_t>(bits);
    std::memcpy(&v, &low, sizeof(v));
    return v;
  }
}
template <typename T>
static inline T GetAccVal() {
  return GetReduceRepeatSumSpr<T>();
}

// ------------------------------------------------- whole-tensor math forms
// "The whole source tensor takes part": calCount = src.GetSize().
#define SK_TWIN_MATH_WHOLE(NAME)                                                                                  \
  template <typename T, bool isReuseSource = false>                                                               \
  static inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src) {                                 \
    NAME<T, isReuseSource>(dst, src, static_cast<uint32_t>(src.GetSize()));                                       \
  }                                                                                                               \
  template <typename T, bool isReuseSource = false>                                                               \
  static inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src,                                  \
                          const LocalTensor<uint8_t>& sharedTmpBuffer) {                                          \
    NAME<T, isReuseSource>(dst, src, sharedTmpBuffer, static_cast<uint32_t>(src.GetSize()));                      \
  }
SK_TWIN_MATH_WHOLE(Log)
SK_TWIN_MATH_WHOLE(Log2)
SK_TWIN_MATH_WHOLE(Log10)
SK_TWIN_MATH_WHOLE(Floor)
SK_TWIN_MATH_WHOLE(Ceil)
SK_TWIN_MATH_WHOLE(Trunc)
SK_TWIN_MATH_WHOLE(Round)
SK_TWIN_MATH_WHOLE(Sign)
SK_TWIN_MATH_WHOLE(Sin)
SK_TWIN_MATH_WHOLE(Cos)
SK_TWIN_MATH_WHOLE(Tan)
SK_TWIN_MATH_WHOLE(Tanh)
SK_TWIN_MATH_WHOLE(Sinh)
SK_TWIN_MATH_WHOLE(Cosh)
SK_TWIN_MATH_WHOLE(Atan)
SK_TWIN_MATH_WHOLE(Erf)
SK_TWIN_MATH_WHOLE(Asin)
SK_TWIN_MATH_WHOLE(Acos)
SK_TWIN_MATH_WHOLE(Erfc)
SK_TWIN_MATH_WHOLE(Asinh)
SK_TWIN_MATH_WHOLE(Acosh)
SK_TWIN_MATH_WHOLE(Atanh)
#undef SK_TWIN_MATH_WHOLE

// Power's whole-tensor forms: the count is the (first) tensor operand's size.
template <typename T, bool isReuseSource = false>
static inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1) {
  Power<T, isReuseSource>(dst, src0, src1, static_cast<uint32_t>(src0.GetSize()));
}
template <typename T, bool isReuseSource = false>
static inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const sk_detail::Scalar<T>& src1) {
  Power<T, isReuseSource>(dst, src0, src1, static_cast<uint32_t>(src0.GetSize()));
}
template <typename T, bool isReuseSource = false>
static inline void Power(const LocalTensor<T>& dst, const sk_detail::Scalar<T>& src0, const LocalTensor<T>& src1) {
  Power<T, isReuseSource>(dst, src0, src1, static_cast<uint32_t>(src1.GetSize()));
}
template <typename T, bool isReuseSource = false>
static inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                         const LocalTensor<uint8_t>& sharedTmpBuffer) {
  Power<T, isReuseSource>(dst, src0, src1, sharedTmpBuffer, static_cast<uint32_t>(src0.GetSize()));
}
template <typename T, bool isReuseSource = false>
static inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const sk_detail::Scalar<T>& src1,
                         const LocalTensor<uint8_t>& sharedTmpBuffer) {
  Power<T, isReuseSource>(dst, src0, src1, sharedTmpBuffer, static_cast<uint32_t>(src0.GetSize()));
}
template <typename T, bool isReuseSource = false>
static inline void Power(const LocalTensor<T>& dst, const sk_detail::Scalar<T>& src0, const LocalTensor<T>& src1,
                         const LocalTensor<uint8_t>& sharedTmpBuffer) {
  Power<T, isReuseSource>(dst, src0, src1, sharedTmpBuffer, static_cast<uint32_t>(src1.GetSize()));
}

}  // namespace AscendC

#endif  // SK_TWIN_VECTOR_EXT2_H_
