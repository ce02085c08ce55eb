// sk_twin_bufpool.h - TBufPool: a part of a TPipe's memory managed by hand
// (Ascend C's basic_api/kernel_tpipe.h). TPipe::InitBufPool(pool, len) carves
// len bytes (rounded up to 32) out of the pipe; InitBufPool(pool, len,
// shareBuf) lays a second pool over shareBuf's start (len at most shareBuf's),
// so that stages without a data dependence reuse the same memory. A pool gives
// its queues and buffers memory with InitBuffer, as a TPipe does, and nests
// (TBufPool::InitBufPool). On the twin (runtime src/ascendc.cc):
//   * a pool's buffers stay inside its range, in its own physical memory, and
//     number at most bufIDSize (default 4, at most 16);
//   * shared pools alias: their buffers are the same bytes, as on the device;
//   * Reset keeps the buffers (a later stage may switch back to the pool) and
//     fails the launch if a tensor of the pool is still allocated or enqueued
//     (the pool switch's synchronisation needs every AllocTensor/FreeTensor and
//     EnQue/DeQue matched);
//   * resetting or destroying the TPipe releases its pools and their buffers.
#ifndef SK_TWIN_BUFPOOL_H_
#define SK_TWIN_BUFPOOL_H_

#include <cstdint>

namespace AscendC {

template <TPosition pos, uint32_t bufIDSize = 4>
class TBufPool {
  static_assert(bufIDSize >= 1 && bufIDSize <= 16, "TBufPool<pos, bufIDSize>: bufIDSize is 1 to 16");

 public:
  static constexpr TPosition kSkPosition = pos;
  static constexpr bool isTbufPool = true;

  TBufPool() = default;
  TBufPool(const TBufPool&) = delete;
  TBufPool& operator=(const TBufPool&) = delete;

  template <typename Q>
  bool InitBuffer(Q& que, uint8_t num, uint32_t len) {
    return sk_detail::InitQueueIn(sk_id_, "TBufPool", que, num, len);
  }
  template <TPosition bufPos>
  bool InitBuffer(TBuf<bufPos>& buf, uint32_t len) {
    return sk_detail::InitBufIn(sk_id_, buf, len);
  }
  template <class P>
  bool InitBufPool(P& bufPool, uint32_t len) {
    return bufPool.SkInit(sk_id_, len, 0u);
  }
  template <class P, class S>
  bool InitBufPool(P& bufPool, uint32_t len, S& shareBuf) {
    return bufPool.SkInit(sk_id_, len, shareBuf.sk_id_);
  }
  void Reset() { sk_twin_pool_reset(sk_id_); }

  // Called by the parent's InitBufPool.
  bool SkInit(uint32_t parent, uint32_t len, uint32_t share) {
    sk_id_ = sk_twin_pool_init(parent, static_cast<uint32_t>(pos), len, share, bufIDSize, this, sk_id_);
    return true;
  }

  uint32_t sk_id_ = 0;
};

}  // namespace AscendC

#endif  // SK_TWIN_BUFPOOL_H_
