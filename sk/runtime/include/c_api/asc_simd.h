// c_api/asc_simd.h on the CPU twin: the count forms of Ascend C's C API that
// kernels written without classes call (`__ubuf__ float x[N]` arrays, asc_*
// functions). On the twin a __ubuf__ array is ordinary memory of the worker.
//
//   asc_init, asc_get_block_idx, asc_get_block_num
//   asc_copy_gm2ub[_sync](dst, src, bytes), asc_copy_ub2gm[_sync](dst, src, bytes)
//   asc_add/sub/mul/max/min[_sync](dst, src0, src1, count)   half, float, int16_t, int32_t
//   asc_add_scalar/mul_scalar[_sync](dst, src, value, count)  same types
// Floating results are computed in double and rounded once to the element
// type (correctly rounded + - *); integers wrap; max/min propagate NaN.
// The _sync forms also wait for the instruction, which the twin's in-order
// worker does anyway. The repeat forms and other asc_* calls are not
// provided: a kernel naming one does not compile ("asc_X was not declared").
#ifndef SK_TWIN_C_API_ASC_SIMD_H_
#define SK_TWIN_C_API_ASC_SIMD_H_

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "kernel_operator.h"

namespace sk_twin_capi {

template <typename T, typename Op>
inline void Binary(T* dst, const T* src0, const T* src1, uint32_t count, Op op) {
  static_assert(std::is_same<T, half>::value || std::is_same<T, float>::value || std::is_same<T, int16_t>::value ||
                    std::is_same<T, int32_t>::value,
                "the C API's vector instructions take half, float, int16_t or int32_t");
  for (uint32_t i = 0; i < count; ++i) {
    if constexpr (std::is_integral<T>::value) {
      // Wrap-around in the unsigned type of the same width.
      using U = typename std::make_unsigned<T>::type;
      dst[i] = static_cast<T>(static_cast<U>(op(static_cast<int64_t>(src0[i]), static_cast<int64_t>(src1[i]))));
    } else {
      const double a = static_cast<double>(static_cast<float>(src0[i]));
      const double b = static_cast<double>(static_cast<float>(src1[i]));
      dst[i] = T(op(a, b));
    }
  }
}

struct AddOp {
  template <typename V>
  V operator()(V a, V b) const { return a + b; }
};
struct SubOp {
  template <typename V>
  V operator()(V a, V b) const { return a - b; }
};
struct MulOp {
  template <typename V>
  V operator()(V a, V b) const {
    if constexpr (std::is_integral<V>::value) {
      return static_cast<V>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
    } else {
      return a * b;
    }
  }
};
struct MaxOp {
  template <typename V>
  V operator()(V a, V b) const { return (a != a) ? a : ((b != b) ? b : (a < b ? b : a)); }
};
struct MinOp {
  template <typename V>
  V operator()(V a, V b) const { return (a != a) ? a : ((b != b) ? b : (b < a ? b : a)); }
};

template <typename T, typename Op>
inline void Scalar(T* dst, const T* src, T value, uint32_t count, Op op) {
  for (uint32_t i = 0; i < count; ++i) {
    const T s = src[i];
    Binary(dst + i, &s, &value, 1, op);
  }
}

}  // namespace sk_twin_capi

inline void asc_init() {}
inline int64_t asc_get_block_idx() { return AscendC::GetBlockIdx(); }
inline int64_t asc_get_block_num() { return AscendC::GetBlockNum(); }

inline void asc_copy_gm2ub(__ubuf__ void* dst, __gm__ void* src, uint32_t size) { std::memmove(dst, src, size); }
inline void asc_copy_gm2ub_sync(__ubuf__ void* dst, __gm__ void* src, uint32_t size) { asc_copy_gm2ub(dst, src, size); }
inline void asc_copy_ub2gm(__gm__ void* dst, __ubuf__ void* src, uint32_t size) { std::memmove(dst, src, size); }
inline void asc_copy_ub2gm_sync(__gm__ void* dst, __ubuf__ void* src, uint32_t size) { asc_copy_ub2gm(dst, src, size); }

#define SK_TWIN_CAPI_BINARY(name, Op)                                                         \
  template <typename T>                                                                       \
  inline void name(__ubuf__ T* dst, __ubuf__ T* src0, __ubuf__ T* src1, uint32_t count) {     \
    sk_twin_capi::Binary(dst, src0, src1, count, sk_twin_capi::Op{});                         \
  }                                                                                           \
  template <typename T>                                                                       \
  inline void name##_sync(__ubuf__ T* dst, __ubuf__ T* src0, __ubuf__ T* src1, uint32_t count) { \
    sk_twin_capi::Binary(dst, src0, src1, count, sk_twin_capi::Op{});                         \
  }
SK_TWIN_CAPI_BINARY(asc_add, AddOp)
SK_TWIN_CAPI_BINARY(asc_sub, SubOp)
SK_TWIN_CAPI_BINARY(asc_mul, MulOp)
SK_TWIN_CAPI_BINARY(asc_max, MaxOp)
SK_TWIN_CAPI_BINARY(asc_min, MinOp)
#undef SK_TWIN_CAPI_BINARY

#define SK_TWIN_CAPI_SCALAR(name, Op)                                                         \
  template <typename T>                                                                       \
  inline void name(__ubuf__ T* dst, __ubuf__ T* src, T value, uint32_t count) {               \
    sk_twin_capi::Scalar(dst, src, value, count, sk_twin_capi::Op{});                         \
  }                                                                                           \
  template <typename T>                                                                       \
  inline void name##_sync(__ubuf__ T* dst, __ubuf__ T* src, T value, uint32_t count) {        \
    sk_twin_capi::Scalar(dst, src, value, count, sk_twin_capi::Op{});                         \
  }
SK_TWIN_CAPI_SCALAR(asc_add_scalar, AddOp)
SK_TWIN_CAPI_SCALAR(asc_mul_scalar, MulOp)
#undef SK_TWIN_CAPI_SCALAR

#endif  // SK_TWIN_C_API_ASC_SIMD_H_
