// sk_twin_vector_ext.h - the wider Ascend C vector surface of the CPU twin,
// written from the public Ascend C API documentation. Included by
// kernel_operator.h after sk_twin_ascendc.h:
//   - the mask/repeat ("tensor high-dimension slicing") forms of Add Sub Mul
//     Div Max Min And Or, Exp Ln Abs Sqrt Rsqrt Reciprocal Relu Not, Adds Muls
//     Maxs Mins LeakyRelu ShiftLeft ShiftRight, Axpy, Duplicate, Cast, Copy,
//     Compare/Compares/CompareScalar and Select (continuous mask, bit mask
//     mask[2], or the mask register with isSetMask = false);
//   - the mask register: SetMaskNorm, SetMaskCount, SetVectorMask, ResetMask;
//   - SetAtomicAdd/Max/Min/None (UB -> GM copies accumulate);
//   - And Or Not ShiftLeft ShiftRight Axpy Copy count forms, CompareScalar,
//     Gather, GatherMask, WholeReduceSum/Max/Min, PairReduceSum,
//     BlockReduceSum/Max/Min, Brcb, ArithProgression, CreateVecIndex.
// The runtime (src/vector_ext.cc, src/atomic.cc) checks repeatTime (0..255),
// the mask (1..256/sizeof(T) lanes in the normal mode), 32-byte alignment and
// that every lane stays inside its operand's buffer.
#ifndef SK_TWIN_VECTOR_EXT_H_
#define SK_TWIN_VECTOR_EXT_H_

#include <cstdint>
#include <type_traits>

#include "sk_twin_ascendc.h"
#include "sk_twin_ext.h"

namespace AscendC {

enum class MaskMode : uint8_t { NORMAL = 0, COUNTER };
enum class ReduceOrder : uint8_t { ORDER_VALUE_INDEX = 0, ORDER_INDEX_VALUE, ORDER_ONLY_VALUE, ORDER_ONLY_INDEX };
enum GatherMaskMode : uint8_t { GATHER_MASK_MODE_ONE = 1, GATHER_MASK_MODE_TWO, GATHER_MASK_MODE_THREE,
                                GATHER_MASK_MODE_FOUR, GATHER_MASK_MODE_FIVE, GATHER_MASK_MODE_SIX,
                                GATHER_MASK_MODE_SEVEN };
// The mask argument of a call whose mask comes from SetVectorMask (isSetMask = false).
constexpr uint64_t MASK_PLACEHOLDER = 0;

struct GatherMaskParams {
  GatherMaskParams() {}
  GatherMaskParams(const uint8_t src0BlockStrideIn, const uint16_t repeatTimesIn, const uint16_t src0RepeatStrideIn,
                   const uint8_t src1RepeatStrideIn)
      : src0BlockStride(src0BlockStrideIn), repeatTimes(repeatTimesIn), src0RepeatStride(src0RepeatStrideIn),
        src1RepeatStride(src1RepeatStrideIn) {}
  uint8_t src0BlockStride = 1;
  uint16_t repeatTimes = 0;
  uint16_t src0RepeatStride = 0;
  uint8_t src1RepeatStride = 0;
};

struct BrcbRepeatParams {
  BrcbRepeatParams() {}
  BrcbRepeatParams(const uint16_t dstBlkStrideIn, const uint16_t dstRepStrideIn)
      : dstBlkStride(dstBlkStrideIn), dstRepStride(dstRepStrideIn) {}
  uint16_t dstBlkStride = 0;
  uint16_t dstRepStride = 0;
};

struct CopyRepeatParams {
  CopyRepeatParams() {}
  CopyRepeatParams(const uint16_t dstStrideIn, const uint16_t srcStrideIn, uint16_t dstRepeatSizeIn,
                   uint16_t srcRepeatSizeIn)
      : dstStride(dstStrideIn), srcStride(srcStrideIn), dstRepeatSize(dstRepeatSizeIn),
        srcRepeatSize(srcRepeatSizeIn) {}
  uint16_t dstStride = 1;
  uint16_t srcStride = 1;
  uint16_t dstRepeatSize = 8;
  uint16_t srcRepeatSize = 8;
};

// ------------------------------------------------------------ mask register
static inline void SetMaskNorm() { ::sk_twin_mask(0, 0, 0); }
static inline void SetMaskCount() { ::sk_twin_mask(1, 0, 0); }
static inline void ResetMask() { ::sk_twin_mask(3, 0, 0); }
template <typename T = uint64_t, MaskMode mode = MaskMode::NORMAL>
static inline void SetVectorMask(const uint64_t maskHigh, const uint64_t maskLow) {
  ::sk_twin_mask(2, maskHigh, maskLow);
}
template <typename T = uint64_t, MaskMode mode = MaskMode::NORMAL>
static inline void SetVectorMask(int32_t len) {
  ::sk_twin_mask(4, 0, static_cast<uint64_t>(len < 0 ? 0 : len));
}

// ------------------------------------------------------------------ atomics
template <typename T>
static inline void SetAtomicAdd() {
  ::sk_twin_set_atomic(1, sk_detail::Dtype<T>::value);
}
template <typename T>
static inline void SetAtomicMax() {
  ::sk_twin_set_atomic(2, sk_detail::Dtype<T>::value);
}
template <typename T>
static inline void SetAtomicMin() {
  ::sk_twin_set_atomic(3, sk_detail::Dtype<T>::value);
}
static inline void SetAtomicNone() { ::sk_twin_set_atomic(0, 0); }

namespace sk_detail {

template <typename D, typename S = D>
static inline SkTwinRep Rep(uint32_t op, uint32_t kind, uint64_t m0, uint64_t m1, int64_t repeat) {
  SkTwinRep r;
  std::memset(&r, 0, sizeof r);
  r.op = op;
  r.dtype = Dtype<D>::value;
  r.src_dtype = Dtype<S>::value;
  r.mask_kind = kind;
  r.mask[0] = m0;
  r.mask[1] = m1;
  r.repeat = repeat;
  r.dst_blk = r.src0_blk = r.src1_blk = 1;
  r.dst_rep = r.src0_rep = r.src1_rep = 8;
  return r;
}
template <typename D, typename S = D>
static inline SkTwinRep Rep(uint32_t op, bool isSetMask, uint64_t mask, int64_t repeat) {
  return Rep<D, S>(op, isSetMask ? SK_TWIN_MASK_CONT : SK_TWIN_MASK_REG, mask, 0, repeat);
}
template <typename D, typename S = D>
static inline SkTwinRep Rep(uint32_t op, bool isSetMask, const uint64_t mask[], int64_t repeat) {
  return Rep<D, S>(op, isSetMask ? SK_TWIN_MASK_BITS : SK_TWIN_MASK_REG, isSetMask ? mask[0] : 0,
                   isSetMask ? mask[1] : 0, repeat);
}
template <typename D, typename S = D>
static inline SkTwinRep CountRep(uint32_t op, int64_t count) {
  return Rep<D, S>(op, SK_TWIN_MASK_COUNT, static_cast<uint64_t>(count < 0 ? 0 : count), 0, 0);
}
static inline void Strides(SkTwinRep& r, const BinaryRepeatParams& p) {
  r.dst_blk = p.dstBlkStride;
  r.src0_blk = p.src0BlkStride;
  r.src1_blk = p.src1BlkStride;
  r.dst_rep = p.dstRepStride;
  r.src0_rep = p.src0RepStride;
  r.src1_rep = p.src1RepStride;
}
static inline void Strides(SkTwinRep& r, const UnaryRepeatParams& p) {
  r.unary = 1;
  r.dst_blk = p.dstBlkStride;
  r.src0_blk = p.srcBlkStride;
  r.dst_rep = p.dstRepStride;
  r.src0_rep = p.srcRepStride;
}
template <typename T>
static inline void Run(SkTwinRep& r, const LocalTensor<T>* dst, const void* src0, const void* src1,
                       const void* sel = nullptr) {
  r.dst = dst != nullptr ? &dst->ref_ : nullptr;
  r.src0 = static_cast<const SkTwinLocalRef*>(src0);
  r.src1 = static_cast<const SkTwinLocalRef*>(src1);
  r.sel = static_cast<const SkTwinLocalRef*>(sel);
  ::sk_twin_rep(&r);
}
template <typename T>
constexpr bool kLogic = kOneOf<T, int16_t, uint16_t>;
template <typename T>
constexpr bool kShift = kOneOf<T, int16_t, uint16_t, int32_t, uint32_t>;
template <typename T>
constexpr bool kB16B32 = kOneOf<T, half, bfloat16_t, float, int16_t, uint16_t, int32_t, uint32_t>;
template <typename T>
constexpr bool kFloatHalf = kOneOf<T, half, float>;
template <typename T>
constexpr bool kPowerTypes = kOneOf<T, half, float, int32_t>;
}  // namespace sk_detail

#define SK_TWIN_TYPES_OF(NAME, KIND, LIST) \
  static_assert(sk_detail::KIND<T>, "AscendC::" #NAME ": the CPU twin (as Atlas A2/A3) supports T = " LIST)
#define SK_TWIN_ARITH_TYPES "half, bfloat16_t, float, int16_t, int32_t"
#define SK_TWIN_FLOAT_TYPES "half, bfloat16_t, float"

// --------------------------------------- binary: count form (new ops) and mask/repeat forms
// The repeat count is taken at the caller's integer type (the device's uint8_t would wrap a repeat over 255
// before the twin could name it); the overload at the device's exact type (uint8_t) is what a kernel's function
// pointer `void (*)(..., uint64_t, const uint8_t, const BinaryRepeatParams&)` = &Sub<T> binds to.
#define SK_TWIN_BINARY_REP(NAME, OP, KIND, LIST)                                                                \
  template <typename T, bool isSetMask = true, typename SkTwinR,                                                \
            typename = typename std::enable_if<std::is_integral<SkTwinR>::value>::type>                        \
  static inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,   \
                          uint64_t mask, const SkTwinR repeatTime, const BinaryRepeatParams& repeatParams) {     \
    SK_TWIN_TYPES_OF(NAME, KIND, LIST);                                                                         \
    SkTwinRep r = sk_detail::Rep<T>(OP, isSetMask, mask, static_cast<int64_t>(repeatTime));                     \
    sk_detail::Strides(r, repeatParams);                                                                        \
    sk_detail::Run<T>(r, &dst, &src0.ref_, &src1.ref_);                                                         \
  }                                                                                                             \
  template <typename T, bool isSetMask = true>                                                                  \
  static inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,   \
                          uint64_t mask, const uint8_t repeatTime, const BinaryRepeatParams& repeatParams) {     \
    NAME<T, isSetMask, int64_t>(dst, src0, src1, mask, static_cast<int64_t>(repeatTime), repeatParams);         \
  }                                                                                                             \
  template <typename T, bool isSetMask = true>                                                                  \
  static inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,   \
                          const uint64_t mask[], const int64_t repeatTime, const BinaryRepeatParams& repeatParams) { \
    SK_TWIN_TYPES_OF(NAME, KIND, LIST);                                                                         \
    SkTwinRep r = sk_detail::Rep<T>(OP, isSetMask, mask, repeatTime);                                           \
    sk_detail::Strides(r, repeatParams);                                                                        \
    sk_detail::Run<T>(r, &dst, &src0.ref_, &src1.ref_);                                                         \
  }
SK_TWIN_BINARY_REP(Add, SK_TWIN_V_ADD, kArith, SK_TWIN_ARITH_TYPES)
SK_TWIN_BINARY_REP(Sub, SK_TWIN_V_SUB, kArith, SK_TWIN_ARITH_TYPES)
SK_TWIN_BINARY_REP(Mul, SK_TWIN_V_MUL, kArith, SK_TWIN_ARITH_TYPES)
SK_TWIN_BINARY_REP(Div, SK_TWIN_V_DIV, kFloating, SK_TWIN_FLOAT_TYPES)
SK_TWIN_BINARY_REP(Max, SK_TWIN_V_MAX, kArith, SK_TWIN_ARITH_TYPES)
SK_TWIN_BINARY_REP(Min, SK_TWIN_V_MIN, kArith, SK_TWIN_ARITH_TYPES)
SK_TWIN_BINARY_REP(And, SK_TWIN_X_AND, kLogic, "int16_t, uint16_t")
SK_TWIN_BINARY_REP(Or, SK_TWIN_X_OR, kLogic, "int16_t, uint16_t")
#undef SK_TWIN_BINARY_REP

#define SK_TWIN_BINARY_COUNT(NAME, OP, KIND, LIST)                                                            \
  template <typename T>                                                                                       \
  static inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1, \
                          const int32_t& count) {                                                             \
    SK_TWIN_TYPES_OF(NAME, KIND, LIST);                                                                       \
    SkTwinRep r = sk_detail::CountRep<T>(OP, count);                                                          \
    sk_detail::Run<T>(r, &dst, &src0.ref_, &src1.ref_);                                                       \
  }
SK_TWIN_BINARY_COUNT(And, SK_TWIN_X_AND, kLogic, "int16_t, uint16_t")
SK_TWIN_BINARY_COUNT(Or, SK_TWIN_X_OR, kLogic, "int16_t, uint16_t")
#undef SK_TWIN_BINARY_COUNT

// ------------------------------------------------------------------- unary
#define SK_TWIN_UNARY_REP(NAME, OP, KIND, LIST)                                                                \
  template <typename T, bool isSetMask = true>                                                                 \
  static inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, uint64_t mask,                \
                          const int64_t repeatTime, const UnaryRepeatParams& repeatParams) {                   \
    SK_TWIN_TYPES_OF(NAME, KIND, LIST);                                                                        \
    SkTwinRep r = sk_detail::Rep<T>(OP, isSetMask, mask, repeatTime);                                          \
    sk_detail::Strides(r, repeatParams);                                                                       \
    sk_detail::Run<T>(r, &dst, &src.ref_, nullptr);                                                            \
  }                                                                                                            \
  template <typename T, bool isSetMask = true>                                                                 \
  static inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],        \
                          const int64_t repeatTime, const UnaryRepeatParams& repeatParams) {                   \
    SK_TWIN_TYPES_OF(NAME, KIND, LIST);                                                                        \
    SkTwinRep r = sk_detail::Rep<T>(OP, isSetMask, mask, repeatTime);                                          \
    sk_detail::Strides(r, repeatParams);                                                                       \
    sk_detail::Run<T>(r, &dst, &src.ref_, nullptr);                                                            \
  }
SK_TWIN_UNARY_REP(Exp, SK_TWIN_V_EXP, kFloating, SK_TWIN_FLOAT_TYPES)
SK_TWIN_UNARY_REP(Ln, SK_TWIN_V_LN, kFloating, SK_TWIN_FLOAT_TYPES)
SK_TWIN_UNARY_REP(Abs, SK_TWIN_V_ABS, kArith, SK_TWIN_ARITH_TYPES)
SK_TWIN_UNARY_REP(Sqrt, SK_TWIN_V_SQRT, kFloating, SK_TWIN_FLOAT_TYPES)
SK_TWIN_UNARY_REP(Rsqrt, SK_TWIN_V_RSQRT, kFloating, SK_TWIN_FLOAT_TYPES)
SK_TWIN_UNARY_REP(Reciprocal, SK_TWIN_V_RECIPROCAL, kFloating, SK_TWIN_FLOAT_TYPES)
SK_TWIN_UNARY_REP(Relu, SK_TWIN_V_RELU, kArith, SK_TWIN_ARITH_TYPES)
SK_TWIN_UNARY_REP(Not, SK_TWIN_X_NOT, kLogic, "int16_t, uint16_t")
#undef SK_TWIN_UNARY_REP

template <typename T>
static inline void Not(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count) {
  SK_TWIN_TYPES_OF(Not, kLogic, "int16_t, uint16_t");
  SkTwinRep r = sk_detail::CountRep<T>(SK_TWIN_X_NOT, count);
  sk_detail::Run<T>(r, &dst, &src.ref_, nullptr);
}

// ------------------------------------------------------------ with a scalar
#define SK_TWIN_SCALAR_REP(NAME, OP, KIND, LIST, EXTRA)                                        \
  template <typename T, bool isSetMask = true>                                                                \
  static inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src,                              \
                          const sk_detail::Scalar<T>& scalarValue, uint64_t mask, const int64_t repeatTime,   \
                          const UnaryRepeatParams& repeatParams EXTRA) {                        \
    SK_TWIN_TYPES_OF(NAME, KIND, LIST);                                                                       \
    SkTwinRep r = sk_detail::Rep<T>(OP, isSetMask, mask, repeatTime);                                         \
    sk_detail::Strides(r, repeatParams);                                                                      \
    r.scalar = sk_detail::Bits<T>(scalarValue);                                                               \
    sk_detail::Run<T>(r, &dst, &src.ref_, nullptr);                                                           \
  }                                                                                                           \
  template <typename T, bool isSetMask = true>                                                                \
  static inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src,                              \
                          const sk_detail::Scalar<T>& scalarValue, const uint64_t mask[],                     \
                          const int64_t repeatTime, const UnaryRepeatParams& repeatParams EXTRA) { \
    SK_TWIN_TYPES_OF(NAME, KIND, LIST);                                                                       \
    SkTwinRep r = sk_detail::Rep<T>(OP, isSetMask, mask, repeatTime);                                         \
    sk_detail::Strides(r, repeatParams);                                                                      \
    r.scalar = sk_detail::Bits<T>(scalarValue);                                                               \
    sk_detail::Run<T>(r, &dst, &src.ref_, nullptr);                                                           \
  }
#define SK_TWIN_NOTHING
SK_TWIN_SCALAR_REP(Adds, SK_TWIN_V_ADDS, kArith, SK_TWIN_ARITH_TYPES, SK_TWIN_NOTHING)
SK_TWIN_SCALAR_REP(Muls, SK_TWIN_V_MULS, kArith, SK_TWIN_ARITH_TYPES, SK_TWIN_NOTHING)
SK_TWIN_SCALAR_REP(Maxs, SK_TWIN_V_MAXS, kArith, SK_TWIN_ARITH_TYPES, SK_TWIN_NOTHING)
SK_TWIN_SCALAR_REP(Mins, SK_TWIN_V_MINS, kArith, SK_TWIN_ARITH_TYPES, SK_TWIN_NOTHING)
SK_TWIN_SCALAR_REP(LeakyRelu, SK_TWIN_V_LEAKY_RELU, kFloating, SK_TWIN_FLOAT_TYPES, SK_TWIN_NOTHING)
// roundEn (rounding of the bits shifted out) is accepted and not modelled.
#define SK_TWIN_ROUND_EN , bool = false
SK_TWIN_SCALAR_REP(ShiftLeft, SK_TWIN_X_SHIFT_LEFT, kShift, "int16_t, uint16_t, int32_t, uint32_t", SK_TWIN_ROUND_EN)
SK_TWIN_SCALAR_REP(ShiftRight, SK_TWIN_X_SHIFT_RIGHT, kShift, "int16_t, uint16_t, int32_t, uint32_t", SK_TWIN_ROUND_EN)
#undef SK_TWIN_ROUND_EN
#undef SK_TWIN_SCALAR_REP
#undef SK_TWIN_NOTHING

#define SK_TWIN_SHIFT_COUNT(NAME, OP)                                                                          \
  template <typename T>                                                                                        \
  static inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src,                               \
                          const sk_detail::Scalar<T>& scalarValue, const int32_t& count) {                     \
    SK_TWIN_TYPES_OF(NAME, kShift, "int16_t, uint16_t, int32_t, uint32_t");                                    \
    SkTwinRep r = sk_detail::CountRep<T>(OP, count);                                                           \
    r.scalar = sk_detail::Bits<T>(scalarValue);                                                                \
    sk_detail::Run<T>(r, &dst, &src.ref_, nullptr);                                                            \
  }
SK_TWIN_SHIFT_COUNT(ShiftLeft, SK_TWIN_X_SHIFT_LEFT)
SK_TWIN_SHIFT_COUNT(ShiftRight, SK_TWIN_X_SHIFT_RIGHT)
#undef SK_TWIN_SHIFT_COUNT

// ------------------------------------------------------------------- Axpy
// dst = src * scalar + dst, rounded once to T (U = T, or T = float, U = half).
namespace sk_detail {
template <typename T, typename U>
constexpr bool kAxpy = (std::is_same<T, U>::value && kOneOf<T, half, float>) ||
                       (std::is_same<T, float>::value && std::is_same<U, half>::value);
}
#define SK_TWIN_AXPY_TYPES \
  static_assert(sk_detail::kAxpy<T, U>, "AscendC::Axpy: the CPU twin supports <half, half>, <float, float>, <float, half>")
template <typename T, typename U>
static inline void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const U& scalarValue,
                        const int32_t& count) {
  SK_TWIN_AXPY_TYPES;
  SkTwinRep r = sk_detail::CountRep<T, U>(SK_TWIN_X_AXPY, count);
  r.scalar = sk_detail::Bits<U>(scalarValue);
  sk_detail::Run<T>(r, &dst, &src.ref_, nullptr);
}
template <typename T, typename U, bool isSetMask = true>
static inline void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const U& scalarValue, uint64_t mask,
                        const int64_t repeatTime, const UnaryRepeatParams& repeatParams) {
  SK_TWIN_AXPY_TYPES;
  SkTwinRep r = sk_detail::Rep<T, U>(SK_TWIN_X_AXPY, isSetMask, mask, repeatTime);
  sk_detail::Strides(r, repeatParams);
  r.scalar = sk_detail::Bits<U>(scalarValue);
  sk_detail::Run<T>(r, &dst, &src.ref_, nullptr);
}
template <typename T, typename U, bool isSetMask = true>
static inline void Axpy(const LocalTensor<T>& dst, const LocalTensor<U>& src, const U& scalarValue,
                        const uint64_t mask[], const int64_t repeatTime, const UnaryRepeatParams& repeatParams) {
  SK_TWIN_AXPY_TYPES;
  SkTwinRep r = sk_detail::Rep<T, U>(SK_TWIN_X_AXPY, isSetMask, mask, repeatTime);
  sk_detail::Strides(r, repeatParams);
  r.scalar = sk_detail::Bits<U>(scalarValue);
  sk_detail::Run<T>(r, &dst, &src.ref_, nullptr);
}
#undef SK_TWIN_AXPY_TYPES

// -------------------------------------------------------------- Duplicate
#define SK_TWIN_DUPLICATE_REP(MASK_T)                                                                       \
  template <typename T, bool isSetMask = true>                                                              \
  static inline void Duplicate(const LocalTensor<T>& dst, const sk_detail::Scalar<T>& scalarValue, MASK_T,  \
                               const int64_t repeatTime, const uint16_t dstBlockStride,                     \
                               const uint8_t dstRepeatStride) {                                             \
    SK_TWIN_TYPES_OF(Duplicate, kFill, "8/16/32-bit element types");                                        \
    SkTwinRep r = sk_detail::Rep<T>(SK_TWIN_V_DUPLICATE, isSetMask, mask, repeatTime);                      \
    r.unary = 1;                                                                                            \
    r.dst_blk = dstBlockStride;                                                                             \
    r.dst_rep = dstRepeatStride;                                                                            \
    r.scalar = sk_detail::Bits<T>(scalarValue);                                                             \
    sk_detail::Run<T>(r, &dst, nullptr, nullptr);                                                           \
  }
SK_TWIN_DUPLICATE_REP(uint64_t mask)
SK_TWIN_DUPLICATE_REP(const uint64_t mask[])
#undef SK_TWIN_DUPLICATE_REP

// ------------------------------------------------------------------- Cast
#define SK_TWIN_CAST_REP(MASK_T)                                                                                \
  template <typename T, typename U, bool isSetMask = true>                                                      \
  static inline void Cast(const LocalTensor<T>& dst, const LocalTensor<U>& src, const RoundMode& roundMode,    \
                          MASK_T, const int64_t repeatTime, const UnaryRepeatParams& repeatParams) {            \
    static_assert(!std::is_same<T, double>::value && !std::is_same<U, double>::value,                           \
                  "AscendC::Cast: the CPU twin (as Atlas A2/A3) does not convert double");                      \
    SkTwinRep r = sk_detail::Rep<T, U>(SK_TWIN_X_CAST, isSetMask, mask, repeatTime);                            \
    sk_detail::Strides(r, repeatParams);                                                                        \
    r.mode = static_cast<uint32_t>(roundMode);                                                                  \
    sk_detail::Run<T>(r, &dst, &src.ref_, nullptr);                                                             \
  }
SK_TWIN_CAST_REP(uint64_t mask)
SK_TWIN_CAST_REP(const uint64_t mask[])
#undef SK_TWIN_CAST_REP

// ------------------------------------------------------------------- Copy
template <typename T>
static inline void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t& count) {
  SK_TWIN_TYPES_OF(Copy, kB16B32, "16/32-bit element types");
  SkTwinRep r = sk_detail::CountRep<T>(SK_TWIN_X_COPY, count);
  sk_detail::Run<T>(r, &dst, &src.ref_, nullptr);
}
#define SK_TWIN_COPY_REP(MASK_T)                                                                                 \
  template <typename T, bool isSetMask = true>                                                                   \
  static inline void Copy(const LocalTensor<T>& dst, const LocalTensor<T>& src, MASK_T, const int64_t repeatTime, \
                          const CopyRepeatParams& repeatParams) {                                                \
    SK_TWIN_TYPES_OF(Copy, kB16B32, "16/32-bit element types");                                                  \
    SkTwinRep r = sk_detail::Rep<T>(SK_TWIN_X_COPY, isSetMask, mask, repeatTime);                                \
    r.unary = 1;                                                                                                 \
    r.dst_blk = repeatParams.dstStride;                                                                          \
    r.src0_blk = repeatParams.srcStride;                                                                         \
    r.dst_rep = repeatParams.dstRepeatSize;                                                                      \
    r.src0_rep = repeatParams.srcRepeatSize;                                                                     \
    sk_detail::Run<T>(r, &dst, &src.ref_, nullptr);                                                              \
  }
SK_TWIN_COPY_REP(uint64_t mask)
SK_TWIN_COPY_REP(const uint64_t mask[])
#undef SK_TWIN_COPY_REP

// -------------------------------------------------------- Compare / Select
namespace sk_detail {
template <typename T, typename U>
static inline void CheckCompareTypes() {
  static_assert(kOneOf<T, half, float, int32_t>,
                "AscendC::Compare: the CPU twin (as Atlas A2/A3) supports T = half, float, int32_t (EQ only)");
  static_assert(kOneOf<U, uint8_t, int8_t, uint16_t, uint32_t, uint64_t>,
                "AscendC::Compare: the mask tensor is uint8_t or int8_t (or the wider unsigned types Select reads)");
}
template <typename T, typename U>
static inline void CheckSelectTypes() {
  static_assert(kOneOf<T, half, float>, "AscendC::Select: the CPU twin (as Atlas A2/A3) supports T = half, float");
  static_assert(kOneOf<U, uint8_t, uint16_t, uint32_t, uint64_t>,
                "AscendC::Select: the mask tensor is uint8_t, uint16_t, uint32_t or uint64_t");
}
}  // namespace sk_detail

#define SK_TWIN_COMPARE_REP(MASK_T)                                                                               \
  template <typename T, typename U, bool isSetMask = true>                                                        \
  static inline void Compare(const LocalTensor<U>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,  \
                             CMPMODE cmpMode, MASK_T, const int64_t repeatTime,                                   \
                             const BinaryRepeatParams& repeatParams) {                                            \
    sk_detail::CheckCompareTypes<T, U>();                                                                         \
    SkTwinRep r = sk_detail::Rep<T>(SK_TWIN_X_COMPARE, isSetMask, mask, repeatTime);                              \
    sk_detail::Strides(r, repeatParams);                                                                          \
    r.mode = static_cast<uint32_t>(cmpMode);                                                                      \
    r.dst = &dst.ref_;                                                                                            \
    r.src0 = &src0.ref_;                                                                                          \
    r.src1 = &src1.ref_;                                                                                          \
    ::sk_twin_rep(&r);                                                                                            \
  }                                                                                                               \
  /* One repeat into the CMPMASK register, for Select<T, VSEL_CMPMASK_SPR>(dst, src0, src1, ...). */             \
  template <typename T, bool isSetMask = true>                                                                    \
  static inline void Compare(const LocalTensor<T>& src0, const LocalTensor<T>& src1, CMPMODE cmpMode, MASK_T,     \
                             const BinaryRepeatParams& repeatParams) {                                            \
    sk_detail::CheckCompareTypes<T, uint8_t>();                                                                   \
    SkTwinRep r = sk_detail::Rep<T>(SK_TWIN_X_COMPARE_REG, isSetMask, mask, 1);                                   \
    sk_detail::Strides(r, repeatParams);                                                                          \
    r.mode = static_cast<uint32_t>(cmpMode);                                                                      \
    r.src0 = &src0.ref_;                                                                                          \
    r.src1 = &src1.ref_;                                                                                          \
    ::sk_twin_rep(&r);                                                                                            \
  }                                                                                                               \
  template <typename T, typename U, bool isSetMask = true>                                                        \
  static inline void Compares(const LocalTensor<U>& dst, const LocalTensor<T>& src0,                             \
                              const sk_detail::Scalar<T> src1Scalar, CMPMODE cmpMode, MASK_T,                     \
                              const int64_t repeatTime, const UnaryRepeatParams& repeatParams) {                  \
    sk_detail::CheckCompareTypes<T, U>();                                                                         \
    SkTwinRep r = sk_detail::Rep<T>(SK_TWIN_X_COMPARE, isSetMask, mask, repeatTime);                              \
    sk_detail::Strides(r, repeatParams);                                                                          \
    r.mode = static_cast<uint32_t>(cmpMode);                                                                      \
    r.scalar = sk_detail::Bits<T>(src1Scalar);                                                                    \
    r.dst = &dst.ref_;                                                                                            \
    r.src0 = &src0.ref_;                                                                                          \
    ::sk_twin_rep(&r);                                                                                            \
  }                                                                                                               \
  template <typename T, typename U, bool isSetMask = true>                                                        \
  static inline void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0,                        \
                                   const sk_detail::Scalar<T> src1Scalar, CMPMODE cmpMode, MASK_T,                \
                                   const int64_t repeatTime, const UnaryRepeatParams& repeatParams) {             \
    Compares<T, U, isSetMask>(dst, src0, src1Scalar, cmpMode, mask, repeatTime, repeatParams);                    \
  }                                                                                                               \
  template <typename T, typename U, bool isSetMask = true>                                                        \
  static inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0, \
                            const LocalTensor<T>& src1, SELMODE selMode, MASK_T, const int64_t repeatTime,        \
                            const BinaryRepeatParams& repeatParams) {                                             \
    sk_detail::CheckSelectTypes<T, U>();                                                                          \
    SkTwinRep r = sk_detail::Rep<T>(SK_TWIN_X_SELECT, isSetMask, mask, repeatTime);                               \
    sk_detail::Strides(r, repeatParams);                                                                          \
    r.mode = static_cast<uint32_t>(selMode);                                                                      \
    sk_detail::Run<T>(r, &dst, &src0.ref_, &src1.ref_, &selMask.ref_);                                            \
  }                                                                                                               \
  template <typename T, typename U, bool isSetMask = true>                                                        \
  static inline void Select(const LocalTensor<T>& dst, const LocalTensor<U>& selMask, const LocalTensor<T>& src0, \
                            sk_detail::Scalar<T> src1, SELMODE selMode, MASK_T, const int64_t repeatTime,         \
                            const BinaryRepeatParams& repeatParams) {                                             \
    sk_detail::CheckSelectTypes<T, U>();                                                                          \
    SkTwinRep r = sk_detail::Rep<T>(SK_TWIN_X_SELECT, isSetMask, mask, repeatTime);                               \
    sk_detail::Strides(r, repeatParams);                                                                          \
    r.mode = static_cast<uint32_t>(selMode);                                                                      \
    r.scalar = sk_detail::Bits<T>(src1);                                                                          \
    sk_detail::Run<T>(r, &dst, &src0.ref_, nullptr, &selMask.ref_);                                               \
  }
SK_TWIN_COMPARE_REP(uint64_t mask)
SK_TWIN_COMPARE_REP(const uint64_t mask[])
#undef SK_TWIN_COMPARE_REP

// CompareScalar is the older name of Compares.
template <typename T, typename U>
static inline void CompareScalar(const LocalTensor<U>& dst, const LocalTensor<T>& src0,
                                 const sk_detail::Scalar<T> src1Scalar, CMPMODE cmpMode, uint32_t count) {
  Compares(dst, src0, src1Scalar, cmpMode, count);
}

// Select by the CMPMASK register (a Compare without dst), lanes from SetVectorMask.
template <typename T, SELMODE selMode>
static inline void Select(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                          const int64_t repeatTime, const BinaryRepeatParams& repeatParams) {
  sk_detail::CheckSelectTypes<T, uint8_t>();
  static_assert(selMode == SELMODE::VSEL_CMPMASK_SPR,
                "AscendC::Select without a selMask tensor takes SELMODE::VSEL_CMPMASK_SPR");
  SkTwinRep r = sk_detail::Rep<T>(SK_TWIN_X_SELECT_REG, SK_TWIN_MASK_REG, 0, 0, repeatTime);
  sk_detail::Strides(r, repeatParams);
  sk_detail::Run<T>(r, &dst, &src0.ref_, &src1.ref_);
}

// ----------------------------------------------------------------- Gather
template <typename T>
static inline void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& srcOffset,
                          const uint32_t srcBaseAddr, const uint32_t count) {
  SK_TWIN_TYPES_OF(Gather, kB16B32, "16/32-bit element types");
  const uint64_t mask[2] = {count, 0};
  ::sk_twin_gather(sk_detail::Dtype<T>::value, &dst.ref_, &src.ref_, &srcOffset.ref_, srcBaseAddr,
                   SK_TWIN_MASK_COUNT, mask, 0, 0);
}
template <typename T>
static inline void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& srcOffset,
                          const uint32_t srcBaseAddr, const uint64_t mask, const int64_t repeatTime,
                          const uint16_t dstRepStride) {
  SK_TWIN_TYPES_OF(Gather, kB16B32, "16/32-bit element types");
  const uint64_t m[2] = {mask, 0};
  ::sk_twin_gather(sk_detail::Dtype<T>::value, &dst.ref_, &src.ref_, &srcOffset.ref_, srcBaseAddr, SK_TWIN_MASK_CONT,
                   m, repeatTime, dstRepStride);
}
template <typename T>
static inline void Gather(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& srcOffset,
                          const uint32_t srcBaseAddr, const uint64_t mask[], const int64_t repeatTime,
                          const uint16_t dstRepStride) {
  SK_TWIN_TYPES_OF(Gather, kB16B32, "16/32-bit element types");
  ::sk_twin_gather(sk_detail::Dtype<T>::value, &dst.ref_, &src.ref_, &srcOffset.ref_, srcBaseAddr, SK_TWIN_MASK_BITS,
                   mask, repeatTime, dstRepStride);
}

// ------------------------------------------------------------- GatherMask
// reduceMode false: repeatTimes repeats of 256 bytes; true: `mask` elements
// in all (the pattern tensor is then consumed continuously). rsvdCnt: the
// number of elements written to dst.
template <typename T, typename U, int mode = 0>
static inline void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0,
                              const LocalTensor<U>& src1Pattern, const bool reduceMode, const uint32_t mask,
                              const GatherMaskParams& gatherMaskParams, uint64_t& rsvdCnt) {
  SK_TWIN_TYPES_OF(GatherMask, kB16B32, "16/32-bit element types");
  static_assert(sk_detail::kOneOf<U, uint16_t, uint32_t, int16_t, int32_t>,
                "AscendC::GatherMask: the pattern tensor is uint16_t or uint32_t");
  rsvdCnt = ::sk_twin_gather_mask(sk_detail::Dtype<T>::value, &dst.ref_, &src0.ref_, &src1Pattern.ref_, 0,
                                  reduceMode ? 1 : 0, mask, gatherMaskParams.src0BlockStride,
                                  gatherMaskParams.repeatTimes, gatherMaskParams.src0RepeatStride,
                                  gatherMaskParams.src1RepeatStride);
}
template <typename T, int mode = 0>
static inline void GatherMask(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const uint8_t src1Pattern,
                              const bool reduceMode, const uint32_t mask, const GatherMaskParams& gatherMaskParams,
                              uint64_t& rsvdCnt) {
  SK_TWIN_TYPES_OF(GatherMask, kB16B32, "16/32-bit element types");
  rsvdCnt = ::sk_twin_gather_mask(sk_detail::Dtype<T>::value, &dst.ref_, &src0.ref_, nullptr, src1Pattern,
                                  reduceMode ? 1 : 0, mask, gatherMaskParams.src0BlockStride,
                                  gatherMaskParams.repeatTimes, gatherMaskParams.src0RepeatStride,
                                  gatherMaskParams.src1RepeatStride);
}

// AscendCUtils::GetRsvdCnt (the kept count of the last GatherMask) is in sk_twin_cann_utils.h.

// ------------------------------------------------------ per-repeat reductions
#define SK_TWIN_REPEAT_REDUCE(NAME, OP, ORDER_PARAM, ORDER_VALUE)                                                  \
  template <typename T, bool isSetMask = true>                                                                     \
  static inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int32_t mask,               \
                          const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,        \
                          const int32_t srcRepStride ORDER_PARAM) {                                                \
    SK_TWIN_TYPES_OF(NAME, kFloatHalf, "half, float");                                                             \
    const uint64_t m[2] = {static_cast<uint64_t>(mask < 0 ? 0 : mask), 0};                                         \
    ::sk_twin_repeat_reduce(OP, sk_detail::Dtype<T>::value, &dst.ref_, &src.ref_,                                  \
                            isSetMask ? SK_TWIN_MASK_CONT : SK_TWIN_MASK_REG, m, repeatTime,                       \
                            static_cast<uint32_t>(dstRepStride), static_cast<uint32_t>(srcBlkStride),              \
                            static_cast<uint32_t>(srcRepStride), ORDER_VALUE);                                     \
  }                                                                                                                \
  template <typename T, bool isSetMask = true>                                                                     \
  static inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint64_t mask[],            \
                          const int32_t repeatTime, const int32_t dstRepStride, const int32_t srcBlkStride,        \
                          const int32_t srcRepStride ORDER_PARAM) {                                                \
    SK_TWIN_TYPES_OF(NAME, kFloatHalf, "half, float");                                                             \
    ::sk_twin_repeat_reduce(OP, sk_detail::Dtype<T>::value, &dst.ref_, &src.ref_,                                  \
                            isSetMask ? SK_TWIN_MASK_BITS : SK_TWIN_MASK_REG, mask, repeatTime,                    \
                            static_cast<uint32_t>(dstRepStride), static_cast<uint32_t>(srcBlkStride),              \
                            static_cast<uint32_t>(srcRepStride), ORDER_VALUE);                                     \
  }
#define SK_TWIN_ORDER_PARAM , ReduceOrder order = ReduceOrder::ORDER_VALUE_INDEX
#define SK_TWIN_NO_ORDER
SK_TWIN_REPEAT_REDUCE(WholeReduceSum, SK_TWIN_V_REDUCE_SUM, SK_TWIN_NO_ORDER, 0)
SK_TWIN_REPEAT_REDUCE(WholeReduceMax, SK_TWIN_V_REDUCE_MAX, SK_TWIN_ORDER_PARAM, static_cast<uint32_t>(order))
SK_TWIN_REPEAT_REDUCE(WholeReduceMin, SK_TWIN_V_REDUCE_MIN, SK_TWIN_ORDER_PARAM, static_cast<uint32_t>(order))
SK_TWIN_REPEAT_REDUCE(PairReduceSum, 1000, SK_TWIN_NO_ORDER, 0)
SK_TWIN_REPEAT_REDUCE(BlockReduceSum, 100 + SK_TWIN_V_REDUCE_SUM, SK_TWIN_NO_ORDER, 0)
SK_TWIN_REPEAT_REDUCE(BlockReduceMax, 100 + SK_TWIN_V_REDUCE_MAX, SK_TWIN_NO_ORDER, 0)
SK_TWIN_REPEAT_REDUCE(BlockReduceMin, 100 + SK_TWIN_V_REDUCE_MIN, SK_TWIN_NO_ORDER, 0)
#undef SK_TWIN_ORDER_PARAM
#undef SK_TWIN_NO_ORDER
#undef SK_TWIN_REPEAT_REDUCE

// ------------------------------------------------------------------- fills
template <typename T>
static inline void Brcb(const LocalTensor<T>& dst, const LocalTensor<T>& src, const int64_t repeatTime,
                        const BrcbRepeatParams& repeatParams) {
  SK_TWIN_TYPES_OF(Brcb, kB16B32, "16/32-bit element types");
  ::sk_twin_brcb(sk_detail::Dtype<T>::value, &dst.ref_, &src.ref_, repeatTime, repeatParams.dstBlkStride,
                 repeatParams.dstRepStride);
}

// dst[i] = firstValue + i * diffValue, computed exactly and rounded once to T.
template <typename T>
static inline void ArithProgression(const LocalTensor<T>& dst, const sk_detail::Scalar<T> firstValue,
                                    const sk_detail::Scalar<T> diffValue, const int32_t count) {
  SK_TWIN_TYPES_OF(ArithProgression, kArith, "half, bfloat16_t, float, int16_t, int32_t");
  ::sk_twin_arith(sk_detail::Dtype<T>::value, &dst.ref_, sk_detail::Bits<T>(firstValue),
                  sk_detail::Bits<T>(diffValue), count, "ArithProgression");
}
template <typename T>
static inline void CreateVecIndex(LocalTensor<T> dst, const sk_detail::Scalar<T>& firstValue, uint32_t count) {
  SK_TWIN_TYPES_OF(CreateVecIndex, kArith, "half, bfloat16_t, float, int16_t, int32_t");
  ::sk_twin_arith(sk_detail::Dtype<T>::value, &dst.ref_, sk_detail::Bits<T>(firstValue),
                  sk_detail::Bits<T>(static_cast<T>(1)), count, "CreateVecIndex");
}

// ------------------------------------------- element-wise math (high level)
// Floor Ceil Trunc Round Sign Sin Cos Tan Tanh Sinh Cosh Atan Erf Log Log2
// Log10 (Log: natural), Asin Acos Erfc Sigmoid (1 / (1 + e^-x)) Asinh Acosh
// Atanh and Power: computed exactly in double and rounded once
// to T; the sharedTmpBuffer forms accept the buffer and do not need it.
#define SK_TWIN_MATH_UNARY(NAME, OP)                                                                           \
  template <typename T, bool isReuseSource = false>                                                            \
  static inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src, const uint32_t calCount) {     \
    SK_TWIN_TYPES_OF(NAME, kFloatHalf, "half, float");                                                         \
    SkTwinRep r = sk_detail::CountRep<T>(OP, calCount);                                                        \
    sk_detail::Run<T>(r, &dst, &src.ref_, nullptr);                                                            \
  }                                                                                                            \
  template <typename T, bool isReuseSource = false>                                                            \
  static inline void NAME(const LocalTensor<T>& dst, const LocalTensor<T>& src,                               \
                          const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t calCount) {              \
    (void)sharedTmpBuffer;                                                                                     \
    NAME<T, isReuseSource>(dst, src, calCount);                                                                \
  }
SK_TWIN_MATH_UNARY(Floor, SK_TWIN_X_FLOOR)
SK_TWIN_MATH_UNARY(Ceil, SK_TWIN_X_CEIL)
SK_TWIN_MATH_UNARY(Trunc, SK_TWIN_X_TRUNC)
SK_TWIN_MATH_UNARY(Round, SK_TWIN_X_ROUND)
SK_TWIN_MATH_UNARY(Sign, SK_TWIN_X_SIGN)
SK_TWIN_MATH_UNARY(Sin, SK_TWIN_X_SIN)
SK_TWIN_MATH_UNARY(Cos, SK_TWIN_X_COS)
SK_TWIN_MATH_UNARY(Tan, SK_TWIN_X_TAN)
SK_TWIN_MATH_UNARY(Tanh, SK_TWIN_X_TANH)
SK_TWIN_MATH_UNARY(Sinh, SK_TWIN_X_SINH)
SK_TWIN_MATH_UNARY(Cosh, SK_TWIN_X_COSH)
SK_TWIN_MATH_UNARY(Atan, SK_TWIN_X_ATAN)
SK_TWIN_MATH_UNARY(Erf, SK_TWIN_X_ERF)
SK_TWIN_MATH_UNARY(Log, SK_TWIN_V_LN)
SK_TWIN_MATH_UNARY(Log2, SK_TWIN_X_LOG2)
SK_TWIN_MATH_UNARY(Log10, SK_TWIN_X_LOG10)
SK_TWIN_MATH_UNARY(Asin, SK_TWIN_X_ASIN)
SK_TWIN_MATH_UNARY(Acos, SK_TWIN_X_ACOS)
SK_TWIN_MATH_UNARY(Erfc, SK_TWIN_X_ERFC)
SK_TWIN_MATH_UNARY(Sigmoid, SK_TWIN_X_SIGMOID)
SK_TWIN_MATH_UNARY(Asinh, SK_TWIN_X_ASINH)
SK_TWIN_MATH_UNARY(Acosh, SK_TWIN_X_ACOSH)
SK_TWIN_MATH_UNARY(Atanh, SK_TWIN_X_ATANH)
#undef SK_TWIN_MATH_UNARY

// Power: tensor ^ tensor, tensor ^ scalar, scalar ^ tensor (int32_t: exact
// integer power, wrapping modulo 2^32 like the repeated multiply).
template <typename T, bool isReuseSource = false>
static inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<T>& src1,
                         const uint32_t calCount) {
  SK_TWIN_TYPES_OF(Power, kPowerTypes, "half, float, int32_t");
  SkTwinRep r = sk_detail::CountRep<T>(SK_TWIN_X_POWER, calCount);
  sk_detail::Run<T>(r, &dst, &src0.ref_, &src1.ref_);
}
template <typename T, bool isReuseSource = false>
static inline void Power(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const sk_detail::Scalar<T>& src1,
                         const uint32_t calCount) {
  SK_TWIN_TYPES_OF(Power, kPowerTypes, "half, float, int32_t");
  SkTwinRep r = sk_detail::CountRep<T>(SK_TWIN_X_POWER, calCount);
  r.scalar = sk_detail::Bits<T>(src1);
  sk_detail::Run<T>(r, &dst, &src0.ref_, nullptr);
}
template <typename T, bool isReuseSource = false>
static inline void Power(const LocalTensor<T>& dst, const sk_detail::Scalar<T>& src0, const LocalTensor<T>& src1,
                         const uint32_t calCount) {
  SK_TWIN_TYPES_OF(Power, kPowerTypes, "half, float, int32_t");
  SkTwinRep r = sk_detail::CountRep<T>(SK_TWIN_X_POWER, calCount);
  r.scalar = sk_detail::Bits<T>(src0);
  r.mode = 1;  // the scalar is the base
  sk_detail::Run<T>(r, &dst, &src1.ref_, nullptr);
}
#define SK_TWIN_POWER_TMP(A, B)                                                                                 \
  template <typename T, bool isReuseSource = false>                                                             \
  static inline void Power(const LocalTensor<T>& dst, A src0, B src1, const LocalTensor<uint8_t>& sharedTmpBuffer, \
                           const uint32_t calCount) {                                                           \
    (void)sharedTmpBuffer;                                                                                      \
    Power<T, isReuseSource>(dst, src0, src1, calCount);                                                         \
  }
SK_TWIN_POWER_TMP(const LocalTensor<T>&, const LocalTensor<T>&)
SK_TWIN_POWER_TMP(const LocalTensor<T>&, const sk_detail::Scalar<T>&)
SK_TWIN_POWER_TMP(const sk_detail::Scalar<T>&, const LocalTensor<T>&)
#undef SK_TWIN_POWER_TMP

// Broadcast (also spelled BroadCast): dim 1 or 2, source dimensions of 1
// repeated to the destination shape; the temporary buffer is not needed.
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
static inline void Broadcast(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
                             const uint32_t dstShape[dim], const uint32_t srcShape[dim]) {
  static_assert(dim == 1 || dim == 2, "AscendC::Broadcast: dim is 1 or 2");
  static_assert(axis == 0 || axis == 1, "AscendC::Broadcast: axis is 0 or 1");
  ::sk_twin_broadcast(sk_detail::Dtype<T>::value, &dstLocal.ref_, &srcLocal.ref_, dim, dstShape, srcShape);
}
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false>
static inline void Broadcast(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
                             const uint32_t dstShape[dim], const uint32_t srcShape[dim],
                             LocalTensor<uint8_t>& sharedTmpBuffer) {
  (void)sharedTmpBuffer;
  Broadcast<T, dim, axis, isReuseSource>(dstLocal, srcLocal, dstShape, srcShape);
}
template <typename T, int32_t dim, int32_t axis, bool isReuseSource = false, typename... More>
static inline void BroadCast(const LocalTensor<T>& dstLocal, const LocalTensor<T>& srcLocal,
                             const uint32_t dstShape[dim], const uint32_t srcShape[dim], More&... more) {
  Broadcast<T, dim, axis, isReuseSource>(dstLocal, srcLocal, dstShape, srcShape, more...);
}

// The high-level reductions over one axis of a 2-D tensor: pattern
// Pattern::Reduce::AR (each row) or RA (each column); srcInnerPad: rows are
// stored 32-byte aligned. Sum of a row in the pairwise order of the
// instructions, of a column row after row; each add rounded to T.
namespace Pattern {
namespace Reduce {
struct AR {
  static constexpr uint32_t kSkTwinAr = 1;
};
struct RA {
  static constexpr uint32_t kSkTwinAr = 0;
};
}  // namespace Reduce
}  // namespace Pattern
#define SK_TWIN_AXIS_REDUCE(NAME, OP)                                                                            \
  template <typename T, class pattern, bool isReuseSource = false>                                               \
  static inline void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,                     \
                          const uint32_t srcShape[], bool srcInnerPad) {                                         \
    SK_TWIN_TYPES_OF(NAME, kFloatHalf, "half, float");                                                           \
    ::sk_twin_reduce_axis(OP, sk_detail::Dtype<T>::value, &dstTensor.ref_, &srcTensor.ref_, srcShape[0],         \
                          srcShape[1], pattern::kSkTwinAr, srcInnerPad ? 1 : 0);                                 \
  }                                                                                                              \
  template <typename T, class pattern, bool isReuseSource = false>                                               \
  static inline void NAME(const LocalTensor<T>& dstTensor, const LocalTensor<T>& srcTensor,                     \
                          const LocalTensor<uint8_t>& sharedTmpBuffer, const uint32_t srcShape[], bool srcInnerPad) { \
    (void)sharedTmpBuffer;                                                                                       \
    NAME<T, pattern, isReuseSource>(dstTensor, srcTensor, srcShape, srcInnerPad);                                \
  }
SK_TWIN_AXIS_REDUCE(ReduceSum, SK_TWIN_V_REDUCE_SUM)
SK_TWIN_AXIS_REDUCE(ReduceMax, SK_TWIN_V_REDUCE_MAX)
SK_TWIN_AXIS_REDUCE(ReduceMin, SK_TWIN_V_REDUCE_MIN)
#undef SK_TWIN_AXIS_REDUCE

// Sort32: 32 scores a repeat with their uint32 indices into descending
// (score, index) pairs (the same order as Sort<T, false>).
template <typename T>
static inline void Sort32(const LocalTensor<T>& dst, const LocalTensor<T>& src0, const LocalTensor<uint32_t>& src1,
                          const int32_t repeatTime) {
  SK_TWIN_TYPES_OF(Sort32, kFloatHalf, "half, float");
  ::sk_twin_sort(1, sk_detail::Dtype<T>::value, &dst.ref_, &src0.ref_, &src1.ref_, repeatTime, 0);
}
template <typename T>
struct MrgSortSrcList {
  MrgSortSrcList() {}
  MrgSortSrcList(const LocalTensor<T>& src1In, const LocalTensor<T>& src2In, const LocalTensor<T>& src3In,
                 const LocalTensor<T>& src4In)
      : src1(src1In), src2(src2In), src3(src3In), src4(src4In) {}
  LocalTensor<T> src1, src2, src3, src4;
};
struct MrgSort4Info {
  MrgSort4Info() {}
  MrgSort4Info(const uint16_t elementLengthsIn[4], const bool ifExhaustedSuspensionIn, const uint16_t validBitIn,
               const uint16_t repeatTimesIn)
      : ifExhaustedSuspension(ifExhaustedSuspensionIn), validBit(validBitIn), repeatTimes(repeatTimesIn) {
    for (int i = 0; i < 4; ++i) elementLengths[i] = elementLengthsIn[i];
  }
  uint16_t elementLengths[4] = {0, 0, 0, 0};
  bool ifExhaustedSuspension = false;
  uint16_t validBit = 0;
  uint16_t repeatTimes = 1;
};
template <typename T>
static inline void MrgSort(const LocalTensor<T>& dst, const MrgSortSrcList<T>& src, const MrgSort4Info& params) {
  SK_TWIN_TYPES_OF(MrgSort, kFloatHalf, "half, float");
  const SkTwinLocalRef srcs[4] = {src.src1.ref_, src.src2.ref_, src.src3.ref_, src.src4.ref_};
  ::sk_twin_mrgsort(sk_detail::Dtype<T>::value, &dst.ref_, srcs, params.elementLengths, params.validBit,
                    params.ifExhaustedSuspension ? 1 : 0, params.repeatTimes);
}

// TransDataTo5HD (8-, 16- and 32-bit element types): each repeat transposes
// the matrix of the 16 source DataBlocks into the 16 destination DataBlocks
// (sk_twin_ext.h sk_twin_trans5hd says where each element goes).
constexpr int32_t NCHW_CONV_ADDR_LIST_SIZE = 16;
struct TransDataTo5HDParams {
  // constexpr: kernels keep fixed parameter sets as constexpr constants.
  constexpr TransDataTo5HDParams() {}
  constexpr TransDataTo5HDParams(const bool dstHighHalfIn, const bool srcHighHalfIn, const uint8_t repeatTimesIn,
                       const uint16_t dstRepStrideIn, const uint16_t srcRepStrideIn)
      : dstHighHalf(dstHighHalfIn), srcHighHalf(srcHighHalfIn), repeatTimes(repeatTimesIn),
        dstRepStride(dstRepStrideIn), srcRepStride(srcRepStrideIn) {}
  bool dstHighHalf = false;
  bool srcHighHalf = false;
  uint8_t repeatTimes = 1;
  uint16_t dstRepStride = 0;
  uint16_t srcRepStride = 0;
};
namespace sk_detail {
template <typename T>
constexpr bool kTrans5hd = kOneOf<T, int8_t, uint8_t, int16_t, uint16_t, half, int32_t, uint32_t, float>;
}
template <typename T>
static inline void TransDataTo5HD(const LocalTensor<T> (&dstList)[NCHW_CONV_ADDR_LIST_SIZE],
                                  const LocalTensor<T> (&srcList)[NCHW_CONV_ADDR_LIST_SIZE],
                                  const TransDataTo5HDParams& nchwconvParams) {
  SK_TWIN_TYPES_OF(TransDataTo5HD, kTrans5hd, "int8_t, uint8_t, int16_t, uint16_t, half, int32_t, uint32_t, float");
  SkTwinLocalRef d[NCHW_CONV_ADDR_LIST_SIZE], s[NCHW_CONV_ADDR_LIST_SIZE];
  for (int32_t i = 0; i < NCHW_CONV_ADDR_LIST_SIZE; ++i) {
    d[i] = dstList[i].ref_;
    s[i] = srcList[i].ref_;
  }
  ::sk_twin_trans5hd(sk_detail::Dtype<T>::value, d, s, nullptr, nullptr, nchwconvParams.repeatTimes,
                     nchwconvParams.dstRepStride, nchwconvParams.srcRepStride, nchwconvParams.dstHighHalf ? 1 : 0,
                     nchwconvParams.srcHighHalf ? 1 : 0);
}
template <typename T>
static inline void TransDataTo5HD(uint64_t dstList[NCHW_CONV_ADDR_LIST_SIZE], uint64_t srcList[NCHW_CONV_ADDR_LIST_SIZE],
                                  const TransDataTo5HDParams& nchwconvParams) {
  SK_TWIN_TYPES_OF(TransDataTo5HD, kTrans5hd, "int8_t, uint8_t, int16_t, uint16_t, half, int32_t, uint32_t, float");
  ::sk_twin_trans5hd(sk_detail::Dtype<T>::value, nullptr, nullptr, dstList, srcList, nchwconvParams.repeatTimes,
                     nchwconvParams.dstRepStride, nchwconvParams.srcRepStride, nchwconvParams.dstHighHalf ? 1 : 0,
                     nchwconvParams.srcHighHalf ? 1 : 0);
}

// The sort family (Atlas A2/A3 layout, sk_twin_ext.h): Concat copies the
// scores, Sort orders (score, index) pairs descending by 32 (or all when
// isFullSort), Extract splits the pairs into values and uint32 indices.
template <typename T>
static inline void Concat(LocalTensor<T>& concat, const LocalTensor<T>& src, const LocalTensor<T>& tmp,
                          const int32_t repeatTime) {
  SK_TWIN_TYPES_OF(Concat, kFloatHalf, "half, float");
  (void)tmp;
  ::sk_twin_sort(0, sk_detail::Dtype<T>::value, &concat.ref_, &src.ref_, nullptr, repeatTime, 0);
}
template <typename T, bool isFullSort>
static inline void Sort(const LocalTensor<T>& dst, const LocalTensor<T>& concat, const LocalTensor<uint32_t>& index,
                        LocalTensor<T>& tmp, const int32_t repeatTime) {
  SK_TWIN_TYPES_OF(Sort, kFloatHalf, "half, float");
  (void)tmp;
  ::sk_twin_sort(1, sk_detail::Dtype<T>::value, &dst.ref_, &concat.ref_, &index.ref_, repeatTime, isFullSort ? 1 : 0);
}
template <typename T>
static inline void Extract(const LocalTensor<T>& dstValue, const LocalTensor<uint32_t>& dstIndex,
                           const LocalTensor<T>& sorted, const int32_t repeatTime) {
  SK_TWIN_TYPES_OF(Extract, kFloatHalf, "half, float");
  ::sk_twin_sort(2, sk_detail::Dtype<T>::value, &dstValue.ref_, &sorted.ref_, &dstIndex.ref_, repeatTime, 0);
}

// DEQSCALE: Cast int32_t -> half gives half(src * scale), rounded once.
static inline void SetDeqScale(half scale) { ::sk_twin_set_deq_scale(scale.bits_); }

// ------------------------------------------------------ scalar bit counts
// CountLeadingZero (64 for 0), GetBitCount<0|1>, CountBitsCntSameAsSignBit
// (the bits after the sign equal to it), GetSFFValue<0|1> (the lowest
// position of that bit, -1 if none); the Scalar* names are their older
// spellings.
static inline int64_t CountLeadingZero(uint64_t valueIn) {
  return valueIn == 0 ? 64 : __builtin_clzll(valueIn);
}
template <int countValue>
static inline int64_t GetBitCount(uint64_t valueIn) {
  static_assert(countValue == 0 || countValue == 1, "AscendC::GetBitCount<countValue>: countValue is 0 or 1");
  const int64_t ones = __builtin_popcountll(valueIn);
  return countValue == 1 ? ones : 64 - ones;
}
static inline int64_t CountBitsCntSameAsSignBit(uint64_t valueIn) {
  const uint64_t v = (valueIn >> 63) ? ~valueIn : valueIn;  // the bits after the sign that equal it are leading 0s
  return (v == 0 ? 64 : __builtin_clzll(v)) - 1;
}
template <int countValue>
static inline int64_t GetSFFValue(uint64_t valueIn) {
  static_assert(countValue == 0 || countValue == 1, "AscendC::GetSFFValue<countValue>: countValue is 0 or 1");
  const uint64_t v = countValue == 1 ? valueIn : ~valueIn;
  return v == 0 ? -1 : __builtin_ctzll(v);
}
static inline int64_t ScalarCountLeadingZero(uint64_t valueIn) { return CountLeadingZero(valueIn); }
template <int countValue>
static inline int64_t ScalarGetCountOfValue(uint64_t valueIn) {
  return GetBitCount<countValue>(valueIn);
}
template <int countValue>
static inline int64_t ScalarGetSFFValue(uint64_t valueIn) {
  return GetSFFValue<countValue>(valueIn);
}

// ------------------------------------------------------------- scalar casts
static inline float Cast(const bfloat16_t& bVal) { return static_cast<float>(bVal); }
static inline bfloat16_t Cast(const float& fVal) { return bfloat16_t(fVal); }
// float to half or int32_t with a RoundMode (int32_t saturates, NaN gives 0).
template <typename T, typename U, RoundMode roundMode>
static inline U Cast(T valueIn) {
  static_assert(std::is_same<T, float>::value && sk_detail::kOneOf<U, half, int32_t>,
                "AscendC::Cast<T, U, roundMode>(value): the CPU twin (as Atlas A2/A3) converts float to half or int32_t");
  const int m = roundMode == RoundMode::CAST_FLOOR ? sk_twin_fp::kFloor
                : roundMode == RoundMode::CAST_CEIL ? sk_twin_fp::kCeil
                : roundMode == RoundMode::CAST_ROUND ? sk_twin_fp::kAway
                : roundMode == RoundMode::CAST_TRUNC ? sk_twin_fp::kTrunc
                : roundMode == RoundMode::CAST_ODD ? sk_twin_fp::kOdd : sk_twin_fp::kRint;
  const sk_twin_fp::Round mode = static_cast<sk_twin_fp::Round>(m);
  if constexpr (std::is_same<U, half>::value) {
    return half::FromBits(static_cast<uint16_t>(sk_twin_fp::FromDouble(valueIn, 5, 10, mode)));
  } else {
    if (valueIn != valueIn) return 0;
    if (valueIn >= 2147483648.0f) return INT32_MAX;
    if (valueIn < -2147483648.0f) return INT32_MIN;
    // Round to an integral float with the mode (a 32-bit float keeps every integer of its range exactly).
    const double v = valueIn;
    const int64_t t = static_cast<int64_t>(v);  // toward zero
    const double frac = v - static_cast<double>(t);
    int64_t r = t;
    switch (mode) {
      case sk_twin_fp::kFloor: r = frac < 0 ? t - 1 : t; break;
      case sk_twin_fp::kCeil: r = frac > 0 ? t + 1 : t; break;
      case sk_twin_fp::kAway: r = frac >= 0.5 ? t + 1 : frac <= -0.5 ? t - 1 : t; break;
      case sk_twin_fp::kTrunc: break;
      case sk_twin_fp::kOdd: r = (frac != 0 && (t % 2 == 0)) ? (frac > 0 ? t + 1 : t - 1) : t; break;
      default:
        if (frac > 0.5 || (frac == 0.5 && (t % 2 != 0))) r = t + 1;
        else if (frac < -0.5 || (frac == -0.5 && (t % 2 != 0))) r = t - 1;
    }
    return static_cast<int32_t>(r > INT32_MAX ? INT32_MAX : r < INT32_MIN ? INT32_MIN : r);
  }
}

// ------------------------------------------------ whole-tensor expressions
// dst = a OP b runs the instruction over dst's length (arithmetic, And, Or);
// mask = a CMP b compares a's length (a multiple of 256 bytes) into bits.
namespace sk_detail {
template <typename T, int OP>
struct TensorExpr {
  using SkTwinExpr = void;
  const LocalTensor<T>& a;
  const LocalTensor<T>& b;
  template <typename D>
  void Eval(const LocalTensor<D>& dst) const {
    if constexpr (OP < 8) {
      static_assert(std::is_same<D, T>::value, "AscendC: dst = a op b needs dst of the operands' type");
      const int32_t n = static_cast<int32_t>(dst.GetSize());
      if constexpr (OP == 0) Add(dst, a, b, n);
      if constexpr (OP == 1) Sub(dst, a, b, n);
      if constexpr (OP == 2) Mul(dst, a, b, n);
      if constexpr (OP == 3) Div(dst, a, b, n);
      if constexpr (OP == 4) And(dst, a, b, n);
      if constexpr (OP == 5) Or(dst, a, b, n);
    } else {
      Compare(dst, a, b, static_cast<CMPMODE>(OP - 8), a.GetSize());
    }
  }
};
}  // namespace sk_detail
#define SK_TWIN_TENSOR_OP(SYM, OP)                                                                 \
  template <typename T>                                                                            \
  static inline sk_detail::TensorExpr<T, OP> operator SYM(const LocalTensor<T>& a, const LocalTensor<T>& b) { \
    return {a, b};                                                                                 \
  }
SK_TWIN_TENSOR_OP(+, 0)
SK_TWIN_TENSOR_OP(-, 1)
SK_TWIN_TENSOR_OP(*, 2)
SK_TWIN_TENSOR_OP(/, 3)
SK_TWIN_TENSOR_OP(&, 4)
SK_TWIN_TENSOR_OP(|, 5)
SK_TWIN_TENSOR_OP(<, 8 + static_cast<int>(CMPMODE::LT))
SK_TWIN_TENSOR_OP(>, 8 + static_cast<int>(CMPMODE::GT))
SK_TWIN_TENSOR_OP(==, 8 + static_cast<int>(CMPMODE::EQ))
SK_TWIN_TENSOR_OP(<=, 8 + static_cast<int>(CMPMODE::LE))
SK_TWIN_TENSOR_OP(>=, 8 + static_cast<int>(CMPMODE::GE))
SK_TWIN_TENSOR_OP(!=, 8 + static_cast<int>(CMPMODE::NE))
#undef SK_TWIN_TENSOR_OP

// InitOutput<T>(gm, size, value): the first size elements of gm set to value
// (bounds-checked against SetGlobalBuffer's size).
template <typename T>
static inline void InitOutput(GlobalTensor<T> gm, uint32_t size, T value = 0) {
  for (uint32_t i = 0; i < size; ++i) gm.SetValue(i, value);
}

#undef SK_TWIN_TYPES_OF
#undef SK_TWIN_ARITH_TYPES
#undef SK_TWIN_FLOAT_TYPES

}  // namespace AscendC

#endif  // SK_TWIN_VECTOR_EXT_H_
