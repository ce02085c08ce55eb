// Helpers of the Ascend C surface tests: run a body on one AIV worker, and
// reference conversions written independently of sk_twin_half.h.
#ifndef SK_TWIN_TESTS_ASCENDC_UTIL_H_
#define SK_TWIN_TESTS_ASCENDC_UTIL_H_

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "twin_test.h"

namespace ascendc_test {

inline std::function<void()>& Body() {
  static std::function<void()> body;
  return body;
}

inline void BodyEntry() { Body()(); }

// Runs body on `blocks` AIV workers (ration 0:1) as kernel `name`.
inline void RunAiv(twin_test::Run* run, const char* name, std::function<void()> body, uint32_t blocks = 1) {
  Body() = std::move(body);
  twin_test::Launch(run, name, BodyEntry, {blocks, 0, 1}, {0}, 3000);
}

// The value of a binary16 encoding, from its definition.
inline double HalfValue(uint16_t b) {
  const int sign = (b >> 15) & 1;
  const int exp = (b >> 10) & 0x1f;
  const int frac = b & 0x3ff;
  double v;
  if (exp == 0x1f) {
    v = frac ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  } else if (exp == 0) {
    v = std::ldexp(frac, -24);
  } else {
    v = std::ldexp(1024 + frac, exp - 25);
  }
  return sign ? -v : v;
}

// The binary16 nearest to v (ties to the even encoding), by search over all
// finite encodings: a reference independent of the runtime's rounding code.
inline uint16_t RefHalf(double v) {
  if (std::isnan(v)) return 0x7e00;
  const uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  const double a = std::fabs(v);
  if (a >= 65520.0) return sign | 0x7c00;  // at or past the midpoint 65504..65536
  uint16_t lo = 0, hi = 0x7bff;
  while (lo < hi) {  // the largest encoding with value <= a
    const uint16_t mid = static_cast<uint16_t>((lo + hi + 1) / 2);
    if (HalfValue(mid) <= a) lo = mid;
    else hi = static_cast<uint16_t>(mid - 1);
  }
  uint16_t best = lo;
  if (lo < 0x7bff || a > HalfValue(0x7bff)) {
    const double below = a - HalfValue(lo);
    const double above = HalfValue(static_cast<uint16_t>(lo + 1)) - a;
    if (above < below || (above == below && (lo & 1))) best = static_cast<uint16_t>(lo + 1);
  }
  return sign | best;
}

inline uint16_t Bits(half h) { return h.bits_; }
inline half H(double v) { return half::FromBits(RefHalf(v)); }

inline bool SameHalf(uint16_t a, uint16_t b) {
  const bool na = (a & 0x7c00) == 0x7c00 && (a & 0x3ff);
  const bool nb = (b & 0x7c00) == 0x7c00 && (b & 0x3ff);
  return (na && nb) || a == b;
}

inline uint32_t FloatBits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

inline bool SameFloat(float a, float b) { return (std::isnan(a) && std::isnan(b)) || FloatBits(a) == FloatBits(b); }

// The body on one AIC (the cube tests), and the launch error it must end with, naming the kernel.
inline void RunAic(twin_test::Run* run, const char* name, std::function<void()> body) {
  Body() = std::move(body);
  twin_test::Launch(run, name, BodyEntry, {1, 1, 0}, {0}, 3000);
}

inline std::string AicViolation(const char* kernel, std::function<void()> body) {
  twin_test::Run run;
  RunAic(&run, kernel, std::move(body));
  CHECK_EQ(run.status, SK_TWIN_KERNEL_ERROR);
  const std::string e = run.error();
  CHECK_CONTAINS(e, std::string("kernel '") + kernel + "'");
  return e;
}

}  // namespace ascendc_test

#endif  // SK_TWIN_TESTS_ASCENDC_UTIL_H_
