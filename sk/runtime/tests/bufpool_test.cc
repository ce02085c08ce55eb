// TBufPool (sk_twin_bufpool.h) against addresses and contents worked out by
// hand from the documented layout: a pool is carved out of its TPipe at the
// pipe's next free byte (len rounded up to 32), a shared pool starts where
// the pool it shares starts, and buffers are laid out in a pool as in a pipe.
// The rules (room, memory, bufIDSize, Reset with a tensor outstanding, a
// shared pool longer than the one it shares, use after TPipe::Reset) fail
// the launch with their message.
#include <cstring>
#include <string>
#include <vector>

#include "ascendc_util.h"

using namespace AscendC;
using ascendc_test::RunAiv;

namespace {

std::string Fails(const char* kernel, std::function<void()> body) {
  twin_test::Run run;
  RunAiv(&run, kernel, std::move(body));
  CHECK_EQ(run.status, SK_TWIN_KERNEL_ERROR);
  return run.error();
}

TWIN_TEST(pools_are_carved_out_of_the_pipe_in_order) {
  uint64_t a0 = 1, a1 = 1, b = 1, c = 1, after = 1;
  twin_test::Run run;
  RunAiv(&run, "bufpool_layout", [&] {
    TPipe pipe;
    TBufPool<TPosition::VECCALC> p1, p2;
    TQue<TPosition::VECIN, 1> q;
    TBuf<TPosition::VECCALC> tb, tail;
    TBufPool<TPosition::VECCALC, 2> inner;
    TBuf<TPosition::VECCALC> ib;
    pipe.InitBufPool(p1, 1000);  // 1024 bytes at 0
    pipe.InitBufPool(p2, 64);    // 64 bytes at 1024
    p1.InitBuffer(q, 2, 200);    // two buffers of 224 at 0 and 224
    p2.InitBuffer(tb, 64);       // at 1024
    p1.InitBufPool(inner, 96);   // nested: 96 bytes after q's, at 448
    inner.InitBuffer(ib, 32);
    pipe.InitBuffer(tail, 32);   // the pipe goes on after both pools: 1088
    LocalTensor<float> x = q.AllocTensor<float>();
    LocalTensor<float> y = q.AllocTensor<float>();
    a0 = x.GetPhyAddr();
    a1 = y.GetPhyAddr();
    q.FreeTensor(x);
    q.FreeTensor(y);
    b = tb.Get<float>().GetPhyAddr();
    c = ib.Get<float>().GetPhyAddr();
    after = tail.Get<float>().GetPhyAddr();
  });
  CHECK_OK(run);
  CHECK_EQ(a0, 0u);
  CHECK_EQ(a1, 224u);
  CHECK_EQ(b, 1024u);
  CHECK_EQ(c, 448u);
  CHECK_EQ(after, 1088u);
}

TWIN_TEST(a_shared_pool_reuses_the_bytes_of_the_pool_it_shares) {
  // Stage 1 writes 0, 1, ..., 63 through a queue of pool A; after A.Reset, stage 2 reads them back through a
  // buffer of pool B, which shares A's start. Pool C (not shared) is elsewhere and keeps its own values.
  std::vector<float> got(64, -1.0f), kept(8, -1.0f);
  twin_test::Run run;
  RunAiv(&run, "bufpool_share", [&] {
    TPipe pipe;
    TBufPool<TPosition::VECCALC> a, b, c;
    TQue<TPosition::VECOUT, 1> qa;
    TBuf<TPosition::VECCALC> bb, cb;
    pipe.InitBufPool(a, 512);
    pipe.InitBufPool(b, 256, a);
    pipe.InitBufPool(c, 32);
    a.InitBuffer(qa, 1, 256);
    c.InitBuffer(cb, 32);
    LocalTensor<float> cv = cb.Get<float>();
    Duplicate(cv, 7.0f, 8);
    LocalTensor<float> t = qa.AllocTensor<float>();
    for (int i = 0; i < 64; ++i) t.SetValue(i, static_cast<float>(i));
    qa.EnQue(t);
    LocalTensor<float> u = qa.DeQue<float>();
    qa.FreeTensor(u);
    a.Reset();
    b.InitBuffer(bb, 256);
    LocalTensor<float> v = bb.Get<float>();
    for (int i = 0; i < 64; ++i) got[i] = v.GetValue(i);
    for (int i = 0; i < 8; ++i) kept[i] = cv.GetValue(i);
    b.Reset();
  });
  CHECK_OK(run);
  for (int i = 0; i < 64; ++i) CHECK_EQ(got[i], static_cast<float>(i));
  for (int i = 0; i < 8; ++i) CHECK_EQ(kept[i], 7.0f);
}

TWIN_TEST(a_pool_keeps_its_buffers_in_its_range) {
  std::string e = Fails("bufpool_room", [] {
    TPipe pipe;
    TBufPool<TPosition::VECCALC> p;
    TQue<TPosition::VECIN, 1> q;
    pipe.InitBufPool(p, 512);
    p.InitBuffer(q, 2, 288);  // 576 > 512
  });
  CHECK_CONTAINS(e, "TBufPool::InitBuffer(que, num 2, len 288)");
  CHECK_CONTAINS(e, "needs 576 bytes at UB offset 0, but this TBufPool of 512 bytes");
}

TWIN_TEST(a_pool_holds_at_most_bufidsize_buffers) {
  std::string e = Fails("bufpool_ids", [] {
    TPipe pipe;
    TBufPool<TPosition::VECCALC, 2> p;
    TQue<TPosition::VECIN, 1> q;
    TBuf<TPosition::VECCALC> b;
    pipe.InitBufPool(p, 1024);
    p.InitBuffer(q, 2, 64);
    p.InitBuffer(b, 64);
  });
  CHECK_CONTAINS(e, "would hold 3 buffers");
  CHECK_CONTAINS(e, "at most bufIDSize = 2");
}

TWIN_TEST(reset_with_a_tensor_outstanding_fails) {
  std::string e = Fails("bufpool_reset", [] {
    TPipe pipe;
    TBufPool<TPosition::VECCALC> p;
    TQue<TPosition::VECIN, 1> q;
    pipe.InitBufPool(p, 256);
    p.InitBuffer(q, 1, 256);
    LocalTensor<float> t = q.AllocTensor<float>();
    q.EnQue(t);
    p.Reset();
  });
  CHECK_CONTAINS(e, "TBufPool::Reset");
  CHECK_CONTAINS(e, "is still enqueued");
}

TWIN_TEST(a_shared_pool_is_no_longer_than_the_pool_it_shares) {
  std::string e = Fails("bufpool_share_len", [] {
    TPipe pipe;
    TBufPool<TPosition::VECCALC> a, b;
    pipe.InitBufPool(a, 256);
    pipe.InitBufPool(b, 300, a);
  });
  CHECK_CONTAINS(e, "TPipe::InitBufPool(pool, len 300, shareBuf)");
  CHECK_CONTAINS(e, "len 320 (rounded up to 32) is longer than shareBuf");
}

TWIN_TEST(a_pool_does_not_fit_past_the_unified_buffer) {
  std::string e = Fails("bufpool_ub", [] {
    TPipe pipe;
    TBufPool<TPosition::VECCALC> a;
    pipe.InitBufPool(a, 200 * 1024);
  });
  CHECK_CONTAINS(e, "needs 204800 bytes at UB offset 0, but the UB is 196608 bytes");
}

TWIN_TEST(resetting_the_pipe_releases_its_pools) {
  std::string e = Fails("bufpool_pipe_reset", [] {
    TPipe pipe;
    TBufPool<TPosition::VECCALC> a;
    TQue<TPosition::VECIN, 1> q;
    pipe.InitBufPool(a, 256);
    a.InitBuffer(q, 1, 256);
    pipe.Reset();
    (void)q.AllocTensor<float>();
  });
  CHECK_CONTAINS(e, "TQue::AllocTensor");
  CHECK_CONTAINS(e, "its TPipe was reset or destroyed");
}

TWIN_TEST(a_copied_pipe_is_another_handle_of_the_same_pipe) {
  // Kernels take the pipe by value (Init(..., TPipe pipeIn)): buffers given through the copy are the pipe's (laid
  // out after its own), and the copy's end releases nothing.
  uint64_t first = 1, second = 1;
  float kept = 0;
  twin_test::Run run;
  RunAiv(&run, "pipe_copy", [&] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> a, b;
    pipe.InitBuffer(a, 64);
    {
      TPipe copy(pipe);
      copy.InitBuffer(b, 32);
    }
    LocalTensor<float> bt = b.Get<float>();
    Duplicate(bt, 3.0f, 8);
    kept = bt.GetValue(7);
    first = a.Get<float>().GetPhyAddr();
    second = bt.GetPhyAddr();
  });
  CHECK_OK(run);
  CHECK_EQ(first, 0u);
  CHECK_EQ(second, 64u);
  CHECK_EQ(kept, 3.0f);
}

}  // namespace

int main(int argc, char** argv) { return twin_test::Main(argc, argv); }
