// The pad register of a core (SetPadValue, sk_twin_mc2_impl.h): DataCopyPad
// GM -> UB with isPad false fills its padding with it (ascendc.cc).
#include <string>

#include "core.h"

extern "C" {

void sk_twin_set_pad_value(uint64_t bits, uint32_t elem_bytes) {
  sk_twin::AscendState& st = sk_twin::CurrentWorker("SetPadValue").ascendc;
  if (elem_bytes != 1 && elem_bytes != 2 && elem_bytes != 4 && elem_bytes != 8) {
    sk_twin::FailRule("SetPadValue", "a " + std::to_string(elem_bytes) + "-byte value",
                      "an 8/16/32/64-bit element type (int8_t .. double)");
  }
  st.pad_bytes = elem_bytes;
  st.pad_bits = bits;
}

}  // extern "C"
