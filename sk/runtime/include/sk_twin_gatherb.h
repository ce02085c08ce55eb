// sk_twin_gatherb.h - Gatherb (Ascend C basic_api/kernel_operator_vec_gather_
// intf.h): gathers whole 32-byte DataBlocks of src into dst. Repeat i writes 8
// blocks: block j comes from src's byte offset offset[i * 8 + j] and goes to
// byte i * 32 * dstRepStride + j * 32 * dstBlkStride of dst (dstBlkStride 0
// counts as 1). On Atlas A2/A3 T is uint16_t or uint32_t. Checked: repeatTime
// 0..255 (0 writes nothing), dst/src/offset 32-byte aligned, dst not src, each
// offset a multiple of 32 (so the block stays aligned) and, like every
// access, inside its operand's buffer.
#ifndef SK_TWIN_GATHERB_H_
#define SK_TWIN_GATHERB_H_

#include <cstdint>
#include <cstdio>

namespace AscendC {

struct GatherRepeatParams {
  GatherRepeatParams() {}
  GatherRepeatParams(const uint8_t dstBlkStrideIn, const uint8_t dstRepStrideIn)
      : dstRepStride(dstRepStrideIn), dstBlkStride(dstBlkStrideIn) {}
  uint32_t blockNumber = 8;
  uint16_t dstRepStride = DEFAULT_REPEAT_STRIDE;
  uint8_t dstBlkStride = DEFAULT_BLK_STRIDE;
  // Reserved by the toolkit, not read (the instruction has no source strides).
  uint8_t src0BlkStride = DEFAULT_BLK_STRIDE;
  uint8_t src1BlkStride = DEFAULT_BLK_STRIDE;
  uint8_t src0RepStride = DEFAULT_REPEAT_STRIDE;
  uint8_t src1RepStride = DEFAULT_REPEAT_STRIDE;
  bool repeatStrideMode = false;
  bool strideSizeMode = false;
};

template <typename T>
static inline void Gatherb(const LocalTensor<T>& dst, const LocalTensor<T>& src, const LocalTensor<uint32_t>& offset,
                           const int32_t repeatTime, const GatherRepeatParams& repeatParams) {
  static_assert(sk_detail::kOneOf<T, uint16_t, uint32_t>, "AscendC::Gatherb: T is uint16_t or uint32_t (Atlas A2/A3)");
  char msg[256];
  if (repeatTime < 0 || repeatTime > 255) {
    std::snprintf(msg, sizeof msg, "AscendC::Gatherb: repeatTime %d; allowed: 0..255", static_cast<int>(repeatTime));
    ::sk_twin_fail(msg);
  }
  if (dst.GetPhyAddr() % 32 != 0 || src.GetPhyAddr() % 32 != 0 || offset.GetPhyAddr() % 32 != 0) {
    std::snprintf(msg, sizeof msg,
                  "AscendC::Gatherb: dst (UB %llu), src (UB %llu) and offset (UB %llu) must start 32-byte aligned",
                  static_cast<unsigned long long>(dst.GetPhyAddr()), static_cast<unsigned long long>(src.GetPhyAddr()),
                  static_cast<unsigned long long>(offset.GetPhyAddr()));
    ::sk_twin_fail(msg);
  }
  if (dst.GetPhyAddr() == src.GetPhyAddr()) ::sk_twin_fail("AscendC::Gatherb: dst and src are the same memory; allowed: separate tensors");
  const uint32_t per_block = 32 / sizeof(T);
  const uint64_t blk = repeatParams.dstBlkStride == 0 ? 1 : repeatParams.dstBlkStride;
  for (int32_t i = 0; i < repeatTime; ++i) {
    for (uint32_t j = 0; j < 8; ++j) {
      const uint32_t off = offset.GetValue(static_cast<uint32_t>(i) * 8 + j);
      if (off % 32 != 0) {
        std::snprintf(msg, sizeof msg, "AscendC::Gatherb: offset[%u] is %u bytes; allowed: a multiple of 32 bytes",
                      static_cast<unsigned>(i * 8 + j), static_cast<unsigned>(off));
        ::sk_twin_fail(msg);
      }
      const uint64_t to = (static_cast<uint64_t>(i) * repeatParams.dstRepStride + j * blk) * per_block;
      for (uint32_t k = 0; k < per_block; ++k) {
        dst.SetValue(static_cast<uint32_t>(to + k), src.GetValue(off / sizeof(T) + k));
      }
    }
  }
}

}  // namespace AscendC

#endif  // SK_TWIN_GATHERB_H_
