// fixquant.h - the fixpipe's on-the-fly conversion of one L0C element (quantPre), shared by every move out of L0C
// (src/cube.cc) and the Matmul API's quantised C (src/matmul.cc). Written from the public documentation of
// QuantMode_t and of the QUANT_PRE word (Atlas A2/A3, arch 2201): M1 = bits 31..13 of the low word as a float of
// 1 sign, 8 exponent and 10 mantissa bits; bit 36 (MCB) shifts by N first (not implemented: a named failure);
// bits 45..37 a 9-bit two's complement offset (8-bit results); bit 46 signed (int8_t) or unsigned (uint8_t).
#ifndef SK_TWIN_SRC_FIXQUANT_H_
#define SK_TWIN_SRC_FIXQUANT_H_

#include <cstdint>
#include <string>

namespace sk_twin {

// Whether quantPre `quant` (QuantMode_t) turns src_dtype into dst_dtype; vector modes set *per_column.
bool FixQuantAllowed(uint32_t quant, uint32_t src_dtype, uint32_t dst_dtype, bool* per_column);
// The documented list of what FixQuantAllowed accepts, for messages.
const char* FixQuantAllowedText();
// Converts the L0C element x (src_dtype) to y (dst_dtype) under quant with the word `word` (its scalar or the
// column's element); fails naming `call` on a word the twin does not implement.
void FixQuant(uint32_t quant, uint64_t word, uint32_t src_dtype, const uint8_t* x, uint32_t dst_dtype, uint8_t* y,
              const std::string& call);

}  // namespace sk_twin

#endif  // SK_TWIN_SRC_FIXQUANT_H_
