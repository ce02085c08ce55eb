// Ascend C names that CANN's MC2 kernels (ops-transformer
// mc2/common/inc/kernel) call directly, internal ones included:
//   GetSubBlockIdxImpl()                       GetSubBlockIdx()
//   DuplicateIntrinsicsImpl(dst, v, repeat, dstBlockStride, dstRepeatStride)
//       the vector Duplicate at UB address dst under the mask register
//       (SetVectorMask / SetMaskCount as the kernel set it), repeat
//       256-byte repeats: Duplicate<T, false> on the buffer dst lies in, from dst.
//   SetPadValue<T[, pos]>(v)                   the core's pad register: a later DataCopyPad
//       GM -> UB of T with isPad false and left/right padding fills it with v
//       (dummy bytes up to 32 too); its T must be the DataCopyPad's.
//   OOMCheckAddrRange<T>(gm, bytes)            declares a GM range legal for the device's
//       out-of-memory checker (compiled in with ASCENDC_OOM; a no-op otherwise). The
//       twin checks GM by guard pages around every allocation (windows and workspace
//       included), so it records nothing; a null address with bytes > 0 fails.
#ifndef SK_TWIN_MC2_IMPL_H_
#define SK_TWIN_MC2_IMPL_H_

#include <cstdint>
#include <cstdio>

#include "sk_twin_hccl_abi.h"

extern "C" void sk_twin_set_pad_value(uint64_t bits, uint32_t elem_bytes);

namespace AscendC {

template <typename T, TPosition pos = TPosition::MAX>
static inline void SetPadValue(T paddingValue) {
  static_assert(pos == TPosition::VECIN || pos == TPosition::VECOUT || pos == TPosition::MAX,
                "SetPadValue: pos must be VECIN, VECOUT or MAX (the GM -> UB path)");
  static_assert(sizeof(T) <= 8, "SetPadValue: an 8/16/32/64-bit element type");
  ::sk_twin_set_pad_value(sk_detail::Bits<T>(paddingValue), static_cast<uint32_t>(sizeof(T)));
}

template <typename T>
static inline void OOMCheckAddrRange(__gm__ T* gmAddr, const uint64_t gmSize) {
  if (gmAddr == nullptr && gmSize != 0) {
    char p[96];
    std::snprintf(p, sizeof p, "a null address with %llu bytes", static_cast<unsigned long long>(gmSize));
    ::sk_twin_hccl_fail("OOMCheckAddrRange", p, "the start of a GM range of gmSize bytes (or gmSize 0)");
  }
}

static inline int64_t GetSubBlockIdxImpl() { return GetSubBlockIdx(); }

template <typename T>
static inline void DuplicateIntrinsicsImpl(__ubuf__ T* dst, T value, uint8_t repeatTime, uint16_t dstBlockStride,
                                           uint8_t dstRepeatStride) {
  // dst: a GetPhyAddr address inside a live buffer, checked as the tensor from there to the buffer's end.
  LocalTensor<T> t;
  ::sk_twin_local_ref_at(reinterpret_cast<uint64_t>(dst), "DuplicateIntrinsicsImpl", &t.ref_);
  Duplicate<T, false>(t, value, uint64_t{0}, repeatTime, dstBlockStride, dstRepeatStride);
}

}  // namespace AscendC

#endif  // SK_TWIN_MC2_IMPL_H_
