// sk_twin_ub_intrinsics.h - CCE intrinsics on Unified Buffer addresses that
// kernels call directly (the toolkit's DataCopy UB -> UB is built on
// copy_ubuf_to_ubuf): checked like the Ascend C call they implement.
//
// copy_ubuf_to_ubuf(dst, src, sid, nBurst, lenBurst, srcGap, dstGap): nBurst
// bursts of lenBurst 32-byte blocks, srcGap/dstGap blocks apart (DataCopy's
// DataCopyParams). dst and src are UB addresses (GetPhyAddr), 32-byte
// aligned, each inside a live buffer that holds all its bursts.
#ifndef SK_TWIN_UB_INTRINSICS_H_
#define SK_TWIN_UB_INTRINSICS_H_

#include <cstdint>
#include <cstdio>

static inline void copy_ubuf_to_ubuf(__ubuf__ void* dst, __ubuf__ void* src, uint8_t sid, uint16_t nBurst,
                                     uint16_t lenBurst, uint16_t srcGap, uint16_t dstGap) {
  (void)sid;
  const uint64_t d_addr = reinterpret_cast<uint64_t>(dst), s_addr = reinterpret_cast<uint64_t>(src);
  if (d_addr % 32 != 0 || s_addr % 32 != 0) {
    char msg[200];
    std::snprintf(msg, sizeof msg, "copy_ubuf_to_ubuf: dst (UB %llu) and src (UB %llu) must be 32-byte aligned",
                  static_cast<unsigned long long>(d_addr), static_cast<unsigned long long>(s_addr));
    ::sk_twin_fail(msg);
  }
  AscendC::LocalTensor<uint8_t> d, s;
  ::sk_twin_local_ref_at(d_addr, "copy_ubuf_to_ubuf", &d.ref_);
  ::sk_twin_local_ref_at(s_addr, "copy_ubuf_to_ubuf", &s.ref_);
  AscendC::DataCopy(d, s, AscendC::DataCopyParams(nBurst, lenBurst, srcGap, dstGap));
}

#endif  // SK_TWIN_UB_INTRINSICS_H_
