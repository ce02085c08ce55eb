// The IEEE 754 single-precision bit patterns Ascend C names in namespace
// AscendC (kernels read them back as floats: `*(float*)&F32_NEG_INF`).
#ifndef SK_TWIN_FP_BITS_H_
#define SK_TWIN_FP_BITS_H_

#include <cstdint>

namespace AscendC {
const uint32_t F32_INF = 0x7f800000u;      // +infinity: exponent all ones, fraction 0
const uint32_t F32_NEG_INF = 0xff800000u;  // -infinity: the same with the sign bit
const uint32_t F32_NAN = 0x7fc00000u;      // the quiet NaN: exponent all ones, top fraction bit
}  // namespace AscendC

#endif  // SK_TWIN_FP_BITS_H_
