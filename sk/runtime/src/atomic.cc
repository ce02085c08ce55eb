// Atomic accumulation into GM (SetAtomicAdd/SetAtomicMax/SetAtomicMin):
// while a worker's atomic mode is set, its UB -> GM copies combine each
// element with the one in GM instead of overwriting it. One process-wide
// lock orders the accumulations of all workers, as the hardware's atomic
// unit does (and gives ThreadSanitizer the happens-before it needs).
#include <cmath>
#include <cstring>
#include <mutex>
#include <string>

#include "ascendc.h"
#include "elem.h"
#include "sk_twin_ext.h"

namespace sk_twin {
namespace {

std::mutex& AtomicMutex() {
  static std::mutex mu;
  return mu;
}

const char* AtomicName(uint32_t kind) {
  switch (kind) {
    case 1: return "SetAtomicAdd";
    case 2: return "SetAtomicMax";
    case 3: return "SetAtomicMin";
    default: return "SetAtomicNone";
  }
}

bool AtomicType(uint32_t dtype) {
  return dtype == SK_TWIN_DT_F32 || dtype == SK_TWIN_DT_HALF || dtype == SK_TWIN_DT_BF16 ||
         dtype == SK_TWIN_DT_I32 || dtype == SK_TWIN_DT_I16 || dtype == SK_TWIN_DT_I8;
}

}  // namespace

void StoreToGm(uint8_t* gm, const uint8_t* ub, uint64_t len, uint32_t dtype, const std::string& call) {
  const AscendState& st = CurrentWorker("DataCopy").ascendc;
  if (st.atomic == 0) {
    std::memcpy(gm, ub, len);
    return;
  }
  if (st.atomic_dtype != dtype) {
    FailRule(call,
             std::string(AtomicName(st.atomic)) + "<" + DtypeName(st.atomic_dtype) + "> is set, but the copy moves " +
                 DtypeName(dtype),
             "set the atomic mode with the element type of the copies (SetAtomicAdd<T>), or SetAtomicNone first");
  }
  const uint32_t e = DtypeSize(dtype);
  const bool fl = DtypeIsFloat(dtype);
  std::lock_guard<std::mutex> lock(AtomicMutex());
  for (uint64_t off = 0; off + e <= len; off += e) {
    if (fl) {
      const double a = LoadF(dtype, gm + off), b = LoadF(dtype, ub + off);
      double v = a + b;
      if (st.atomic == 2) v = std::isnan(a) || std::isnan(b) ? std::nan("") : (a >= b ? a : b);
      if (st.atomic == 3) v = std::isnan(a) || std::isnan(b) ? std::nan("") : (a <= b ? a : b);
      StoreF(dtype, gm + off, v);
    } else {
      const int64_t a = LoadI(dtype, gm + off), b = LoadI(dtype, ub + off);
      const int64_t v = st.atomic == 1 ? static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b))
                        : st.atomic == 2 ? (a > b ? a : b)
                                         : (a < b ? a : b);
      StoreI(dtype, gm + off, v);
    }
  }
}

}  // namespace sk_twin

extern "C" void sk_twin_set_atomic(uint32_t kind, uint32_t dtype) {
  sk_twin::AscendState& st = sk_twin::CurrentWorker("SetAtomic").ascendc;
  if (kind != 0 && !sk_twin::AtomicType(dtype)) {
    sk_twin::FailRule(std::string(sk_twin::AtomicName(kind)) + "<" + sk_twin::DtypeName(dtype) + ">()",
                      std::string(sk_twin::DtypeName(dtype)) + " has no atomic accumulation",
                      "float, half, bfloat16_t, int32_t, int16_t or int8_t");
  }
  st.atomic = kind;
  st.atomic_dtype = dtype;
}
