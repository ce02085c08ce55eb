// int4b_t in the twin's Ascend C surface: two 4-bit two's-complement elements
// a byte, element 2k in the low nibble and 2k+1 in the high one. The header
// turns element counts and offsets into bytes through sk_twin_int4_bytes (odd
// ones are refused: half a byte has no address) and moves the bytes with the
// ordinary DataCopy; Cast between int4b_t and half is done here, with the
// round modes the Atlas A2/A3 Cast table lists for the pair.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "ascendc.h"
#include "elem.h"

using sk_twin::FailRule;

extern "C" {

uint64_t sk_twin_int4_bytes(uint64_t elems, const char* call) {
  if (elems % 2 != 0) {
    FailRule(call, "T = int4b_t with the odd element count or offset " + std::to_string(elems),
             "int4b_t packs two elements a byte: counts, sizes and offsets of an int4b_t tensor must be even");
  }
  return elems / 2;
}

void sk_twin_int4_refuse(const char* call, const char* problem, const char* allowed) {
  FailRule(call, problem, allowed);
}

void sk_twin_cast_int4(uint32_t to_int4, uint32_t round_mode, const SkTwinLocalRef* dst, const SkTwinLocalRef* src,
                       int64_t count) {
  const std::string call = std::string(to_int4 ? "Cast<int4b_t, half>(" : "Cast<half, int4b_t>(") +
                           sk_twin::RoundName(round_mode) + ", count " + std::to_string(count) + ")";
  sk_twin::CheckCount(count, call);
  if (to_int4 ? round_mode > 5 : round_mode != 0) {
    FailRule(call, std::string("RoundMode ") + (round_mode <= 6 ? sk_twin::RoundName(round_mode) : "?"),
             to_int4 ? "half -> int4b_t takes CAST_NONE, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC"
                     : "int4b_t -> half takes CAST_NONE");
  }
  if (count % 2 != 0) {
    FailRule(call, "the odd count " + std::to_string(count), "a Cast with int4b_t needs an even count");
  }
  if (count == 0) return;
  const uint64_t n = static_cast<uint64_t>(count);
  const uint64_t half_bytes = n * 2, int4_bytes = n / 2;
  uint8_t* d = sk_twin::Operand(dst, to_int4 ? int4_bytes : half_bytes, call, "dst");
  const uint8_t* s = sk_twin::Operand(src, to_int4 ? half_bytes : int4_bytes, call, "src");
  // Read everything first: dst and src may share a buffer.
  std::vector<double> v(n);
  for (uint64_t i = 0; i < n; ++i) {
    if (to_int4) {
      v[i] = sk_twin::LoadF(SK_TWIN_DT_HALF, s + 2 * i);
    } else {
      const unsigned nib = (s[i / 2] >> (4 * (i % 2))) & 0xfu;
      v[i] = static_cast<double>(nib >= 8 ? static_cast<int>(nib) - 16 : static_cast<int>(nib));
    }
  }
  if (!to_int4) {
    for (uint64_t i = 0; i < n; ++i) sk_twin::StoreF(SK_TWIN_DT_HALF, d + 2 * i, v[i]);  // exact
    return;
  }
  for (uint64_t i = 0; i < n; i += 2) {
    uint8_t byte = 0;
    for (uint64_t k = 0; k < 2; ++k) {
      // Rounded with the mode (CAST_NONE: to nearest even), saturated to [-8, 7]; NaN becomes 0.
      double r = std::isnan(v[i + k]) ? 0.0 : sk_twin::RoundIntegral(v[i + k], round_mode);
      r = r < -8.0 ? -8.0 : (r > 7.0 ? 7.0 : r);
      byte |= static_cast<uint8_t>((static_cast<unsigned>(static_cast<int>(r)) & 0xfu) << (4 * k));
    }
    d[i / 2] = byte;
  }
}

}  // extern "C"
