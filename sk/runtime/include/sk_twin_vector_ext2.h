// sk_twin_vector_ext2.h - more of the Ascend C vector/scalar surface of the
// CPU twin, written from the public Ascend C API documentation (the forms
// CANN's ops-nn kernels use). Included by kernel_operator.h after
// sk_twin_vector_ext.h:
//   - GetAccVal / GetReduceRepeatSumSpr: the ACC_VAL register that the count
//     form of ReduceSum also writes its sum to;
//   - the whole-tensor forms (count = the source's size) of the high-level
//     element-wise math (Log, Log2, Log10, ...) and of Power;
//   - TransDataTo5HDImpl (pointer lists), Transpose(dst, src) 16 x 16;
//   - FusedMulAdd, MulAddDst (count and mask/repeat forms), SubRelu (count form);
//   - Sum (the high-level row sums with SumParams), CumSum (line by line),
//     GetMrgSortResult, SoftMax and SoftmaxGrad (ND), Select/SelectWithBytesMask (byte mask);
//   - ScalarCast, DataCopyPadGm2UBImpl/UB2GMImpl, TQueSync, the software SyncAll, Trap, ONE_BLK_FLOAT_NUM.
#ifndef SK_TWIN_VECTOR_EXT2_H_
#define SK_TWIN_VECTOR_EXT2_H_

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "sk_twin_adv_tiling.h"
#include "sk_twin_cann_utils.h"
#include "sk_twin_ext.h"
#include "sk_twin_vector_ext.h"

namespace AscendC {

// float elements in one 32-byte DataBlock (a toolkit constant kernels name).
constexpr uint32_t ONE_BLK_FLOAT_NUM = ONE_BLK_SIZE / sizeof(float);
// Elements Brcb takes per repeat (each fills one DataBlock).
constexpr uint32_t BRCB_BROADCAST_NUMBER = 8;

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

// ScalarCast<T, U, roundMode>(value): the older name of the scalar
// Cast<T, U, roundMode> (float to half or int32_t).
template <typename T, typename U, RoundMode roundMode>
static inline U ScalarCast(T valueIn) {
  return Cast<T, U, roundMode>(valueIn);
}

// ------------------------------------------------------ fused multiply-add
// FusedMulAdd: dst = src0 * dst + src1 (half, float). MulAddDst: dst =
// src0 * src1 + dst with <T, U> = <half, half>, <float, float> or <float,
// half>. Each lane is computed exactly and rounded once to T.
namespace sk_detail {
template <typename T, typename U>
constexpr bool kMulAddDst = (std::is_same<T, U>::value && kOneOf<T, half, float>) ||
                            (std::is_same<T, float>::value && std::is_same<U, half>::value);
}
#define SK_TWIN_FMA_TYPES \
  static_assert(sk_detail::kOneOf<T, half, float>, "AscendC::FusedMulAdd: the CPU twin (as Atlas A2/A3) supports T = half, float")
#define SK_TWIN_MAD_TYPES                                                        \
  static_assert(sk_detail::kMulAddDst<T, U>, "AscendC::MulAddDst: the CPU twin (as Atlas A2/A3) supports " \
                                             "<half, half>, <float, float>, <float, half>")
template <typename T>
static inline void FusedMulAdd(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                               const int32_t& count) {
  SK_TWIN_FMA_TYPES;
  SkTwinRep r = sk_detail::CountRep<T>(SK_TWIN_X_FUSED_MUL_ADD, count);
  sk_detail::Run<T>(r, &dst, &src0.ref_, &src1.ref_);
}
template <typename T, bool isSetMask = true>
static inline void FusedMulAdd(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                               uint64_t mask, const uint8_t repeatTime, const BinaryRepeatParams& repeatParams) {
  SK_TWIN_FMA_TYPES;
  SkTwinRep r = sk_detail::Rep<T>(SK_TWIN_X_FUSED_MUL_ADD, isSetMask, mask, repeatTime);
  sk_detail::Strides(r, repeatParams);
  sk_detail::Run<T>(r, &dst, &src0.ref_, &src1.ref_);
}
template <typename T, bool isSetMask = true>
static inline void FusedMulAdd(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                               const uint64_t mask[], const uint8_t repeatTime,
                               const BinaryRepeatParams& repeatParams) {
  SK_TWIN_FMA_TYPES;
  SkTwinRep r = sk_detail::Rep<T>(SK_TWIN_X_FUSED_MUL_ADD, isSetMask, mask, repeatTime);
  sk_detail::Strides(r, repeatParams);
  sk_detail::Run<T>(r, &dst, &src0.ref_, &src1.ref_);
}
template <typename T, typename U>
static inline void MulAddDst(const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1,
                             const int32_t& count) {
  SK_TWIN_MAD_TYPES;
  SkTwinRep r = sk_detail::CountRep<T, U>(SK_TWIN_X_MUL_ADD_DST, count);
  sk_detail::Run<T>(r, &dst, &src0.ref_, &src1.ref_);
}
template <typename T, typename U, bool isSetMask = true>
static inline void MulAddDst(const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1,
                             uint64_t mask, const uint8_t repeatTime, const BinaryRepeatParams& repeatParams) {
  SK_TWIN_MAD_TYPES;
  SkTwinRep r = sk_detail::Rep<T, U>(SK_TWIN_X_MUL_ADD_DST, isSetMask, mask, repeatTime);
  sk_detail::Strides(r, repeatParams);
  sk_detail::Run<T>(r, &dst, &src0.ref_, &src1.ref_);
}
template <typename T, typename U, bool isSetMask = true>
static inline void MulAddDst(const LocalTensor<T>& dst, const LocalTensor<U>& src0, const LocalTensor<U>& src1,
                             const uint64_t mask[], const uint8_t repeatTime, const BinaryRepeatParams& repeatParams) {
  SK_TWIN_MAD_TYPES;
  SkTwinRep r = sk_detail::Rep<T, U>(SK_TWIN_X_MUL_ADD_DST, isSetMask, mask, repeatTime);
  sk_detail::Strides(r, repeatParams);
  sk_detail::Run<T>(r, &dst, &src0.ref_, &src1.ref_);
}
#undef SK_TWIN_FMA_TYPES
#undef SK_TWIN_MAD_TYPES

// ------------------------------------------------------ Sum (high level)
// Sum: dst[i] = the sum of the n elements of row i of an [outter, inner]
// source whose rows are stored padded to 32 bytes (inner = n rounded up to a
// 32-byte multiple, as documented); the rows are reduced like ReduceSum<AR>.
struct SumParams {
  uint32_t outter = 1;
  uint32_t inner;
  uint32_t n;
};
template <typename T, int32_t reduceDim = -1, bool isReuseSource = false, bool isBasicBlock = false>
static inline void Sum(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor, const SumParams& sumParams) {
  static_assert(sk_detail::kOneOf<T, half, float>, "AscendC::Sum: T is half or float");
  static_assert(reduceDim == -1, "AscendC::Sum: reduceDim is -1 (the last dimension)");
  const uint32_t per_block = ONE_BLK_SIZE / sizeof(T);
  if (sumParams.n < 1 || sumParams.n > sumParams.inner ||
      sumParams.inner != (sumParams.n + per_block - 1) / per_block * per_block) {
    ::sk_twin_fail("AscendC::Sum: SumParams.inner must be SumParams.n (at least 1) rounded up to a 32-byte multiple "
                   "of elements");
  }
  ::sk_twin_reduce_axis(SK_TWIN_V_REDUCE_SUM, sk_detail::Dtype<T>::value, &dstTensor.ref_, &srcTensor.ref_,
                        sumParams.outter, sumParams.n, 1, 1);
}
template <typename T, int32_t reduceDim = -1, bool isReuseSource = false, bool isBasicBlock = false>
static inline void Sum(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                       const LocalTensor<uint8_t>& sharedTmpBuffer, const SumParams& sumParams) {
  (void)sharedTmpBuffer;
  Sum<T, reduceDim, isReuseSource, isBasicBlock>(dstTensor, srcTensor, sumParams);
}

// ------------------------------------------------------ CumSum (high level)
// CumSum over an [outter, inner] tensor, line by line: isLastAxis adds along
// each row (out[i][j] = out[i][j-1] + src[i][j]), else down the rows
// (out[i][j] = out[i-1][j] + src[i][j]). The running sums are kept in float
// (half is widened, each output rounded once to half); outputLastRow also
// writes the last output row to lastRowTensor.
enum class CumSumAlgorithm { CUMSUM_ALGORITHM_LINEBYLINE = 0, CUMSUM_ALGORITHM_SKLANSKY = 1 };
struct CumSumConfig {
  bool isLastAxis{true};
  bool isReuseSource{false};
  bool outputLastRow{false};
  CumSumAlgorithm algorithm{CumSumAlgorithm::CUMSUM_ALGORITHM_LINEBYLINE};
};
constexpr CumSumConfig defaultCumSumConfig = {true, false, false, CumSumAlgorithm::CUMSUM_ALGORITHM_LINEBYLINE};
struct CumSumInfo {
  uint32_t outter{0};
  uint32_t inner{0};
};
template <typename T, const CumSumConfig& config = defaultCumSumConfig>
static inline void CumSum(LocalTensor<T>& dstTensor, LocalTensor<T>& lastRowTensor, const LocalTensor<T>& srcTensor,
                          const CumSumInfo& cumSumInfo) {
  static_assert(sk_detail::kOneOf<T, half, float>, "AscendC::CumSum: T is half or float");
  static_assert(config.algorithm == CumSumAlgorithm::CUMSUM_ALGORITHM_LINEBYLINE,
                "AscendC::CumSum: Atlas A2/A3 has the line-by-line algorithm only (Sklansky is Ascend 950's)");
  const uint32_t rows = cumSumInfo.outter, cols = cumSumInfo.inner;
  if (rows == 0 || cols == 0 || (uint64_t{cols} * sizeof(T)) % ONE_BLK_SIZE != 0) {
    ::sk_twin_fail("AscendC::CumSum: CumSumInfo outter and inner must be above 0 and inner * sizeof(T) a multiple "
                   "of 32 bytes");
  }
  std::vector<float> acc(config.isLastAxis ? 1 : cols, 0.0f);
  for (uint32_t i = 0; i < rows; ++i) {
    if (config.isLastAxis) acc[0] = 0.0f;
    for (uint32_t j = 0; j < cols; ++j) {
      const uint32_t k = i * cols + j;  // element accesses are bounds-checked against each tensor
      float& a = acc[config.isLastAxis ? 0 : j];
      a = a + static_cast<float>(srcTensor.GetValue(k));
      dstTensor.SetValue(k, static_cast<T>(a));
      if (config.outputLastRow && i + 1 == rows) lastRowTensor.SetValue(j, static_cast<T>(a));
    }
  }
}
template <typename T, const CumSumConfig& config = defaultCumSumConfig>
static inline void CumSum(LocalTensor<T>& dstTensor, LocalTensor<T>& lastRowTensor, const LocalTensor<T>& srcTensor,
                          LocalTensor<uint8_t>& sharedTmpBuffer, const CumSumInfo& cumSumInfo) {
  (void)sharedTmpBuffer;
  CumSum<T, config>(dstTensor, lastRowTensor, srcTensor, cumSumInfo);
}

// GetMrgSortResult: how many pairs the last MrgSort took from each list (all
// of them, unless ifExhaustedSuspension stopped it when one ran out).
static inline void GetMrgSortResult(uint16_t& mrgSortList1, uint16_t& mrgSortList2, uint16_t& mrgSortList3,
                                    uint16_t& mrgSortList4) {
  uint16_t taken[4];
  ::sk_twin_mrg_sort_result(taken);
  mrgSortList1 = taken[0];
  mrgSortList2 = taken[1];
  mrgSortList3 = taken[2];
  mrgSortList4 = taken[3];
}

// ------------------------------------------------------ SoftmaxGrad (ND)
// For each row i of the [srcM, srcK] tensors (softmaxShapeInfo's shape, or
// the tiling's when its srcK is 0): s_i = sum_j grad[i][j] * src[i][j] over
// the whole (padded) row, in float; isFront writes s_i to the first
// DataBlock of row i of dst (rows of 32 bytes), otherwise
// dst[i][j] = (grad[i][j] - s_i) * src[i][j].
template <typename T, bool isReuseSource = false, bool isDataFormatNZ = false>
static inline void SoftmaxGrad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& gradTensor,
                               const LocalTensor<T>& srcTensor, const SoftMaxTiling& tiling, bool isFront = false,
                               const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
  static_assert(sk_detail::kOneOf<T, half, float>, "AscendC::SoftmaxGrad: T is half or float");
  static_assert(!isDataFormatNZ, "the CPU twin does not implement AscendC::SoftmaxGrad yet (or not this form of it: NZ)");
  const bool own = softmaxShapeInfo.srcK != 0;
  const uint32_t rows = own ? softmaxShapeInfo.srcM : tiling.srcM;
  const uint32_t cols = own ? softmaxShapeInfo.srcK : tiling.srcK;
  if (cols == 0 || (uint64_t{cols} * sizeof(T)) % ONE_BLK_SIZE != 0) {
    ::sk_twin_fail("AscendC::SoftmaxGrad: the last axis (srcK) must be above 0 and 32-byte aligned");
  }
  const uint32_t per_block = ONE_BLK_SIZE / sizeof(T);
  std::vector<float> g(cols), x(cols);
  for (uint32_t i = 0; i < rows; ++i) {
    float sum = 0.0f;
    for (uint32_t j = 0; j < cols; ++j) {  // read the row first: dst may be src
      g[j] = static_cast<float>(gradTensor.GetValue(i * cols + j));
      x[j] = static_cast<float>(srcTensor.GetValue(i * cols + j));
      sum += g[j] * x[j];
    }
    if (isFront) {
      for (uint32_t j = 0; j < per_block; ++j) dstTensor.SetValue(i * per_block + j, static_cast<T>(sum));
    } else {
      for (uint32_t j = 0; j < cols; ++j) dstTensor.SetValue(i * cols + j, static_cast<T>((g[j] - sum) * x[j]));
    }
  }
}
template <typename T, bool isReuseSource = false, bool isDataFormatNZ = false>
static inline void SoftmaxGrad(const LocalTensor<T>& dstTensor, const LocalTensor<T>& gradTensor,
                               const LocalTensor<T>& srcTensor, const LocalTensor<uint8_t>& sharedTmpBuffer,
                               const SoftMaxTiling& tiling, bool isFront = false,
                               const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
  (void)sharedTmpBuffer;
  SoftmaxGrad<T, isReuseSource, isDataFormatNZ>(dstTensor, gradTensor, srcTensor, tiling, isFront, softmaxShapeInfo);
}

// ------------------------------------------------ Select with a byte mask
// The high-level Select (older name SelectWithBytesMask): over firstAxis
// rows, element j of row i is chosen by mask[i * maskLastAxis + j] (a value,
// not a bit): 0 takes the first operand, anything else the second. The rows
// of src are 32-byte aligned; the mask's are too, a multiple of 16 elements
// and at least as long (the rest of a mask row is not used).
namespace sk_detail {
template <typename T, typename U>
static inline void SelectBytes(const LocalTensor<T>& dst, const LocalTensor<T>* tensor, T scalar, bool tensor_first,
                               const LocalTensor<U>& mask, const SelectWithBytesMaskShapeInfo& info) {
  static_assert(kOneOf<T, half, float>, "AscendC::Select (byte mask): T is half or float");
  static_assert(kOneOf<U, bool, int8_t, uint8_t, int16_t, uint16_t, int32_t, uint32_t>,
                "AscendC::Select (byte mask): the mask is bool, int8_t, uint8_t, int16_t, uint16_t, int32_t or uint32_t");
  const uint32_t rows = info.firstAxis, n = info.srcLastAxis, mk = info.maskLastAxis;
  if ((uint64_t{n} * sizeof(T)) % ONE_BLK_SIZE != 0 || (uint64_t{mk} * sizeof(U)) % ONE_BLK_SIZE != 0 || mk % 16 != 0 ||
      mk < n) {
    ::sk_twin_fail("AscendC::Select (byte mask): srcLastAxis must be 32-byte aligned, maskLastAxis 32-byte aligned, a "
                   "multiple of 16 and at least srcLastAxis");
  }
  for (uint32_t i = 0; i < rows; ++i) {
    for (uint32_t j = 0; j < n; ++j) {
      const bool second = static_cast<bool>(mask.GetValue(i * mk + j));
      const bool from_tensor = second != tensor_first;
      dst.SetValue(i * n + j, from_tensor ? tensor->GetValue(i * n + j) : scalar);
    }
  }
}
}  // namespace sk_detail
template <typename T, typename U, bool isReuseMask = true>
static inline void Select(const LocalTensor<T>& dst, const LocalTensor<T>& src0, sk_detail::Scalar<T> src1,
                          const LocalTensor<U>& mask, const LocalTensor<uint8_t>& sharedTmpBuffer,
                          const SelectWithBytesMaskShapeInfo& info) {
  (void)sharedTmpBuffer;
  sk_detail::SelectBytes<T, U>(dst, &src0, src1, true, mask, info);
}
template <typename T, typename U, bool isReuseMask = true>
static inline void Select(const LocalTensor<T>& dst, sk_detail::Scalar<T> src0, const LocalTensor<T>& src1,
                          const LocalTensor<U>& mask, const LocalTensor<uint8_t>& sharedTmpBuffer,
                          const SelectWithBytesMaskShapeInfo& info) {
  (void)sharedTmpBuffer;
  sk_detail::SelectBytes<T, U>(dst, &src1, src0, false, mask, info);
}
template <typename T, typename U, bool isReuseMask = true>
static inline void SelectWithBytesMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, sk_detail::Scalar<T> src1,
                                       const LocalTensor<U>& mask, const LocalTensor<uint8_t>& sharedTmpBuffer,
                                       const SelectWithBytesMaskShapeInfo& info) {
  Select<T, U, isReuseMask>(dst, src0, src1, mask, sharedTmpBuffer, info);
}
template <typename T, typename U, bool isReuseMask = true>
static inline void SelectWithBytesMask(const LocalTensor<T>& dst, sk_detail::Scalar<T> src0, const LocalTensor<T>& src1,
                                       const LocalTensor<U>& mask, const LocalTensor<uint8_t>& sharedTmpBuffer,
                                       const SelectWithBytesMaskShapeInfo& info) {
  Select<T, U, isReuseMask>(dst, src0, src1, mask, sharedTmpBuffer, info);
}

// ------------------------------------------------------ SoftMax (ND)
// For each row i of the [srcM, srcK] source (softmaxShapeInfo's shape, or the
// tiling's when its srcK is 0), in float: max_i = the row's maximum,
// sum_i = sum_j exp(x - max_i), dst = exp(x - max_i) / sum_i rounded once to
// T; the sum/max forms also write sum_i and max_i to every element of row
// i's DataBlock of sumTensor/maxTensor (rows of 32 bytes).
enum class SoftmaxMode { SOFTMAX_NORMAL = 0, SOFTMAX_OUTPUT_WITHOUT_BRC = 1 };
struct SoftmaxConfig {
  bool isCheckTiling = true;
  uint32_t oriSrcM = 0;
  uint32_t oriSrcK = 0;
  SoftmaxMode mode = SoftmaxMode::SOFTMAX_NORMAL;
};
constexpr SoftmaxConfig SOFTMAX_DEFAULT_CFG = {true, 0, 0, SoftmaxMode::SOFTMAX_NORMAL};
namespace sk_detail {
template <typename T, typename S>
static inline void SoftMaxRows(const LocalTensor<T>& dst, const LocalTensor<S>* sum, const LocalTensor<S>* max,
                               const LocalTensor<T>& src, const SoftMaxTiling& tiling, const SoftMaxShapeInfo& shape) {
  static_assert(kOneOf<T, half, float> && kOneOf<S, half, float>, "AscendC::SoftMax: T is half or float");
  const bool own = shape.srcK != 0;
  const uint32_t rows = own ? shape.srcM : tiling.srcM;
  const uint32_t cols = own ? shape.srcK : tiling.srcK;
  if (cols == 0 || (uint64_t{cols} * sizeof(T)) % ONE_BLK_SIZE != 0) {
    ::sk_twin_fail("AscendC::SoftMax: the last axis (srcK) must be above 0 and 32-byte aligned");
  }
  const uint32_t per_block = ONE_BLK_SIZE / sizeof(S);
  std::vector<float> e(cols);
  for (uint32_t i = 0; i < rows; ++i) {
    float mx = static_cast<float>(src.GetValue(i * cols));
    for (uint32_t j = 0; j < cols; ++j) {
      e[j] = static_cast<float>(src.GetValue(i * cols + j));
      if (e[j] > mx || e[j] != e[j]) mx = e[j];
    }
    float total = 0.0f;
    for (uint32_t j = 0; j < cols; ++j) {
      e[j] = std::exp(e[j] - mx);
      total += e[j];
    }
    for (uint32_t j = 0; j < cols; ++j) dst.SetValue(i * cols + j, static_cast<T>(e[j] / total));
    for (uint32_t j = 0; sum != nullptr && j < per_block; ++j) {
      sum->SetValue(i * per_block + j, static_cast<S>(total));
      max->SetValue(i * per_block + j, static_cast<S>(mx));
    }
  }
}
}  // namespace sk_detail
#define SK_TWIN_SOFTMAX_NZ                                                                                         \
  static_assert(!isDataFormatNZ, "the CPU twin does not implement AscendC::SoftMax yet (or not this form of it: NZ)")
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
static inline void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& sumTensor,
                           const LocalTensor<T>& maxTensor, const LocalTensor<T>& srcTensor, const SoftMaxTiling& tiling,
                           const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
  SK_TWIN_SOFTMAX_NZ;
  sk_detail::SoftMaxRows<T, T>(dstTensor, &sumTensor, &maxTensor, srcTensor, tiling, softmaxShapeInfo);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
static inline void SoftMax(const LocalTensor<half>& dstTensor, const LocalTensor<float>& sumTensor,
                           const LocalTensor<float>& maxTensor, const LocalTensor<half>& srcTensor,
                           const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
  SK_TWIN_SOFTMAX_NZ;
  sk_detail::SoftMaxRows<half, float>(dstTensor, &sumTensor, &maxTensor, srcTensor, tiling, softmaxShapeInfo);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
static inline void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                           const SoftMaxTiling& tiling, const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
  sk_detail::SoftMaxRows<T, T>(dstTensor, nullptr, nullptr, srcTensor, tiling, softmaxShapeInfo);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
static inline void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& sumTensor,
                           const LocalTensor<T>& maxTensor, const LocalTensor<T>& srcTensor,
                           const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
                           const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
  SK_TWIN_SOFTMAX_NZ;
  (void)sharedTmpBuffer;
  sk_detail::SoftMaxRows<T, T>(dstTensor, &sumTensor, &maxTensor, srcTensor, tiling, softmaxShapeInfo);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false, bool isDataFormatNZ = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
static inline void SoftMax(const LocalTensor<half>& dstTensor, const LocalTensor<float>& sumTensor,
                           const LocalTensor<float>& maxTensor, const LocalTensor<half>& srcTensor,
                           const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
                           const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
  SK_TWIN_SOFTMAX_NZ;
  (void)sharedTmpBuffer;
  sk_detail::SoftMaxRows<half, float>(dstTensor, &sumTensor, &maxTensor, srcTensor, tiling, softmaxShapeInfo);
}
template <typename T, bool isReuseSource = false, bool isBasicBlock = false,
          const SoftmaxConfig& config = SOFTMAX_DEFAULT_CFG>
static inline void SoftMax(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,
                           const LocalTensor<uint8_t>& sharedTmpBuffer, const SoftMaxTiling& tiling,
                           const SoftMaxShapeInfo& softmaxShapeInfo = {}) {
  (void)sharedTmpBuffer;
  sk_detail::SoftMaxRows<T, T>(dstTensor, nullptr, nullptr, srcTensor, tiling, softmaxShapeInfo);
}
#undef SK_TWIN_SOFTMAX_NZ

// SubRelu(dst, src0, src1, count): dst = max(src0 - src1, 0) (half, float).
// Sub rounds once and Relu is exact, so Sub then Relu over dst is the fused
// result. The mask/repeat forms and int16_t stop compile by name.
template <typename T>
static inline void SubRelu(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                           const int32_t& count) {
  static_assert(sk_detail::kOneOf<T, half, float>,
                "the CPU twin does not implement AscendC::SubRelu yet (or not this form of it: T = half, float)");
  Sub(dst, src0, src1, count);
  Relu(dst, dst, count);
}

// ------------------------------------------------------ data movement
// DataCopyPadGm2UBImpl / DataCopyPadUB2GMImpl: the toolkit's pointer forms of
// DataCopyPad (UB side: a GetPhyAddr address inside a live buffer, checked
// as the tensor from there to the buffer's end; GM side unchecked).
template <typename T>
static inline void DataCopyPadGm2UBImpl(T* dst, T* src, const DataCopyExtParams& intriParams,
                                        const DataCopyPadExtParams<T>& padParams, uint8_t cacheMode = 0) {
  (void)cacheMode;
  LocalTensor<T> d;
  ::sk_twin_local_ref_at(reinterpret_cast<uint64_t>(dst), "DataCopyPadGm2UBImpl", &d.ref_);
  GlobalTensor<T> g;
  g.SetGlobalBuffer(src);
  DataCopyPad(d, g, intriParams, padParams);
}
template <typename T>
static inline void DataCopyPadUB2GMImpl(T* dst, T* src, const DataCopyExtParams& intriParams, uint8_t cacheMode = 0) {
  (void)cacheMode;
  LocalTensor<T> s;
  ::sk_twin_local_ref_at(reinterpret_cast<uint64_t>(src), "DataCopyPadUB2GMImpl", &s.ref_);
  GlobalTensor<T> g;
  g.SetGlobalBuffer(dst);
  DataCopyPad(g, s, intriParams);
}

// ------------------------------------------------------ sync and debug
// TQueSync<src, dst>: SetFlag/WaitFlag between two pipes (counted like the
// HardEvent forms; the twin runs each core's pipes in program order).
template <pipe_t src, pipe_t dst>
class TQueSync {
 public:
  void SetFlag(TEventID id) {
    (void)id;
    ::sk_twin_count(SK_TWIN_COUNTER_PIPE_FLAG, 1);
  }
  void WaitFlag(TEventID id) {
    (void)id;
    ::sk_twin_count(SK_TWIN_COUNTER_PIPE_FLAG, 1);
  }
};

// SyncAll(gmWorkspace, ubWorkspace[, usedCores]): the software all-core sync
// of vector-only kernels. The twin synchronises like the hardware SyncAll
// (every AIV of the launch waits for all); the flags the device writes into
// gmWorkspace are not modelled. The documented sizes (blockNum * 32 bytes of
// each workspace) are checked; a subset of the cores (usedCores other than 0
// or the block count) fails the launch rather than being guessed.
template <bool isAIVOnly = true>
static inline void SyncAll(const GlobalTensor<int32_t>& gmWorkspace, const LocalTensor<int32_t>& ubWorkspace,
                           const int32_t usedCores = 0) {
  static_assert(isAIVOnly, "AscendC::SyncAll(gmWorkspace, ubWorkspace): the software sync is for vector-only kernels "
                           "(isAIVOnly = true)");
  const int64_t blocks = GetBlockNum();
  if (usedCores != 0 && usedCores != blocks) {
    ::sk_twin_fail("AscendC::SyncAll(gmWorkspace, ubWorkspace, usedCores): the CPU twin syncs all cores only "
                   "(usedCores 0 or the block count)");
  }
  const uint64_t need = static_cast<uint64_t>(blocks) * ONE_BLK_SIZE;
  if ((gmWorkspace.GetSize() != 0 && gmWorkspace.GetSize() * sizeof(int32_t) < need) ||
      uint64_t{ubWorkspace.GetSize()} * sizeof(int32_t) < need) {
    ::sk_twin_fail("AscendC::SyncAll(gmWorkspace, ubWorkspace): each workspace needs GetBlockNum() * 32 bytes");
  }
  ::sk_twin_sync_all(1, 0);
}

// Trap(): stops the core; in CPU mode it acts as a failed assert, so the
// launch fails naming it.
static inline void Trap() { ::sk_twin_fail("AscendC::Trap() was called: the kernel stopped its AI Core"); }

// ------------------------------------------------------ transposes
// TransDataTo5HDImpl: the toolkit's internal form some kernels call with two
// lists of 16 UB pointers (made from GetPhyAddr, the UB address on the twin).
template <typename T>
static inline void TransDataTo5HDImpl(T* (&dstList)[NCHW_CONV_ADDR_LIST_SIZE], T* (&srcList)[NCHW_CONV_ADDR_LIST_SIZE],
                                      const TransDataTo5HDParams& nchwconvParams) {
  static_assert(sk_detail::kTrans5hd<T>,
                "AscendC::TransDataTo5HDImpl: T is int8_t, uint8_t, int16_t, uint16_t, half, int32_t, uint32_t, float");
  uint64_t d[NCHW_CONV_ADDR_LIST_SIZE], s[NCHW_CONV_ADDR_LIST_SIZE];
  for (int32_t i = 0; i < NCHW_CONV_ADDR_LIST_SIZE; ++i) {
    d[i] = reinterpret_cast<uint64_t>(dstList[i]);
    s[i] = reinterpret_cast<uint64_t>(srcList[i]);
  }
  ::sk_twin_trans5hd(sk_detail::Dtype<T>::value, nullptr, nullptr, d, s, nchwconvParams.repeatTimes,
                     nchwconvParams.dstRepStride, nchwconvParams.srcRepStride, nchwconvParams.dstHighHalf ? 1 : 0,
                     nchwconvParams.srcHighHalf ? 1 : 0);
}

// Transpose(dst, src): the 16 x 16 matrix of 2-byte elements at src
// (16 consecutive DataBlocks) transposed into dst; the same instruction as a
// one-repeat TransDataTo5HD over consecutive blocks.
template <typename T>
static inline void Transpose(const LocalTensor<T>& dst, const LocalTensor<T>& src) {
  static_assert(sk_detail::kOneOf<T, half, int16_t, uint16_t>,
                "AscendC::Transpose(dst, src): the CPU twin (as Atlas A2/A3) supports T = half, int16_t, uint16_t");
  LocalTensor<T> d[NCHW_CONV_ADDR_LIST_SIZE], s[NCHW_CONV_ADDR_LIST_SIZE];
  for (int32_t i = 0; i < NCHW_CONV_ADDR_LIST_SIZE; ++i) {
    d[i] = dst[i * 16];
    s[i] = src[i * 16];
  }
  TransDataTo5HD<T>(d, s, TransDataTo5HDParams(false, false, 1, 0, 0));
}

}  // namespace AscendC

// PRELOAD(len): instruction prefetch from the current pc, counted like PreLoad (the twin has no icache).
#ifndef PRELOAD
#define PRELOAD(len)                         \
  do {                                       \
    ::sk_twin_preload(nullptr, (len));       \
  } while (0)
#endif

#endif  // SK_TWIN_VECTOR_EXT2_H_
