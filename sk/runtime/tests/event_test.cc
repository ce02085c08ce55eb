// NotifyEvent/WaitEvent (sk_twin_event.h): the AIC -> AIVs and AIVs -> AIC event pair of a mix kernel, its flag
// range check, and constexpr parameter structs (TransDataTo5HDParams) kernels keep as constants.
#include <vector>

#include "kernel_operator.h"
#include "twin_test.h"

namespace {

constexpr int kRounds = 25;

int64_t* Slot(int i) { return reinterpret_cast<int64_t*>(reinterpret_cast<GM_ADDR*>(get_para_base())[1]) + i; }

// Per AI core b: slot b is the AIC's round, slots 8 + 2b + s each AIV's echo, slot 16 + ... counts mismatches.
// Round r: the AIC publishes r and notifies; each AIV waits, checks it sees r, echoes r and notifies back; the AIC
// waits for both AIVs (mode 2 from the AIVs counts once when every AIV of the core has set it) and checks the echoes.
void PingPongKernel() {
  const int64_t b = get_block_idx();
  for (int r = 1; r <= kRounds; ++r) {
    if ASCEND_IS_AIC {
      *Slot(b) = r;
      AscendC::NotifyEvent<PIPE_FIX>(4);
      AscendC::WaitEvent(5);
      for (int s = 0; s < 2; ++s) {
        if (*Slot(8 + 2 * b + s) != r) *Slot(32 + b) += 1;
      }
    } else {
      AscendC::WaitEvent<PIPE_S>(4);
      if (*Slot(b) != r) *Slot(32 + b) += 1;
      *Slot(8 + 2 * b + get_subblockid()) = r;
      AscendC::NotifyEvent<PIPE_MTE3>(5);
    }
  }
}

TWIN_TEST(notify_and_wait_event_pair_an_aic_with_its_aivs) {
  std::vector<int64_t> slots(64, 0);
  twin_test::Run run;
  twin_test::Launch(&run, "events", PingPongKernel, {3, 1, 2}, {0, twin_test::Addr(slots.data())});
  CHECK_OK(run);
  for (int b = 0; b < 3; ++b) {
    CHECK_EQ(slots[b], int64_t{kRounds});
    CHECK_EQ(slots[8 + 2 * b], int64_t{kRounds});
    CHECK_EQ(slots[8 + 2 * b + 1], int64_t{kRounds});
    CHECK_EQ(slots[32 + b], int64_t{0});
  }
  // Each round: 3 AICs and 6 AIVs set in mode 2 once each; 3 AICs and 6 AIVs wait once each.
  CHECK_EQ(run.counter(SK_TWIN_COUNTER_FFTS_SET_MODE2), uint64_t{9 * kRounds});
  CHECK_EQ(run.counter(SK_TWIN_COUNTER_WAIT_FLAG), uint64_t{9 * kRounds});
}

void WaitWithoutNotifyKernel() {
  if ASCEND_IS_AIV AscendC::WaitEvent(6);
}

TWIN_TEST(wait_event_nobody_notifies_is_reported) {
  twin_test::Run run;
  twin_test::Launch(&run, "lonely_wait", WaitWithoutNotifyKernel, {1, 1, 2}, {}, 500);
  CHECK(run.status != SK_TWIN_OK);
  CHECK_CONTAINS(run.error(), "deadlocked");
  CHECK_CONTAINS(run.error(), "wait_flag_dev(6)");
}

void FlagOutOfRangeKernel() {
  if ASCEND_IS_AIC AscendC::NotifyEvent<PIPE_FIX>(16);
}

TWIN_TEST(notify_event_names_a_flag_id_out_of_range) {
  twin_test::Run run;
  twin_test::Launch(&run, "flag16", FlagOutOfRangeKernel, {1, 1, 2});
  CHECK_EQ(run.status, SK_TWIN_KERNEL_ERROR);
  CHECK_CONTAINS(run.error(), "NotifyEvent: flag id is out of range (0-15)");
}

void SyncBaseKernel() { AscendC::SetSyncBaseAddr(0x12340000ULL); }

TWIN_TEST(set_sync_base_addr_is_the_ffts_base_intrinsic) {
  twin_test::Run run;
  twin_test::Launch(&run, "sync_base", SyncBaseKernel, {2, 1, 2});
  CHECK_OK(run);
  CHECK_EQ(run.counter(SK_TWIN_COUNTER_SET_FFTS_BASE), uint64_t{6});  // 2 AICs + 4 AIVs
}

// Kernels keep fixed parameter sets as constexpr constants (batch_mat_mul_v3's PARA_ONE).
constexpr AscendC::TransDataTo5HDParams kParams(false, true, 3, 4, 5);
static_assert(!kParams.dstHighHalf && kParams.srcHighHalf, "constexpr TransDataTo5HDParams keeps its halves");
static_assert(kParams.repeatTimes == 3 && kParams.dstRepStride == 4 && kParams.srcRepStride == 5,
              "constexpr TransDataTo5HDParams keeps its repeat and strides");
constexpr AscendC::TransDataTo5HDParams kDefault{};
static_assert(kDefault.repeatTimes == 1 && kDefault.dstRepStride == 0, "the default TransDataTo5HDParams");

}  // namespace

int main(int argc, char** argv) { return twin_test::Main(argc, argv); }
