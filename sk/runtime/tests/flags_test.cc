// Cross-core flag semantics (modes 0/1/2), SyncAll in both flavours, and the
// nine early-start configurations.
#include <atomic>
#include <vector>

#include "kernel_operator.h"
#include "twin_test.h"

namespace {

constexpr int kRounds = 40;

// param_base[1]: int64 slots, one per worker rank of each type:
// [0, 64) AICs, [64, 192) AIVs.
int64_t* Slots() { return reinterpret_cast<int64_t*>(reinterpret_cast<GM_ADDR*>(get_para_base())[1]); }
int64_t* Result() { return reinterpret_cast<int64_t*>(reinterpret_cast<GM_ADDR*>(get_para_base())[2]); }
int64_t MySlot() { return ASCEND_IS_AIC ? AscendC::GetBlockIdx() : 64 + AscendC::GetBlockIdx(); }

// Mode 0: every round each core publishes, barriers with the cores of its
// type, then checks that it sees every value of this round from its type.
void Mode0Kernel() {
  bool aic = ASCEND_IS_AIC;
  int64_t n = aic ? get_block_num() : get_block_num() * get_subblockdim();
  int64_t base = aic ? 0 : 64;
  for (int r = 1; r <= kRounds; ++r) {
    Slots()[MySlot()] = r;
    ffts_cross_core_sync(PIPE_MTE3, AscendC::GetffstMsg(0x0, 3));
    wait_flag_dev(3);
    for (int64_t i = 0; i < n; ++i) {
      if (Slots()[base + i] < r) Result()[MySlot()] += 1;
    }
    ffts_cross_core_sync(PIPE_MTE3, AscendC::GetffstMsg(0x0, 4));
    wait_flag_dev(4);
  }
}

TWIN_TEST(mode0_is_a_barrier_over_all_cores_of_one_type) {
  std::vector<int64_t> slots(192, 0), result(192, 0);
  twin_test::Run run;
  twin_test::Launch(&run, "mode0", Mode0Kernel, {4, 1, 2}, {0, twin_test::Addr(slots.data()), twin_test::Addr(result.data())});
  CHECK_OK(run);
  for (int64_t v : result) CHECK_EQ(v, 0);
  CHECK_EQ(run.counter(SK_TWIN_COUNTER_FFTS_SET_MODE0), uint64_t{12 * 2 * kRounds});
  CHECK_EQ(run.counter(SK_TWIN_COUNTER_WAIT_FLAG), uint64_t{12 * 2 * kRounds});
}

// Mode 1: the two AIVs of one AI core exchange values; cores run rounds at
// different speeds, which mode 1 must not couple.
void Mode1Kernel() {
  if ASCEND_IS_AIC return;
  int64_t block = get_block_idx();
  int64_t other = 64 + block * 2 + (1 - get_subblockid());
  for (int r = 1; r <= kRounds * (block + 1); ++r) {
    Slots()[MySlot()] = r;
    ffts_cross_core_sync(PIPE_MTE3, AscendC::GetffstMsg(0x1, 5));
    wait_flag_dev(5);
    if (Slots()[other] < r) Result()[MySlot()] += 1;
    ffts_cross_core_sync(PIPE_MTE3, AscendC::GetffstMsg(0x1, 6));
    wait_flag_dev(6);
  }
}

TWIN_TEST(mode1_pairs_the_aivs_of_one_core_only) {
  std::vector<int64_t> slots(192, 0), result(192, 0);
  twin_test::Run run;
  twin_test::Launch(&run, "mode1", Mode1Kernel, {3, 1, 2}, {0, twin_test::Addr(slots.data()), twin_test::Addr(result.data())});
  CHECK_OK(run);
  for (int64_t v : result) CHECK_EQ(v, 0);
  CHECK_EQ(run.counter(SK_TWIN_COUNTER_FFTS_SET_MODE1), uint64_t{2 * 2 * kRounds * (1 + 2 + 3)});
}

void Mode1FromAicKernel() {
  if ASCEND_IS_AIC ffts_cross_core_sync(PIPE_FIX, AscendC::GetffstMsg(0x1, 5));
}

TWIN_TEST(mode1_from_an_aic_is_a_kernel_error) {
  twin_test::Run run;
  twin_test::Launch(&run, "mode1_aic", Mode1FromAicKernel, {1, 1, 2});
  CHECK_EQ(run.status, SK_TWIN_KERNEL_ERROR);
  CHECK_CONTAINS(run.error(), "mode-1");
  CHECK_CONTAINS(run.error(), "AIC 0");
}

// Mode 2 both ways: AIC -> its AIVs (each AIV waits once per AIC set) and
// AIVs -> their AIC (the AIC's counter moves once both AIVs set).
void Mode2Kernel() {
  int64_t block = get_block_idx();
  for (int r = 1; r <= kRounds; ++r) {
    if ASCEND_IS_AIC {
      Slots()[block] = r;
      ffts_cross_core_sync(PIPE_FIX, AscendC::GetffstMsg(0x2, 7));
      wait_flag_dev(8);
      for (int s = 0; s < 2; ++s) {
        if (Slots()[64 + block * 2 + s] < r) Result()[block] += 1;
      }
    } else {
      wait_flag_dev(7);
      if (Slots()[block] < r) Result()[MySlot()] += 1;
      Slots()[MySlot()] = r;
      ffts_cross_core_sync(PIPE_MTE3, AscendC::GetffstMsg(0x2, 8));
    }
  }
}

TWIN_TEST(mode2_connects_an_aic_with_its_aivs) {
  std::vector<int64_t> slots(192, 0), result(192, 0);
  twin_test::Run run;
  twin_test::Launch(&run, "mode2", Mode2Kernel, {5, 1, 2}, {0, twin_test::Addr(slots.data()), twin_test::Addr(result.data())});
  CHECK_OK(run);
  for (int64_t v : result) CHECK_EQ(v, 0);
}

// A set never blocks and counts: two sets, then two waits.
void CountingKernel() {
  if ASCEND_IS_AIC {
    ffts_cross_core_sync(PIPE_FIX, AscendC::GetffstMsg(0x2, 9));
    ffts_cross_core_sync(PIPE_FIX, AscendC::GetffstMsg(0x2, 9));
  } else {
    wait_flag_dev(9);
    wait_flag_dev(9);
  }
}

TWIN_TEST(sets_accumulate_until_waited) {
  twin_test::Run run;
  twin_test::Launch(&run, "counting", CountingKernel, {2, 1, 1});
  CHECK_OK(run);
}

void LeftoverKernel() {
  if ASCEND_IS_AIC ffts_cross_core_sync(PIPE_FIX, AscendC::GetffstMsg(0x2, 9));
}

TWIN_TEST(unconsumed_sets_are_reported_as_residual) {
  twin_test::Run run;
  twin_test::Launch(&run, "leftover", LeftoverKernel, {2, 1, 2});
  CHECK_EQ(run.status, SK_TWIN_OK);
  CHECK_CONTAINS(run.residual(), "flag 9 left set on AIV 0.0-1.1");
}

// SyncAll: all workers see all writes made before it.
template <bool aivOnly>
void SyncAllKernel() {
  int64_t aics = ASCEND_IS_AIC || !aivOnly ? get_block_num() : 0;
  int64_t aivs = get_block_num() * get_subblockdim();
  if (aivOnly && ASCEND_IS_AIC) return;
  for (int r = 1; r <= kRounds; ++r) {
    Slots()[MySlot()] = r;
    AscendC::SyncAll<aivOnly>();
    for (int64_t i = 0; i < aivs; ++i) {
      if (Slots()[64 + i] < r) Result()[MySlot()] += 1;
    }
    if (!aivOnly) {
      for (int64_t i = 0; i < aics; ++i) {
        if (Slots()[i] < r) Result()[MySlot()] += 1;
      }
    }
    AscendC::SyncAll<aivOnly>();
  }
}

TWIN_TEST(sync_all_false_joins_aics_and_aivs) {
  for (uint32_t aiv : {1u, 2u}) {
    std::vector<int64_t> slots(192, 0), result(192, 0);
    twin_test::Run run;
    twin_test::Launch(&run, "sync_all_mix", SyncAllKernel<false>, {6, 1, aiv},
                      {0, twin_test::Addr(slots.data()), twin_test::Addr(result.data())});
    CHECK_OK(run);
    for (int64_t v : result) CHECK_EQ(v, 0);
    CHECK_EQ(run.counter(SK_TWIN_COUNTER_SYNC_ALL_MIX), uint64_t{6 * (1 + aiv) * 2 * kRounds});
  }
}

TWIN_TEST(sync_all_true_joins_all_aivs) {
  for (uint32_t aic : {0u, 1u}) {
    std::vector<int64_t> slots(192, 0), result(192, 0);
    twin_test::Run run;
    twin_test::Launch(&run, "sync_all_aiv", SyncAllKernel<true>, {7, aic, aic == 0 ? 1u : 2u},
                      {0, twin_test::Addr(slots.data()), twin_test::Addr(result.data())});
    CHECK_OK(run);
    for (int64_t v : result) CHECK_EQ(v, 0);
  }
}

// Early start: the producer's cores write and SetNextTaskStart; every core
// calls WaitPreTaskEndImpl<cfg>; the consumer's cores must see all writes.
// dev: 0 AIC, 1 AIV, 2 MIX.
template <uint32_t kProducer>
void CheckRound(int r);

template <uint32_t kProducer, uint32_t kConsumer>
void EarlyStartKernel() {
  constexpr uint32_t kConfig = (kProducer << 2) | kConsumer;
  bool aic = ASCEND_IS_AIC;
  bool produces = kProducer == 2 || (kProducer == 0) == aic;
  bool consumes = kConsumer == 2 || (kConsumer == 0) == aic;
  for (int r = 1; r <= 10; ++r) {
    if (produces) {
      Slots()[MySlot()] = r;
      sk_twin_set_next_task_start();
    }
    g_super_kernel_early_start_config = kConfig;
    AscendC::WaitPreTaskEndImpl<kConfig>();
    if (consumes) CheckRound<kProducer>(r);
    // Orders this round's reads before the next round's writes.
    AscendC::SyncAll<false>();
  }
}

template <uint32_t kProducer>
void CheckRound(int r) {
  int64_t aics = get_block_num();
  int64_t aivs = get_block_num() * 2;
  if (kProducer != 1) {
    for (int64_t i = 0; i < aics; ++i) {
      if (Slots()[i] != r) Result()[MySlot()] += 1;
    }
  }
  if (kProducer != 0) {
    for (int64_t i = 0; i < aivs; ++i) {
      if (Slots()[64 + i] != r) Result()[MySlot()] += 1;
    }
  }
}

template <uint32_t P, uint32_t C>
void CheckEarlyStart() {
  std::vector<int64_t> slots(192, 0), result(192, 0);
  twin_test::Run run;
  twin_test::Launch(&run, "early_start", EarlyStartKernel<P, C>, {4, 1, 2},
                    {0, twin_test::Addr(slots.data()), twin_test::Addr(result.data())});
  CHECK_OK(run);
  for (int64_t v : result) CHECK_EQ(v, 0);
}

TWIN_TEST(early_start_all_nine_configs_order_producer_before_consumer) {
  CheckEarlyStart<0, 0>();
  CheckEarlyStart<0, 1>();
  CheckEarlyStart<0, 2>();
  CheckEarlyStart<1, 0>();
  CheckEarlyStart<1, 1>();
  CheckEarlyStart<1, 2>();
  CheckEarlyStart<2, 0>();
  CheckEarlyStart<2, 1>();
  CheckEarlyStart<2, 2>();
}

// The user-facing forms act only where SK mode enabled them at compile time.
void UserFacingEarlyStartKernel() {
  AscendC::SetNextTaskStart();
  AscendC::WaitPreTaskEnd();
}

TWIN_TEST(user_facing_early_start_is_a_no_op_without_the_sk_defines) {
  twin_test::Run run;
  twin_test::Launch(&run, "user_early_start", UserFacingEarlyStartKernel, {2, 1, 2});
  CHECK_OK(run);
  CHECK_EQ(run.counter(SK_TWIN_COUNTER_SET_NEXT_TASK_START), uint64_t{0});
  CHECK_EQ(run.counter(SK_TWIN_COUNTER_WAIT_PRE_TASK_END), uint64_t{0});
}

}  // namespace

int main(int argc, char** argv) { return twin_test::Main(argc, argv); }
