// sk_twin_half.h - the 16-bit floating-point types of the twin's Ascend C
// surface: `half` (IEEE 754 binary16) and `bfloat16_t` (8 exponent bits,
// 7 fraction bits), plus the one rounding routine every conversion uses.
//
// Everything is inline integer code: kernels compiled against this header
// reference no libgcc/libm helpers (the SuperKernel link allows only the
// runtime's symbols). Conversions round exactly once from the exact value:
// a float or double source is decomposed into an integer significand and a
// power of two, then rounded with the requested mode. The default mode is
// round-to-nearest-even; overflow gives inf, NaN stays NaN (quiet, sign
// kept), subnormals are kept (no flush to zero).
//
// Arithmetic on `half` in scalar kernel code computes in float and rounds
// the result back to half (exact for + - * / because float carries more
// than twice half's precision), like the hardware's scalar unit.
#ifndef SK_TWIN_HALF_H_
#define SK_TWIN_HALF_H_

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace sk_twin_fp {

// Rounding modes, in the order of AscendC::RoundMode after CAST_NONE.
enum Round : int { kRint = 0, kFloor, kCeil, kAway, kTrunc, kOdd };

static constexpr inline int Clz64(uint64_t v) { return __builtin_clzll(v); }

// Rounds (-1)^sign * mag * 2^exp2 to a binary format with `ebits` exponent
// and `mbits` fraction bits; returns the encoding in the low bits.
static constexpr inline uint64_t PackRounded(bool sign, uint64_t mag, int exp2, int ebits, int mbits, Round mode) {
  const uint64_t sign_bit = static_cast<uint64_t>(sign) << (ebits + mbits);
  if (mag == 0) return sign_bit;
  const int bias = (1 << (ebits - 1)) - 1;
  const uint64_t exp_all = (uint64_t{1} << ebits) - 1;
  const uint64_t max_finite = ((exp_all - 1) << mbits) | ((uint64_t{1} << mbits) - 1);
  const uint64_t inf = exp_all << mbits;
  const int lead = Clz64(mag);
  mag <<= lead;
  exp2 -= lead;
  const int e = exp2 + 63;  // unbiased exponent of the value
  if (e > bias) {           // beyond the largest binade
    bool to_inf = mode == kRint || mode == kAway || (mode == kCeil && !sign) || (mode == kFloor && sign);
    return sign_bit | (to_inf ? inf : max_finite);
  }
  const int emin = 1 - bias;
  int shift = 0;  // bits of mag below the kept significand
  uint64_t bits = 0;
  if (e >= emin) {
    shift = 63 - mbits;
    const uint64_t keep = mag >> shift;  // includes the implicit leading one
    bits = (static_cast<uint64_t>(e + bias) << mbits) | (keep & ((uint64_t{1} << mbits) - 1));
  } else {
    shift = 63 - mbits + (emin - e);
    bits = shift >= 64 ? 0 : (mag >> shift);  // subnormal: exponent field 0
  }
  // The discarded part, compared with one half unit in the last place.
  bool nonzero = false;
  int cmp_half = 0;  // <0 below half, 0 exactly half, >0 above
  if (shift >= 65) {
    nonzero = true;
    cmp_half = -1;
  } else if (shift == 64) {
    nonzero = true;
    const uint64_t half_ulp = uint64_t{1} << 63;
    cmp_half = mag < half_ulp ? -1 : (mag == half_ulp ? 0 : 1);
  } else {
    const uint64_t rem = mag & ((uint64_t{1} << shift) - 1);
    const uint64_t half_ulp = uint64_t{1} << (shift - 1);
    nonzero = rem != 0;
    cmp_half = rem < half_ulp ? -1 : (rem == half_ulp ? 0 : 1);
  }
  bool up = false;
  switch (mode) {
    case kRint: up = cmp_half > 0 || (cmp_half == 0 && (bits & 1)); break;
    case kAway: up = cmp_half >= 0; break;
    case kTrunc: up = false; break;
    case kFloor: up = sign && nonzero; break;
    case kCeil: up = !sign && nonzero; break;
    case kOdd: up = nonzero && !(bits & 1); break;
  }
  if (up) bits += 1;  // a carry moves into the exponent, up to inf
  return sign_bit | bits;
}

// The quiet NaN of a format, with the source's sign.
static constexpr inline uint64_t QuietNan(bool sign, int ebits, int mbits) {
  return (static_cast<uint64_t>(sign) << (ebits + mbits)) | (((uint64_t{1} << ebits) - 1) << mbits) |
         (uint64_t{1} << (mbits - 1));
}

// Rounds a double to the format (see PackRounded).
static constexpr inline uint64_t FromDouble(double v, int ebits, int mbits, Round mode) {
  const uint64_t b = __builtin_bit_cast(uint64_t, v);  // constexpr, unlike memcpy
  const bool sign = (b >> 63) != 0;
  const int exp_field = static_cast<int>((b >> 52) & 0x7ff);
  const uint64_t frac = b & ((uint64_t{1} << 52) - 1);
  if (exp_field == 0x7ff) {
    if (frac != 0) return QuietNan(sign, ebits, mbits);
    return (static_cast<uint64_t>(sign) << (ebits + mbits)) | (((uint64_t{1} << ebits) - 1) << mbits);
  }
  if (exp_field == 0) return PackRounded(sign, frac, -1074, ebits, mbits, mode);
  return PackRounded(sign, frac | (uint64_t{1} << 52), exp_field - 1075, ebits, mbits, mode);
}

// Rounds a 64-bit integer to the format.
static constexpr inline uint64_t FromInt64(int64_t v, int ebits, int mbits, Round mode) {
  const bool sign = v < 0;
  const uint64_t mag = sign ? (~static_cast<uint64_t>(v) + 1) : static_cast<uint64_t>(v);
  return PackRounded(sign, mag, 0, ebits, mbits, mode);
}

// The exact value of an encoding as a double (every 16-bit format fits).
static inline double ToDouble(uint64_t bits, int ebits, int mbits) {
  const bool sign = (bits >> (ebits + mbits)) & 1;
  const uint64_t exp_all = (uint64_t{1} << ebits) - 1;
  const uint64_t exp_field = (bits >> mbits) & exp_all;
  const uint64_t frac = bits & ((uint64_t{1} << mbits) - 1);
  const int bias = (1 << (ebits - 1)) - 1;
  uint64_t out;
  if (exp_field == exp_all) {
    out = (uint64_t{0x7ff} << 52) | (frac != 0 ? (uint64_t{1} << 51) | (frac << (52 - mbits)) : 0);
  } else if (exp_field == 0) {
    if (frac == 0) {
      out = 0;
    } else {  // subnormal of the format: normal as a double
      const int top = 63 - Clz64(frac);  // frac * 2^(1 - bias - mbits), normalised for a double
      const int64_t e = top + 1 - bias - mbits;
      const uint64_t norm = (frac & ((uint64_t{1} << top) - 1)) << (52 - top);
      out = (static_cast<uint64_t>(e + 1023) << 52) | norm;
    }
  } else {
    const int64_t e = static_cast<int64_t>(exp_field) - bias;
    out = (static_cast<uint64_t>(e + 1023) << 52) | (frac << (52 - mbits));
  }
  out |= static_cast<uint64_t>(sign) << 63;
  double d;
  std::memcpy(&d, &out, sizeof d);
  return d;
}

static inline float BitsToFloat(uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}
static inline uint32_t FloatToBits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

// A 16-bit float format with ebits exponent bits, as a value type.
template <int EBITS, int MBITS, typename Self>
struct Float16Base {
  uint16_t bits_;

  Float16Base() = default;
  constexpr Float16Base(uint16_t b, int) : bits_(b) {}  // from an encoding; usable in constant expressions

  static Self FromBits(uint16_t b) {
    Self h;
    h.bits_ = b;
    return h;
  }
  static Self Round(double v, Round mode = kRint) {
    return FromBits(static_cast<uint16_t>(FromDouble(v, EBITS, MBITS, mode)));
  }
  double ToDouble() const { return sk_twin_fp::ToDouble(bits_, EBITS, MBITS); }
  bool IsNan() const {
    const uint16_t exp_all = static_cast<uint16_t>(((1u << EBITS) - 1) << MBITS);
    return (bits_ & exp_all) == exp_all && (bits_ & ((1u << MBITS) - 1)) != 0;
  }
};

}  // namespace sk_twin_fp

#define SK_TWIN_FLOAT16_TYPE(NAME, EBITS, MBITS)                                                                \
  struct NAME : sk_twin_fp::Float16Base<EBITS, MBITS, NAME> {                                                  \
    NAME() = default;                                                                                            \
    template <typename U, typename std::enable_if<std::is_arithmetic<U>::value, int>::type = 0>                \
    constexpr NAME(U v) : sk_twin_fp::Float16Base<EBITS, MBITS, NAME>(Encode(v), 0) {}                         \
    template <typename U>                                                                                        \
    static constexpr uint16_t Encode(U v) {                                                                      \
      if constexpr (std::is_integral<U>::value) {                                                                \
        return static_cast<uint16_t>(sk_twin_fp::FromInt64(static_cast<int64_t>(v), EBITS, MBITS, sk_twin_fp::kRint)); \
      } else {                                                                                                   \
        return static_cast<uint16_t>(sk_twin_fp::FromDouble(static_cast<double>(v), EBITS, MBITS, sk_twin_fp::kRint)); \
      }                                                                                                          \
    }                                                                                                            \
    operator float() const { return static_cast<float>(ToDouble()); }                                           \
    NAME operator-() const { return FromBits(static_cast<uint16_t>(bits_ ^ 0x8000u)); }                         \
    NAME operator+() const { return *this; }                                                                    \
    NAME& operator+=(NAME o) { return *this = NAME(float(*this) + float(o)); }                                  \
    NAME& operator-=(NAME o) { return *this = NAME(float(*this) - float(o)); }                                  \
    NAME& operator*=(NAME o) { return *this = NAME(float(*this) * float(o)); }                                  \
    NAME& operator/=(NAME o) { return *this = NAME(float(*this) / float(o)); }                                  \
  };                                                                                                             \
  static inline NAME operator+(NAME a, NAME b) { return NAME(float(a) + float(b)); }                          \
  static inline NAME operator-(NAME a, NAME b) { return NAME(float(a) - float(b)); }                          \
  static inline NAME operator*(NAME a, NAME b) { return NAME(float(a) * float(b)); }                          \
  static inline NAME operator/(NAME a, NAME b) { return NAME(float(a) / float(b)); }                          \
  static inline bool operator==(NAME a, NAME b) { return float(a) == float(b); }                              \
  static inline bool operator!=(NAME a, NAME b) { return float(a) != float(b); }                              \
  static inline bool operator<(NAME a, NAME b) { return float(a) < float(b); }                                \
  static inline bool operator>(NAME a, NAME b) { return float(a) > float(b); }                                \
  static inline bool operator<=(NAME a, NAME b) { return float(a) <= float(b); }                              \
  static inline bool operator>=(NAME a, NAME b) { return float(a) >= float(b); }                              \
  SK_TWIN_FLOAT16_MIXED(NAME, +)                                                                                \
  SK_TWIN_FLOAT16_MIXED(NAME, -)                                                                                \
  SK_TWIN_FLOAT16_MIXED(NAME, *)                                                                                \
  SK_TWIN_FLOAT16_MIXED(NAME, /)                                                                                \
  SK_TWIN_FLOAT16_MIXED(NAME, ==)                                                                               \
  SK_TWIN_FLOAT16_MIXED(NAME, !=)                                                                               \
  SK_TWIN_FLOAT16_MIXED(NAME, <)                                                                                \
  SK_TWIN_FLOAT16_MIXED(NAME, >)                                                                                \
  SK_TWIN_FLOAT16_MIXED(NAME, <=)                                                                               \
  SK_TWIN_FLOAT16_MIXED(NAME, >=)

// Mixed with a built-in arithmetic type: computed as float op that type (the
// usual promotion), so `h * 0.5f` is a float and `h < 0` compiles.
#define SK_TWIN_FLOAT16_MIXED(NAME, OP)                                                             \
  template <typename U, typename std::enable_if<std::is_arithmetic<U>::value, int>::type = 0>     \
  static inline auto operator OP(NAME a, U b)->decltype(float() OP U()) {                          \
    return float(a) OP b;                                                                           \
  }                                                                                                 \
  template <typename U, typename std::enable_if<std::is_arithmetic<U>::value, int>::type = 0>     \
  static inline auto operator OP(U a, NAME b)->decltype(U() OP float()) {                          \
    return a OP float(b);                                                                           \
  }

// IEEE 754 binary16: 5 exponent bits, 10 fraction bits.
SK_TWIN_FLOAT16_TYPE(half, 5, 10)
// bfloat16: the upper half of a float.
SK_TWIN_FLOAT16_TYPE(bfloat16_t, 8, 7)

#undef SK_TWIN_FLOAT16_MIXED
#undef SK_TWIN_FLOAT16_TYPE

static_assert(sizeof(half) == 2 && std::is_trivially_copyable<half>::value, "half is two plain bytes");
static_assert(sizeof(bfloat16_t) == 2 && std::is_trivially_copyable<bfloat16_t>::value, "bfloat16_t is two bytes");

#endif  // SK_TWIN_HALF_H_
