// feed-sync-all: a sub-kernel that calls SyncAll on fewer cores than the
// SuperKernel runs completes because the idle cores replay its SyncAlls
// (superkernel-facts.md §5.4); without the complement it deadlocks.
#define __ASCENDC_SUPERKERNEL_AUTO_SYNC_ALL__
#include "kernel_operator.h"
#include "twin_test.h"

namespace {

constexpr int kSyncs = 3;

// params: [0] ffts, [1] workspace (config words), [2] int64 data, [3] int64 errors.
GM_ADDR Param(int i) { return reinterpret_cast<GM_ADDR*>(get_para_base())[i]; }

// A sub-kernel on `blocks` AIV logical blocks: accumulates across SyncAlls.
template <bool aivOnly>
void SubKernel(int64_t blocks) {
  auto* data = reinterpret_cast<int64_t*>(Param(2));
  auto* errors = reinterpret_cast<int64_t*>(Param(3));
  bool aic = ASCEND_IS_AIC;
  int64_t me = aic ? get_block_idx() : 64 + AscendC::GetBlockIdx();
  int64_t aivs = aivOnly ? blocks : blocks * get_subblockdim();
  for (int r = 1; r <= kSyncs; ++r) {
    data[me] = r;
    AscendC::SyncAll<aivOnly>();
    for (int64_t i = 0; i < aivs; ++i) {
      if (data[64 + i] < r) errors[me] += 1;
    }
    AscendC::SyncAll<aivOnly>();
  }
}

// The SK shape upstream generates for one op with feed-sync-all: per-op
// config word, active cores call and end, idle cores complement.
template <bool aivOnly, bool feed>
void SkEntry() {
  constexpr int64_t kActive = aivOnly ? 5 : 2;  // AIV logical blocks, or AI cores for MIX
  AscendC::g_superKernelAutoSyncAllConfigGmBaseAddr = Param(1);
  AscendC::g_superKernelAutoSyncAllSyncIdx = 0;
  AscendC::g_superKernelAutoSyncAllEnable = true;
  if ASCEND_IS_AIC {
    AscendC::g_superKernelAutoSyncAllConfigGmAddr = AscendC::g_superKernelAutoSyncAllConfigGmBaseAddr + 0 * 64;
  }
  if ASCEND_IS_AIV {
    AscendC::g_superKernelAutoSyncAllConfigGmAddr = AscendC::g_superKernelAutoSyncAllConfigGmBaseAddr + 1 * 64 + 0 * 64;
  }
  if (aivOnly && ASCEND_IS_AIC) return;
  int64_t idx = aivOnly ? AscendC::GetBlockIdx() : get_block_idx();
  if (idx < kActive) {
    SubKernel<aivOnly>(kActive);
    AscendC::SuperKernelAutoSyncAllEndImpl();
  } else if (feed) {
    AscendC::SuperKernelAutoSyncAllComplementImpl();
  }
  AscendC::g_superKernelAutoSyncAllEnable = false;
}

TWIN_TEST(idle_aivs_replay_sync_all_true) {
  std::vector<uint64_t> workspace(64, 0);
  std::vector<int64_t> data(192, 0), errors(192, 0);
  twin_test::Run run;
  twin_test::Launch(&run, "feed_aiv", SkEntry<true, true>, {4, 1, 2},
                    {0, twin_test::Addr(workspace.data()), twin_test::Addr(data.data()), twin_test::Addr(errors.data())});
  CHECK_OK(run);
  for (int64_t e : errors) CHECK_EQ(e, 0);
  CHECK_EQ(run.counter(SK_TWIN_COUNTER_FEED_SYNC_ALL_PUBLISH), uint64_t{2 * kSyncs});
  CHECK_EQ(run.counter(SK_TWIN_COUNTER_FEED_SYNC_ALL_REPLAY), uint64_t{(8 - 5) * 2 * kSyncs});
  CHECK_EQ(run.counter(SK_TWIN_COUNTER_SYNC_ALL_AIV), uint64_t{5 * 2 * kSyncs});
}

TWIN_TEST(idle_cores_replay_sync_all_false) {
  std::vector<uint64_t> workspace(64, 0);
  std::vector<int64_t> data(192, 0), errors(192, 0);
  twin_test::Run run;
  twin_test::Launch(&run, "feed_mix", SkEntry<false, true>, {5, 1, 2},
                    {0, twin_test::Addr(workspace.data()), twin_test::Addr(data.data()), twin_test::Addr(errors.data())});
  CHECK_OK(run);
  for (int64_t e : errors) CHECK_EQ(e, 0);
  // 3 idle AICs and 6 idle AIVs replay every SyncAll of the active ones.
  CHECK_EQ(run.counter(SK_TWIN_COUNTER_FEED_SYNC_ALL_REPLAY), uint64_t{(3 + 6) * 2 * kSyncs});
}

TWIN_TEST(without_feed_sync_all_the_short_sync_all_deadlocks_with_a_clear_error) {
  std::vector<uint64_t> workspace(64, 0);
  std::vector<int64_t> data(192, 0), errors(192, 0);
  twin_test::Run run;
  twin_test::Launch(&run, "no_feed", SkEntry<true, false>, {4, 1, 2},
                    {0, twin_test::Addr(workspace.data()), twin_test::Addr(data.data()), twin_test::Addr(errors.data())},
                    300);
  CHECK_EQ(run.status, SK_TWIN_DEADLOCK);
  CHECK_CONTAINS(run.error(), "kernel 'no_feed' (block_dim 4, ration 1:2) deadlocked");
  CHECK_CONTAINS(run.error(), "AIV 0.0-2.0 at wait_flag_dev(14 SYNC_AIV_ONLY_ALL) in SyncAll<true>");
  CHECK_CONTAINS(run.error(), "Never arrived: AIC 0-3, AIV 2.1-3.1 (finished the kernel)");
  CHECK_CONTAINS(run.error(), "mode-0 flag 14 SYNC_AIV_ONLY_ALL over all AIVs: round 1 set by AIV 0.0-2.0, missing AIV 2.1-3.1");
}

}  // namespace

int main(int argc, char** argv) { return twin_test::Main(argc, argv); }
