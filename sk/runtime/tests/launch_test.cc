// Launch API: topology and identity, entries, split dispatch by core id,
// notify/wait locks, watchdog, counters, trace spans, local memory.
#include <stdexcept>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "twin_test.h"

namespace {

GM_ADDR Param(int i) { return reinterpret_cast<GM_ADDR*>(get_para_base())[i]; }

struct Identity {
  int64_t type, block, sub, sub_num, logical, block_num, coreid, rank_seen;
};

void IdentityKernel() {
  auto* out = reinterpret_cast<Identity*>(Param(1));
  Identity& me = out[sk_twin_worker_index()];
  me.type = ASCEND_IS_AIC ? 0 : 1;
  me.block = get_block_idx();
  me.sub = AscendC::GetSubBlockIdx();
  me.sub_num = get_subblockdim();
  me.logical = AscendC::GetBlockIdx();
  me.block_num = AscendC::GetBlockNum();
  me.coreid = get_coreid();
  me.rank_seen = 1;
}

TWIN_TEST(topology_and_identity_follow_the_ration) {
  struct Case {
    uint32_t aic, aiv;
  };
  for (Case c : {Case{1, 0}, Case{0, 1}, Case{1, 1}, Case{1, 2}}) {
    const uint32_t blocks = 3;
    std::vector<Identity> ids(16, Identity{});
    twin_test::Run run;
    twin_test::Launch(&run, "identity", IdentityKernel, {blocks, c.aic, c.aiv}, {0, twin_test::Addr(ids.data())}, 0,
                      0, 100);
    CHECK_OK(run);
    uint32_t workers = blocks * (c.aic + c.aiv);
    CHECK_EQ(sk_twin_result_worker_count(run.r), workers);
    uint32_t w = 0;
    for (uint32_t b = 0; b < blocks; ++b) {
      if (c.aic) {
        const Identity& id = ids[w++];
        CHECK_EQ(id.type, 0);
        CHECK_EQ(id.block, int64_t{b});
        CHECK_EQ(id.logical, int64_t{b});
        CHECK_EQ(id.block_num, int64_t{blocks});
        CHECK_EQ(id.coreid, int64_t{100 + b});
      }
      for (uint32_t s = 0; s < c.aiv; ++s) {
        const Identity& id = ids[w++];
        CHECK_EQ(id.type, 1);
        CHECK_EQ(id.block, int64_t{b});
        CHECK_EQ(id.sub, int64_t{s});
        CHECK_EQ(id.sub_num, int64_t{c.aiv});
        CHECK_EQ(id.logical, int64_t{b * c.aiv + s});  // mix AIV index = block * sub_num + sub
        CHECK_EQ(id.block_num, int64_t{blocks});
        CHECK_EQ(id.coreid, int64_t{100 + b * c.aiv + s});
      }
    }
    CHECK_EQ(std::string(sk_twin_result_worker_label(run.r, 0)), std::string(c.aic ? "AIC 0" : (c.aiv == 2 ? "AIV 0.0" : "AIV 0")));
  }
}

extern "C" void add_kernel(GM_ADDR x, GM_ADDR y, GM_ADDR z) {
  const int64_t n = 64;
  int64_t per = n / AscendC::GetBlockNum();
  int64_t begin = AscendC::GetBlockIdx() * per;
  auto* a = reinterpret_cast<const float*>(x);
  auto* b = reinterpret_cast<const float*>(y);
  auto* c = reinterpret_cast<float*>(z);
  for (int64_t i = begin; i < begin + per; ++i) c[i] = a[i] + b[i];
}

TWIN_TEST(ordinary_entry_receives_params_as_arguments) {
  std::vector<float> x(64), y(64), z(64, -1.0f);
  for (int i = 0; i < 64; ++i) {
    x[i] = static_cast<float>(i);
    y[i] = 0.5f * static_cast<float>(i);
  }
  uint64_t params[3] = {twin_test::Addr(x.data()), twin_test::Addr(y.data()), twin_test::Addr(z.data())};
  SkTwinLaunch l{};
  l.name = "add_kernel";
  l.entry = reinterpret_cast<void*>(&add_kernel);
  l.num_args = 3;
  l.block_dim = 8;
  l.aic_ration = 0;
  l.aiv_ration = 1;
  l.params = params;
  l.num_params = 3;
  twin_test::Run run;
  run.status = sk_twin_launch(&l, &run.r);
  CHECK_OK(run);
  for (int i = 0; i < 64; ++i) CHECK(z[i] == 1.5f * static_cast<float>(i));
  CHECK(sk_twin_result_wall_ns(run.r) > 0);
}

// An SK-mode wrapper reads the ordinary entry's arguments from param_base.
extern "C" void add_kernel_middle(uint64_t args_offset) { sk_twin::InvokeFromParaBase(&add_kernel, args_offset); }

void AddSkEntry() {
  if ASCEND_IS_AIV add_kernel_middle(2);
}

TWIN_TEST(sk_mode_wrapper_takes_arguments_from_param_base) {
  std::vector<float> x(64, 2.0f), y(64, 3.0f), z(64, 0.0f);
  twin_test::Run run;
  twin_test::Launch(&run, "add_sk", AddSkEntry, {4, 0, 1},
                    {0, 0, twin_test::Addr(x.data()), twin_test::Addr(y.data()), twin_test::Addr(z.data())});
  CHECK_OK(run);
  for (float v : z) CHECK(v == 5.0f);
}

TWIN_TEST(bad_launches_are_refused_with_the_reason) {
  uint64_t params[1] = {0};
  SkTwinLaunch l{};
  l.name = "bad";
  l.entry = reinterpret_cast<void*>(&add_kernel);
  l.num_args = 3;
  l.block_dim = 2;
  l.aic_ration = 2;
  l.aiv_ration = 1;
  l.params = params;
  l.num_params = 1;
  twin_test::Run run;
  run.status = sk_twin_launch(&l, &run.r);
  CHECK_EQ(run.status, SK_TWIN_BAD_LAUNCH);
  CHECK_CONTAINS(run.error(), "task ration 2:1 is not supported (allowed: 1:0, 0:1, 1:1, 1:2)");
  l.aic_ration = 1;
  twin_test::Run run2;
  run2.status = sk_twin_launch(&l, &run2.r);
  CHECK_EQ(run2.status, SK_TWIN_BAD_LAUNCH);
  CHECK_CONTAINS(run2.error(), "the entry takes 3 arguments but only 1 params were given");
}

// Split dispatch as the generated code writes it: copy k runs where coreid % 4 == k.
void RecordCopy(int copy) {
  auto* out = reinterpret_cast<int64_t*>(Param(1));
  out[sk_twin_worker_index()] = copy * 1000 + get_coreid();
}
extern "C" void f_copy(uint64_t) { RecordCopy(0); }
extern "C" void f_copy_split1(uint64_t) { RecordCopy(1); }
extern "C" void f_copy_split2(uint64_t) { RecordCopy(2); }
extern "C" void f_copy_split3(uint64_t) { RecordCopy(3); }

void SplitEntry() {
  if ASCEND_IS_AIV {
    if (AscendC::GetBlockIdx() < 10) {
      uint8_t coreid = (uint8_t)get_coreid();
      if ((coreid % 4) == 0) {
        f_copy(1);
      } else if ((coreid % 4) == 1) {
        f_copy_split1(1);
      } else if ((coreid % 4) == 2) {
        f_copy_split2(1);
      } else {
        f_copy_split3(1);
      }
    }
  }
}

TWIN_TEST(split_copies_dispatch_by_core_id) {
  for (uint32_t offset : {0u, 3u}) {
    std::vector<int64_t> out(32, -1);
    twin_test::Run run;
    twin_test::Launch(&run, "split", SplitEntry, {6, 1, 2}, {0, twin_test::Addr(out.data())}, 0, 0, offset);
    CHECK_OK(run);
    int used[4] = {0, 0, 0, 0};
    for (uint32_t w = 0; w < 18; ++w) {
      std::string label = sk_twin_result_worker_label(run.r, w);
      if (label.rfind("AIC", 0) == 0) {
        CHECK_EQ(out[w], int64_t{-1});
        continue;
      }
      int64_t logical = 2 * std::stoi(label.substr(4)) + (label.back() - '0');
      if (logical >= 10) {
        CHECK_EQ(out[w], int64_t{-1});
        continue;
      }
      int64_t coreid = offset + logical;
      CHECK_EQ(out[w], (coreid % 4) * 1000 + coreid);
      used[coreid % 4] += 1;
    }
    for (int k = 0; k < 4; ++k) CHECK(used[k] > 0);
  }
}

// Notify/wait GM locks as the generated NotifyFunc/WaitFunc write them.
void NotifyWaitEntry() {
  auto* lock = reinterpret_cast<__gm__ uint64_t*>(Param(1));
  auto* data = reinterpret_cast<int64_t*>(Param(2));
  if ASCEND_IS_AIC {
    if (get_block_idx() == 0) {
      data[0] = 42;
      *lock = 1;
      dcci(lock, 0, 2);
    }
  } else {
    __gm__ volatile uint64_t* waitLock = lock;
    if (AscendC::GetBlockIdx() == 0) {
      dcci(waitLock, 0, 2);
      while (*waitLock != 1) {
        dcci(waitLock, 0, 2);
      }
      data[1] = data[0];
    }
  }
}

TWIN_TEST(notify_and_wait_locks_hand_over_between_cores) {
  std::vector<uint64_t> lock(8, 0);
  std::vector<int64_t> data(8, 0);
  twin_test::Run run;
  twin_test::Launch(&run, "notify_wait", NotifyWaitEntry, {2, 1, 2},
                    {0, twin_test::Addr(lock.data()), twin_test::Addr(data.data())});
  CHECK_OK(run);
  CHECK_EQ(data[1], int64_t{42});
}

void WaitOnlyEntry() {
  __gm__ volatile uint64_t* waitLock = reinterpret_cast<__gm__ uint64_t*>(Param(1));
  if (get_block_idx() == 0) {
    dcci(waitLock, 0, 2);
    while (*waitLock != 1) {
      dcci(waitLock, 0, 2);
    }
  }
}

TWIN_TEST(a_lock_nobody_sets_ends_in_a_deadlock_error_naming_it) {
  std::vector<uint64_t> lock(8, 0);
  twin_test::Run run;
  twin_test::Launch(&run, "wait_forever", WaitOnlyEntry, {2, 1, 0}, {0, twin_test::Addr(lock.data())}, 300);
  CHECK_EQ(run.status, SK_TWIN_DEADLOCK);
  CHECK_CONTAINS(run.error(), "AIC 0 at a spin on the GM word at ");
  CHECK_CONTAINS(run.error(), "(param_base[1]) (notify/wait lock polled with dcci)");
  CHECK_CONTAINS(run.error(), "Never arrived: AIC 1 (finished the kernel)");
  // Set before the launch, the same lock passes.
  lock[0] = 1;
  twin_test::Run ok;
  twin_test::Launch(&ok, "wait_set", WaitOnlyEntry, {2, 1, 0}, {0, twin_test::Addr(lock.data())}, 300);
  CHECK_OK(ok);
}

void RawMode2WaitOnCubeOnly() { wait_flag_dev(AscendC::SYNC_AIV_FLAG); }

TWIN_TEST(a_mode2_wait_without_aivs_deadlocks_and_says_why) {
  twin_test::Run run;
  twin_test::Launch(&run, "raw_wait_on_1_0", RawMode2WaitOnCubeOnly, {2, 1, 0}, {}, 200);
  CHECK_EQ(run.status, SK_TWIN_DEADLOCK);
  CHECK_CONTAINS(run.error(), "AIC 0-1 at wait_flag_dev(12 SYNC_AIV_FLAG).");
  CHECK_CONTAINS(run.error(), "This launch has no AIV workers");
}

// SyncAll<false> in a one-type launch is that type's barrier.
void OneTypeSyncAll() {
  auto* slots = reinterpret_cast<int64_t*>(Param(1));
  auto* errors = reinterpret_cast<int64_t*>(Param(2));
  int64_t me = AscendC::GetBlockIdx();
  for (int r = 1; r <= 20; ++r) {
    slots[me] = r;
    AscendC::SyncAll<false>();
    for (int64_t i = 0; i < AscendC::GetBlockNum(); ++i) {
      if (slots[i] < r) errors[me] += 1;
    }
    AscendC::SyncAll<false>();
  }
}

TWIN_TEST(sync_all_false_in_a_one_type_launch_is_that_types_barrier) {
  for (uint32_t aic : {0u, 1u}) {
    std::vector<int64_t> slots(16, 0), errors(16, 0);
    twin_test::Run run;
    twin_test::Launch(&run, "one_type_sync_all", OneTypeSyncAll, {6, aic, 1 - aic},
                      {0, twin_test::Addr(slots.data()), twin_test::Addr(errors.data())});
    CHECK_OK(run);
    for (int64_t e : errors) CHECK_EQ(e, 0);
  }
}

void CountedEntry() {
  preload(reinterpret_cast<const void*>(&CountedEntry), 3);
  AscendC::PreLoad(8);
  pipe_barrier(PIPE_ALL);
  AscendC::PipeBarrier<PIPE_MTE3>();
  AscendC::SetFlag<AscendC::HardEvent::MTE2_MTE3>(EVENT_ID0);
  AscendC::WaitFlag<AscendC::HardEvent::MTE2_MTE3>(EVENT_ID0);
  dcci((__gm__ uint64_t*)0, cache_line_t::ENTIRE_DATA_CACHE, dcci_dst_t::CACHELINE_OUT);
  set_ffts_base_addr(0);
  sk_twin_trace_begin("sub-kernel A");
  sk_twin_trace_end();
}

TWIN_TEST(counters_and_trace_spans) {
  twin_test::Run run;
  twin_test::Launch(&run, "counted", CountedEntry, {3, 1, 1}, {}, 0, 1);
  CHECK_OK(run);
  CHECK_EQ(run.counter(SK_TWIN_COUNTER_PRELOAD), uint64_t{12});
  CHECK_EQ(run.counter(SK_TWIN_COUNTER_PRELOAD_UNITS), uint64_t{6 * 11});
  CHECK_EQ(run.counter(SK_TWIN_COUNTER_PIPE_BARRIER), uint64_t{12});
  CHECK_EQ(run.counter(SK_TWIN_COUNTER_PIPE_FLAG), uint64_t{12});
  CHECK_EQ(run.counter(SK_TWIN_COUNTER_DCCI), uint64_t{6});
  CHECK_EQ(run.counter(SK_TWIN_COUNTER_SET_FFTS_BASE), uint64_t{6});
  CHECK_EQ(std::string(sk_twin_counter_name(SK_TWIN_COUNTER_PRELOAD_UNITS)), std::string("preload_units"));
  uint64_t kernels = 0, subs = 0;
  for (uint64_t i = 0; i < sk_twin_result_event_count(run.r); ++i) {
    uint32_t worker;
    uint64_t b, e;
    const char* name;
    const char* cat;
    CHECK_EQ(sk_twin_result_event(run.r, i, &worker, &b, &e, &name, &cat), 0);
    CHECK(b <= e);
    CHECK(b >= sk_twin_result_start_ns(run.r));
    if (std::string(cat) == "kernel") ++kernels;
    if (std::string(cat) == "sub_kernel") {
      ++subs;
      CHECK_EQ(std::string(name), std::string("sub-kernel A"));
    }
  }
  CHECK_EQ(kernels, uint64_t{6});
  CHECK_EQ(subs, uint64_t{6});
}

void ThrowingEntry() {
  if (ASCEND_IS_AIV && get_block_idx() == 1) throw std::runtime_error("bad tiling");
  AscendC::SyncAll<false>();
}

TWIN_TEST(a_throwing_kernel_fails_the_launch_and_releases_the_others) {
  twin_test::Run run;
  twin_test::Launch(&run, "thrower", ThrowingEntry, {2, 1, 1}, {}, 5000);
  CHECK_EQ(run.status, SK_TWIN_KERNEL_ERROR);
  CHECK_CONTAINS(run.error(), "kernel 'thrower' on AIV 1 threw: bad tiling");
}

// Workspace zeroing as the generated code does it (cube L1, vector UB).
void ZeroingEntry() {
  GM_ADDR workspace = Param(1);
  uint32_t sizePerCore = 4096 / get_block_num();
  const uint32_t repeatTimes = sizePerCore / 512;
  if ASCEND_IS_AIC {
    __gm__ uint8_t* startAddr = (__gm__ uint8_t*)(workspace + sizePerCore * AscendC::GetBlockIdxImpl());
    create_cbuf_matrix((__cbuf__ uint32_t*)(0), 0x10010, 0);
    for (size_t i = 0; i < repeatTimes; i++) {
      copy_cbuf_to_gm((__gm__ void*)(startAddr), (__cbuf__ void*)(0), 0, 1, 16, 1, 1);
      startAddr += 512;
    }
  }
  if ASCEND_IS_AIV {
    __gm__ uint8_t* startAddr = (__gm__ uint8_t*)(Param(2) + sizePerCore * get_block_idx());
    AscendC::DuplicateImpl<int32_t>((__ubuf__ int32_t*)(0), 0, 128);
    for (size_t i = 0; i < repeatTimes; i++) {
      copy_ubuf_to_gm((__gm__ void*)(startAddr), (__ubuf__ void*)(0), 0, 1, 16, 0, 0);
      startAddr += 512;
    }
  }
}

TWIN_TEST(local_memory_zeroes_workspace_and_checks_bounds) {
  std::vector<uint8_t> cube(4096, 0xff), vec(4096, 0xff);
  twin_test::Run run;
  twin_test::Launch(&run, "zeroing", ZeroingEntry, {4, 1, 1},
                    {0, twin_test::Addr(cube.data()), twin_test::Addr(vec.data())});
  CHECK_OK(run);
  for (uint8_t b : cube) CHECK_EQ(int{b}, 0);
  for (uint8_t b : vec) CHECK_EQ(int{b}, 0);
}

void OutOfRangeEntry() {
  if ASCEND_IS_AIV AscendC::DuplicateImpl<int32_t>((__ubuf__ int32_t*)(190 * 1024), 0, 1024);
}
void UbFromCubeEntry() {
  if ASCEND_IS_AIC AscendC::DuplicateImpl<int32_t>((__ubuf__ int32_t*)(0), 0, 8);
}

TWIN_TEST(local_memory_misuse_is_a_kernel_error) {
  twin_test::Run run;
  twin_test::Launch(&run, "ub_overflow", OutOfRangeEntry, {1, 0, 1});
  CHECK_EQ(run.status, SK_TWIN_KERNEL_ERROR);
  CHECK_CONTAINS(run.error(), "UB access [194560, 198656) is outside the 196608-byte buffer");
  twin_test::Run run2;
  twin_test::Launch(&run2, "ub_on_cube", UbFromCubeEntry, {1, 1, 0});
  CHECK_EQ(run2.status, SK_TWIN_KERNEL_ERROR);
  CHECK_CONTAINS(run2.error(), "UB (ubuf) access from an AIC");
}

TWIN_TEST(a_sequence_runs_launches_back_to_back_and_stops_at_a_failure) {
  std::vector<uint64_t> lock(8, 0);
  uint64_t params[2] = {0, twin_test::Addr(lock.data())};
  SkTwinLaunch l[3] = {};
  const char* names[3] = {"first", "stuck", "never"};
  for (int i = 0; i < 3; ++i) {
    l[i].name = names[i];
    l[i].entry = reinterpret_cast<void*>(i == 1 ? &WaitOnlyEntry : &CountedEntry);
    l[i].num_args = SK_TWIN_PARA_BASE_ENTRY;
    l[i].block_dim = 2;
    l[i].aic_ration = 1;
    l[i].aiv_ration = 0;
    l[i].params = params;
    l[i].num_params = 2;
    l[i].timeout_ms = 200;
  }
  SkTwinResult* out[3];
  CHECK_EQ(sk_twin_run_sequence(l, 3, out), SK_TWIN_DEADLOCK);
  CHECK_EQ(sk_twin_result_status(out[0]), SK_TWIN_OK);
  CHECK_EQ(sk_twin_result_status(out[1]), SK_TWIN_DEADLOCK);
  CHECK(out[2] == nullptr);
  sk_twin_result_free(out[0]);
  sk_twin_result_free(out[1]);
}

}  // namespace

int main(int argc, char** argv) { return twin_test::Main(argc, argv); }
