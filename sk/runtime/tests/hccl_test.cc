// The HCCL high-level API on the twin's one rank (sk_twin_hccl.h): the
// context and windows a launch owns, each collective against values worked
// out here (what every rank's block is and where the definition puts it),
// and the misuse the hardware would hang on or the server refuse.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "lib/hccl/hccl.h"  // the path MC2 kernels include, before any other twin header: it stands alone

#include "ascendc_util.h"
#include "kernel_tiling/kernel_tiling.h"

using namespace AscendC;
using ascendc_test::RunAiv;

namespace {

// The collectives' definitions over ranks, for a list of per-rank buffers: the twin has one rank,
// so each call below passes a list of one, but the sums and placements are the definitions'.
std::vector<int32_t> AllReduceSum(const std::vector<std::vector<int32_t>>& ranks) {
  std::vector<int32_t> out(ranks[0].size(), 0);
  for (const auto& r : ranks) {
    for (size_t i = 0; i < r.size(); ++i) out[i] += r[i];
  }
  return out;
}

// The first `n` values of a buffer filled with start, start + step, ...
std::vector<int32_t> Ramp(size_t n, int32_t start, int32_t step) {
  std::vector<int32_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = start + static_cast<int32_t>(i) * step;
  return v;
}

GM_ADDR G(std::vector<int32_t>& v) { return reinterpret_cast<GM_ADDR>(v.data()); }

struct UserTiling {  // how a kernel's TilingData holds the HCCL tiling (InitV2 / SetCcTilingV2)
  Mc2InitTiling init;
  Mc2CcTiling allGather;
  Mc2CcTiling allReduce;
  uint32_t other;
};

void SetOpType(Mc2CcTiling* cc, HcclCMDType t) {
  const uint32_t v = static_cast<uint32_t>(t);
  std::memcpy(cc->reserved + sk_twin_hccl::kCcOpTypeOffset, &v, sizeof v);
}

TWIN_TEST(the_context_is_rank_0_of_1_with_its_own_windows_per_domain) {
  twin_test::Run run;
  const sk_twin_hccl::Context* c0 = nullptr;
  const sk_twin_hccl::Context* c1 = nullptr;
  uint32_t rank = 99, dim = 99;
  uint8_t* in0 = nullptr;
  uint8_t* out0 = nullptr;
  uint8_t* in1 = nullptr;
  uint8_t last = 0;
  RunAiv(&run, "hccl_context", [&] {
    c0 = reinterpret_cast<const sk_twin_hccl::Context*>(GetHcclContext<HCCL_GROUP_ID_0>());
    c1 = reinterpret_cast<const sk_twin_hccl::Context*>(GetHcclContext<1>());
    Hccl<HCCL_SERVER_TYPE_AICPU> hccl;
    hccl.Init(GetHcclContext<0>());
    rank = hccl.GetRankId();
    dim = hccl.GetRankDim();
    in0 = hccl.GetWindowsInAddr(0);
    out0 = hccl.GetWindowsOutAddr(0);
    Hccl<HCCL_SERVER_TYPE_AICPU> other;
    other.Init(GetHcclContext<1>());
    in1 = other.GetWindowsInAddr(0);
    // The whole window is this rank's memory: its last byte can be written and read back.
    in0[200 * 1024 * 1024 - 1] = 0x5a;
    last = in0[200 * 1024 * 1024 - 1];
    // A second call returns the same context.
    if (GetHcclContext<0>() != reinterpret_cast<const uint8_t*>(c0)) sk_twin_fail("context moved");
  });
  CHECK_OK(run);
  CHECK_EQ(rank, 0u);
  CHECK_EQ(dim, 1u);
  CHECK(c0 != nullptr && c1 != nullptr && c0 != c1);
  CHECK(in0 != nullptr && out0 != nullptr && in1 != nullptr);
  CHECK(in0 != out0 && in0 != in1);
  CHECK_EQ(static_cast<int>(last), 0x5a);
}

TWIN_TEST(all_reduce_rounds_run_at_commit_in_order_and_query_counts_them) {
  // 3 rounds of 4 int32 each; recv starts at -1 so untouched elements show.
  std::vector<int32_t> send = Ramp(12, 10, 3);
  std::vector<int32_t> recv(12, -1);
  std::vector<int32_t> after1, after2;
  int32_t q0 = -1, q1 = -1, q3 = -1, w = -1;
  twin_test::Run run;
  RunAiv(&run, "hccl_all_reduce", [&] {
    Hccl<HCCL_SERVER_TYPE_AICPU> hccl;
    hccl.Init(GetHcclContext<0>());
    HcclHandle h = hccl.AllReduce(G(send), G(recv), 4, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM, 3);
    q0 = hccl.Query(h);
    hccl.Commit(h);
    after1 = recv;
    q1 = hccl.Query(h);
    hccl.Commit(h);
    after2 = recv;
    hccl.Commit(h);
    q3 = hccl.Query(h);
    w = hccl.Wait(h);
    hccl.Finalize();
  });
  CHECK_OK(run);
  CHECK_EQ(q0, 0);
  CHECK_EQ(q1, 1);
  CHECK_EQ(q3, 3);
  CHECK_EQ(w, HCCL_SUCCESS);
  const std::vector<int32_t> sum = AllReduceSum({send});
  const std::vector<int32_t> want1 = {10, 13, 16, 19, -1, -1, -1, -1, -1, -1, -1, -1};
  const std::vector<int32_t> want2 = {10, 13, 16, 19, 22, 25, 28, 31, -1, -1, -1, -1};
  CHECK(after1 == want1);
  CHECK(after2 == want2);
  CHECK(recv == sum);
  CHECK_EQ(recv[11], 43);
}

TWIN_TEST(all_gather_puts_rank_0s_block_first_whatever_the_stride) {
  // 2 rounds of 3 halves (6 bytes each), stride 8 elements: rank r's block of round i goes to
  // recv + i*3 + r*8 elements; with one rank only r = 0 exists.
  std::vector<uint16_t> send = {0x3c00, 0x4000, 0x4200, 0x4400, 0x4500, 0x4600};
  std::vector<uint16_t> recv(16, 0xffff);
  twin_test::Run run;
  RunAiv(&run, "hccl_all_gather", [&] {
    Hccl<HCCL_SERVER_TYPE_AICPU> hccl;
    hccl.Init(GetHcclContext<0>());
    HcclHandle h = hccl.AllGather<true>(reinterpret_cast<GM_ADDR>(send.data()), reinterpret_cast<GM_ADDR>(recv.data()),
                                        3, HCCL_DATA_TYPE_FP16, 8, 2);
    hccl.Wait(h);
    hccl.Finalize();
  });
  CHECK_OK(run);
  std::vector<uint16_t> want(16, 0xffff);
  const uint32_t ranks = 1, stride = 8, count = 3;
  for (uint32_t i = 0; i < 2; ++i) {
    for (uint32_t r = 0; r < ranks; ++r) {
      for (uint32_t k = 0; k < count; ++k) want[i * count + r * stride + k] = send[i * count + k];
    }
  }
  CHECK(recv == want);
}

TWIN_TEST(reduce_scatter_takes_rank_0s_block_of_the_send_buffer) {
  // recvCount 2, strideCount 5: rank r's block sits at send + r*5; rank 0 gets block 0 reduced over 1 rank.
  std::vector<int32_t> send = Ramp(10, -4, 7);
  std::vector<int32_t> recv(4, 0);
  twin_test::Run run;
  RunAiv(&run, "hccl_reduce_scatter", [&] {
    Hccl<HCCL_SERVER_TYPE_AICPU> hccl;
    hccl.Init(GetHcclContext<0>());
    HcclHandle h = hccl.ReduceScatter(G(send), G(recv), 2, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_MAX, 5, 2);
    hccl.Commit(h);
    hccl.Commit(h);
    hccl.Wait(h);
    hccl.Wait(h);
    hccl.Finalize();
  });
  CHECK_OK(run);
  const std::vector<int32_t> want = {-4, 3, 10, 17};
  CHECK(recv == want);
}

TWIN_TEST(all_to_all_v_moves_rank_0s_counts_between_its_displacements) {
  std::vector<int32_t> send = Ramp(8, 100, 1);
  std::vector<int32_t> recv(8, 0);
  uint64_t sendCounts[1] = {3}, sdispls[1] = {2}, recvCounts[1] = {3}, rdispls[1] = {4};
  twin_test::Run run;
  RunAiv(&run, "hccl_all_to_all_v", [&] {
    Hccl<HCCL_SERVER_TYPE_AICPU> hccl;
    hccl.Init(GetHcclContext<0>());
    HcclHandle h = hccl.AlltoAllV<true>(G(send), sendCounts, sdispls, HCCL_DATA_TYPE_INT32, G(recv), recvCounts,
                                        rdispls, HCCL_DATA_TYPE_INT32);
    hccl.Wait(h);
    hccl.Finalize();
  });
  CHECK_OK(run);
  const std::vector<int32_t> want = {0, 0, 0, 0, 102, 103, 104, 0};
  CHECK(recv == want);
}

TWIN_TEST(all_to_all_and_batch_write_copy_what_rank_0_sends_itself) {
  std::vector<int32_t> send = Ramp(4, 7, 2);
  std::vector<int32_t> recv(4, 0);
  std::vector<int32_t> remote(6, 0);
  twin_test::Run run;
  RunAiv(&run, "hccl_all_to_all", [&] {
    Hccl<HCCL_SERVER_TYPE_AICPU> hccl;
    hccl.Init(GetHcclContext<0>());
    HcclHandle a = hccl.AlltoAll(G(send), G(recv), 4, HCCL_DATA_TYPE_INT32);
    hccl.Commit(a);
    sk_twin_hccl::BatchWriteItem item{reinterpret_cast<uint64_t>(send.data() + 1),
                                      reinterpret_cast<uint64_t>(remote.data() + 2), 2, HCCL_DATA_TYPE_INT32, 0};
    HcclHandle b = hccl.BatchWrite<true>(reinterpret_cast<GM_ADDR>(&item), 1);
    hccl.Wait(a);
    hccl.Wait(b);
    hccl.Finalize();
  });
  CHECK_OK(run);
  CHECK(recv == send);
  const std::vector<int32_t> want = {0, 0, 9, 11, 0, 0};
  CHECK(remote == want);
}

constexpr HcclServerConfig kOnAiv1 = {CoreType::ON_AIV, 1};

TWIN_TEST(a_config_naming_a_core_moves_data_only_for_that_core) {
  // Two AIV cores each all-gather their own 4 values into their own half of recv with
  // Hccl<AICPU, {ON_AIV, 1}>: only block 1's call reaches the server.
  std::vector<int32_t> send = Ramp(8, 50, 1);
  std::vector<int32_t> recv(8, 0);
  twin_test::Run run;
  RunAiv(&run, "hccl_config_core", [&] {
    Hccl<HCCL_SERVER_TYPE_AICPU, kOnAiv1> hccl;
    hccl.Init(GetHcclContext<0>());
    const uint32_t b = static_cast<uint32_t>(GetBlockIdx());
    hccl.Wait(hccl.AllGather<true>(G(send) + b * 16, G(recv) + b * 16, 4, HCCL_DATA_TYPE_INT32, 0));
    hccl.Finalize();
  }, 2);
  CHECK_OK(run);
  const std::vector<int32_t> want = {0, 0, 0, 0, 54, 55, 56, 57};
  CHECK(recv == want);
}

TWIN_TEST(init_v2_takes_the_cc_tiling_at_its_offset_and_checks_its_command) {
  UserTiling t;
  SetOpType(&t.allGather, HcclCMDType::HCCL_CMD_ALLGATHER);
  SetOpType(&t.allReduce, HcclCMDType::HCCL_CMD_ALLREDUCE);
  std::vector<int32_t> send = Ramp(4, 1, 1);
  std::vector<int32_t> recv(4, 0);
  twin_test::Run ok;
  RunAiv(&ok, "hccl_init_v2", [&] {
    Hccl<HCCL_SERVER_TYPE_AICPU> hccl;
    hccl.InitV2(GetHcclContext<0>(), &t);
    hccl.SetCcTilingV2(offsetof(UserTiling, allReduce));
    HcclHandle h = hccl.AllReduce<true>(G(send), G(recv), 4, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_MIN);
    hccl.Wait(h);
    hccl.Finalize();
  });
  CHECK_OK(ok);
  CHECK(recv == send);
  twin_test::Run wrong;
  RunAiv(&wrong, "hccl_wrong_cc", [&] {
    Hccl<HCCL_SERVER_TYPE_AICPU> hccl;
    hccl.InitV2(GetHcclContext<0>(), &t);
    hccl.SetCcTilingV2(offsetof(UserTiling, allGather));
    hccl.AllReduce(G(send), G(recv), 4, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM);
  });
  CHECK(wrong.status != SK_TWIN_OK);
  CHECK_CONTAINS(wrong.error(), "Hccl::AllReduce");
  CHECK_CONTAINS(wrong.error(), "command type 6, not AllReduce (2)");
  // The tiling struct may be gone by the Prepare (kernels take it with GET_TILING_DATA_WITH_STRUCT in an
  // Init method): what the Prepare needs is read at SetCcTilingV2.
  std::vector<int32_t> recv2(4, 0);
  twin_test::Run stack;
  RunAiv(&stack, "hccl_stack_tiling", [&] {
    Hccl<HCCL_SERVER_TYPE_AICPU> hccl;
    {
      UserTiling local = t;
      hccl.InitV2(GetHcclContext<0>(), &local);
      hccl.SetCcTilingV2(offsetof(UserTiling, allReduce));
      std::memset(static_cast<void*>(&local), 0xa5, sizeof local);
    }
    hccl.Wait(hccl.AllReduce<true>(G(send), G(recv2), 4, HCCL_DATA_TYPE_INT32, HCCL_REDUCE_SUM));
    hccl.Finalize();
  });
  CHECK_OK(stack);
  CHECK(recv2 == send);
  // skipLocalRankCopy = 1 in the AllGather's Mc2CcTiling: this rank's own block stays out of recvBuf.
  UserTiling skip = t;
  skip.allGather.reserved[0] = 1;
  std::vector<int32_t> gathered(4, -7);
  twin_test::Run skipped;
  RunAiv(&skipped, "hccl_skip_local", [&] {
    Hccl<HCCL_SERVER_TYPE_AICPU> hccl;
    hccl.InitV2(GetHcclContext<0>(), &skip);
    hccl.SetCcTilingV2(offsetof(UserTiling, allGather));
    hccl.Wait(hccl.AllGather<true>(G(send), G(gathered), 4, HCCL_DATA_TYPE_INT32, 0));
    hccl.Finalize();
  });
  CHECK_OK(skipped);
  CHECK(gathered == std::vector<int32_t>(4, -7));
  twin_test::Run none;
  RunAiv(&none, "hccl_no_cc", [&] {
    Hccl<HCCL_SERVER_TYPE_AICPU> hccl;
    hccl.InitV2(GetHcclContext<0>(), &t);
    hccl.AllGather(G(send), G(recv), 4, HCCL_DATA_TYPE_INT32, 0);
  });
  CHECK(none.status != SK_TWIN_OK);
  CHECK_CONTAINS(none.error(), "no Mc2CcTiling is set");
}

TWIN_TEST(a_context_of_more_than_one_rank_is_refused_by_name) {
  // A context laid out like HCCL's, saying rank 1 of 2: the twin has one rank.
  std::vector<uint8_t> ctx(sizeof(sk_twin_hccl::Context), 0);
  sk_twin_hccl::Context c;
  std::memset(&c, 0, sizeof c);
  c.rankId = 1;
  c.rankNum = 2;
  std::memcpy(ctx.data(), &c, sizeof c);
  int reached = 0;
  twin_test::Run run;
  RunAiv(&run, "hccl_two_ranks", [&] {
    SetHcclContext<0>(ctx.data());
    if (GetHcclContext<0>() != ctx.data()) sk_twin_fail("SetHcclContext not kept");
    Hccl<HCCL_SERVER_TYPE_AICPU> hccl;
    hccl.Init(GetHcclContext<0>());
    reached = 1;
  });
  CHECK(run.status != SK_TWIN_OK);
  CHECK_EQ(reached, 0);
  CHECK_CONTAINS(run.error(), "kernel 'hccl_two_ranks'");
  CHECK_CONTAINS(run.error(), "Hccl::Init");
  CHECK_CONTAINS(run.error(), "the context has rank 1 of 2 ranks");
  CHECK_CONTAINS(run.error(), "the CPU twin runs one rank");
}

// Each body misuses the API once; the launch fails naming the call and the fault.
struct Misuse {
  const char* name;
  const char* call;
  const char* words;
  std::function<void(Hccl<HCCL_SERVER_TYPE_AICPU>&, GM_ADDR, GM_ADDR)> body;
};

TWIN_TEST(misuse_is_named_at_run_time) {
  std::vector<int32_t> a(8, 1), b(8, 0);
  const std::vector<Misuse> cases = {
      {"int64", "Hccl::AllReduce", "dataType 5",
       [](auto& h, GM_ADDR s, GM_ADDR r) { h.AllReduce(s, r, 2, HCCL_DATA_TYPE_INT64, HCCL_REDUCE_SUM); }},
      {"prod", "Hccl::ReduceScatter", "reduce op 1",
       [](auto& h, GM_ADDR s, GM_ADDR r) { h.ReduceScatter(s, r, 2, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_PROD, 0); }},
      {"repeat0", "Hccl::AllGather", "repeat 0",
       [](auto& h, GM_ADDR s, GM_ADDR r) { h.AllGather(s, r, 2, HCCL_DATA_TYPE_INT32, 0, 0); }},
      {"commit_past_repeat", "Hccl::Commit", "committed a 2th time",
       [](auto& h, GM_ADDR s, GM_ADDR r) {
         HcclHandle x = h.AllGather(s, r, 2, HCCL_DATA_TYPE_INT32, 0);
         h.Commit(x);
         h.Commit(x);
       }},
      {"wait_uncommitted", "Hccl::Wait", "the hardware waits forever",
       [](auto& h, GM_ADDR s, GM_ADDR r) { h.Wait(h.AllGather(s, r, 2, HCCL_DATA_TYPE_INT32, 0)); }},
      {"wait_order", "Hccl::Wait", "Wait(0) after Wait(1)",
       [](auto& h, GM_ADDR s, GM_ADDR r) {
         HcclHandle x = h.template AllGather<true>(s, r, 2, HCCL_DATA_TYPE_INT32, 0);
         HcclHandle y = h.template AllGather<true>(s, r, 2, HCCL_DATA_TYPE_INT32, 0);
         h.Wait(y);
         h.Wait(x);
       }},
      {"finalize_uncommitted", "Hccl::Finalize", "committed 1 of 2 rounds",
       [](auto& h, GM_ADDR s, GM_ADDR r) {
         HcclHandle x = h.AllGather(s, r, 2, HCCL_DATA_TYPE_INT32, 0, 2);
         h.Commit(x);
         h.Finalize();
       }},
      {"after_finalize", "Hccl::AllGather", "called after Finalize",
       [](auto& h, GM_ADDR s, GM_ADDR r) {
         h.Finalize();
         h.AllGather(s, r, 2, HCCL_DATA_TYPE_INT32, 0);
       }},
      {"window_of_rank_1", "Hccl::GetWindowsInAddr", "rank 1 of a communication domain of 1 rank(s)",
       [](auto& h, GM_ADDR, GM_ADDR) { h.GetWindowsInAddr(1); }},
      {"out_window_of_rank_3", "Hccl::GetWindowsOutAddr", "rank 3 of a communication domain of 1 rank(s)",
       [](auto& h, GM_ADDR, GM_ADDR) { h.GetWindowsOutAddr(3); }},
      {"batch_write_to_rank_1", "Hccl::BatchWrite", "item 0 writes to rank 1",
       [](auto& h, GM_ADDR s, GM_ADDR r) {
         static sk_twin_hccl::BatchWriteItem item;
         item = {reinterpret_cast<uint64_t>(s), reinterpret_cast<uint64_t>(r), 1, HCCL_DATA_TYPE_INT8, 1};
         h.template BatchWrite<true>(reinterpret_cast<GM_ADDR>(&item), 1);
       }},
      {"bad_handle", "Hccl::Commit", "handle 3",
       [](auto& h, GM_ADDR, GM_ADDR) { h.Commit(3); }},
      {"too_many", "Hccl::AllGather", "64th Prepare call",
       [](auto& h, GM_ADDR s, GM_ADDR r) {
         for (int i = 0; i < 64; ++i) h.template AllGather<true>(s, r, 2, HCCL_DATA_TYPE_INT32, 0);
       }},
  };
  for (const Misuse& m : cases) {
    twin_test::Run run;
    RunAiv(&run, m.name, [&] {
      Hccl<HCCL_SERVER_TYPE_AICPU> hccl;
      hccl.Init(GetHcclContext<0>());
      m.body(hccl, G(a), G(b));
    });
    CHECK(run.status != SK_TWIN_OK);
    CHECK_CONTAINS(run.error(), m.call);
    CHECK_CONTAINS(run.error(), m.words);
  }
  twin_test::Run uninit;
  RunAiv(&uninit, "uninit", [&] {
    Hccl<HCCL_SERVER_TYPE_AICPU> hccl;
    hccl.GetRankId();
  });
  CHECK(uninit.status != SK_TWIN_OK);
  CHECK_CONTAINS(uninit.error(), "Hccl::GetRankId");
  CHECK_CONTAINS(uninit.error(), "not initialised");
}

TWIN_TEST(mc2_internal_names_fill_under_the_mask_register_and_give_the_sub_block) {
  // SetMaskCount + SetVectorMask(0, 20): 20 int16 elements from element 16 of a 64-element buffer are 7;
  // the rest keeps the 1 it was filled with. Sub-block of the single AIV: 0.
  std::vector<int16_t> out(64, 0);
  int64_t sub = -1;
  twin_test::Run run;
  RunAiv(&run, "mc2_impl", [&] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 64 * sizeof(int16_t));
    LocalTensor<int16_t> t = buf.Get<int16_t>();
    Duplicate(t, static_cast<int16_t>(1), 64);
    SetMaskCount();
    SetVectorMask<int16_t>(0UL, 20UL);
    DuplicateIntrinsicsImpl(reinterpret_cast<__ubuf__ int16_t*>(t[16].GetPhyAddr()), static_cast<int16_t>(7), 1, 1, 8);
    SetMaskNorm();
    ResetMask();
    for (int i = 0; i < 64; ++i) out[i] = t.GetValue(i);
    sub = GetSubBlockIdxImpl();
  });
  CHECK_OK(run);
  for (int i = 0; i < 64; ++i) CHECK_EQ(out[i], static_cast<int16_t>(i >= 16 && i < 36 ? 7 : 1));
  CHECK_EQ(sub, int64_t{0});
  // OOMCheckAddrRange declares a range (the twin's guard pages check GM): a null start with bytes is refused.
  twin_test::Run oom;
  RunAiv(&oom, "oom_range", [&] {
    OOMCheckAddrRange(reinterpret_cast<__gm__ uint8_t*>(out.data()), out.size() * sizeof(int16_t));
    OOMCheckAddrRange(static_cast<__gm__ uint8_t*>(nullptr), 0);
    OOMCheckAddrRange(static_cast<__gm__ float*>(nullptr), 64);
  });
  CHECK(oom.status != SK_TWIN_OK);
  CHECK_CONTAINS(oom.error(), "OOMCheckAddrRange: a null address with 64 bytes");
}

// The matmul + AllReduce pattern of CANN's MC2 kernels, on two AIV cores: block 0 prepares an AllReduce
// of 2 tiles from this rank's windowsIn to y before computing; each core writes its half of a tile
// (3 * x) into the window, SyncAll, block 0 commits that tile; at the end block 0 waits for both rounds,
// SyncAll, Finalize. y must be 3 * x, worked out here by plain multiplication.
struct Mc2Tiling {
  Mc2InitTiling init;
  Mc2CcTiling allReduce;
};

TWIN_TEST(a_compute_then_all_reduce_kernel_over_the_window_gives_the_one_rank_sum) {
  constexpr uint32_t kTile = 64, kTiles = 2, kHalf = kTile / 2;
  std::vector<float> x(kTile * kTiles);
  for (uint32_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<int>(i % 13) - 6);
  std::vector<float> y(kTile * kTiles, -100.0f);
  Mc2Tiling tiling;
  SetOpType(&tiling.allReduce, HcclCMDType::HCCL_CMD_ALLREDUCE);
  twin_test::Run run;
  RunAiv(&run, "mc2_all_reduce", [&] {
    Hccl<HCCL_SERVER_TYPE_AICPU> hccl;
    hccl.InitV2(GetHcclContext<0>(), &tiling);
    hccl.SetCcTilingV2(offsetof(Mc2Tiling, allReduce));
    GM_ADDR window = hccl.GetWindowsInAddr(hccl.GetRankId());
    const bool notify = GetBlockIdx() == 0;
    HcclHandle h = INVALID_HANDLE_ID;
    if (notify) {
      h = hccl.AllReduce(window, reinterpret_cast<GM_ADDR>(y.data()), kTile, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM,
                         kTiles);
    }
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, kHalf * sizeof(float));
    LocalTensor<float> t = buf.Get<float>();
    GlobalTensor<float> xg, wg;
    xg.SetGlobalBuffer(x.data());
    wg.SetGlobalBuffer(reinterpret_cast<__gm__ float*>(window));
    for (uint32_t tile = 0; tile < kTiles; ++tile) {
      const uint32_t at = tile * kTile + static_cast<uint32_t>(GetBlockIdx()) * kHalf;
      DataCopy(t, xg[at], kHalf);
      SetFlag<HardEvent::MTE2_V>(0);
      WaitFlag<HardEvent::MTE2_V>(0);
      Muls(t, t, 3.0f, kHalf);
      SetFlag<HardEvent::V_MTE3>(0);
      WaitFlag<HardEvent::V_MTE3>(0);
      DataCopy(wg[at], t, kHalf);
      SetFlag<HardEvent::MTE3_MTE2>(0);
      WaitFlag<HardEvent::MTE3_MTE2>(0);
      SyncAll<true>();
      if (notify) hccl.Commit(h);
    }
    if (notify) hccl.Wait(h);
    SyncAll<true>();
    if (notify) hccl.Finalize();
  }, 2);
  CHECK_OK(run);
  for (uint32_t i = 0; i < x.size(); ++i) CHECK_EQ(y[i], 3.0f * x[i]);
}

// 32 int16 of UB filled with 9, and 10 int16 of GM to copy into them.
struct PadRig {
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  LocalTensor<int16_t> t;
  GlobalTensor<int16_t> g;
  explicit PadRig(int16_t* src) {
    pipe.InitBuffer(buf, 32 * sizeof(int16_t));
    t = buf.Get<int16_t>();
    g.SetGlobalBuffer(src);
    Duplicate(t, static_cast<int16_t>(9), 32);
  }
};

TWIN_TEST(set_pad_value_fills_the_padding_of_a_data_copy_pad_without_is_pad) {
  // 2 rows of 5 int16 from GM with rightPadding 3: each row lands in a 32-byte block as
  // [5 values][3 x pad][8 dummy]; with SetPadValue(-2) and isPad false pad and dummy are -2.
  // Before any SetPadValue the padding keeps what the UB held (9).
  std::vector<int16_t> src = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  std::vector<int16_t> with_reg(32), without(32);
  const DataCopyExtParams copy{2, 5 * sizeof(int16_t), 0, 0, 0};
  const DataCopyPadExtParams<int16_t> pad{false, 0, 3, 0};
  twin_test::Run run;
  RunAiv(&run, "pad_value", [&] {
    PadRig a(src.data());
    DataCopyPad(a.t, a.g, copy, pad);
    for (int i = 0; i < 32; ++i) without[i] = a.t.GetValue(i);
    PadRig b(src.data());
    SetPadValue(static_cast<int16_t>(-2));
    DataCopyPad(b.t, b.g, copy, pad);
    for (int i = 0; i < 32; ++i) with_reg[i] = b.t.GetValue(i);
  });
  CHECK_OK(run);
  for (int row = 0; row < 2; ++row) {
    for (int k = 0; k < 16; ++k) {
      const int16_t data = static_cast<int16_t>(row * 5 + k + 1);
      CHECK_EQ(with_reg[row * 16 + k], static_cast<int16_t>(k < 5 ? data : -2));
      CHECK_EQ(without[row * 16 + k], static_cast<int16_t>(k < 5 ? data : 9));
    }
  }
  twin_test::Run wrong;
  RunAiv(&wrong, "pad_value_type", [&] {
    PadRig a(src.data());
    SetPadValue(1.0f);
    DataCopyPad(a.t, a.g, copy, pad);
  });
  CHECK(wrong.status != SK_TWIN_OK);
  CHECK_CONTAINS(wrong.error(), "SetPadValue set a 4-byte value");
}

}  // namespace

int main(int argc, char** argv) { return twin_test::Main(argc, argv); }
