// Cross-core flags (superkernel-facts.md §13) and what is built on them:
// SyncAll, early start (§5.2) and feed-sync-all (§5.4).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>

#include "core.h"
#include "kernel_operator.h"

namespace sk_twin {
namespace {

constexpr auto kWaitSlice = std::chrono::milliseconds(20);

// Feed-sync-all config word: |32b sync idx|16b type|8b is_end|8b magic|.
constexpr uint64_t kFeedMagic = 0x5a;
constexpr uint64_t kFeedTypeMix = 0;
constexpr uint64_t kFeedTypeAivOnly = 1;

uint64_t FeedWord(uint64_t idx, uint64_t type, bool end) {
  return (idx << 32) | ((type & 0xffff) << 16) | (static_cast<uint64_t>(end ? 1 : 0) << 8) | kFeedMagic;
}

void Increment(LaunchContext& ctx, Worker& target, int flag, uint64_t amount) {
  {
    std::lock_guard<std::mutex> lock(target.cells[flag].mu);
    target.cells[flag].count += amount;
  }
  target.cv.notify_all();
  NoteProgress(ctx);
}

void Arrive(LaunchContext& ctx, RoundGroup& group, uint32_t member, int flag) {
  uint64_t completed = 0;
  {
    std::lock_guard<std::mutex> lock(group.mu);
    group.sets[member] += 1;
    uint64_t low = *std::min_element(group.sets.begin(), group.sets.end());
    if (low > group.rounds) {
      completed = low - group.rounds;
      group.rounds = low;
    }
  }
  NoteProgress(ctx);
  if (completed == 0) return;
  for (Worker* target : group.targets) Increment(ctx, *target, flag, completed);
}

uint32_t MemberOf(const RoundGroup& group, const Worker& w) {
  for (uint32_t i = 0; i < group.members.size(); ++i) {
    if (group.members[i] == &w) return i;
  }
  return 0;  // unreachable: groups are built from the same workers
}

// Marks what a worker is doing for the deadlock report.
class Within {
 public:
  Within(Worker& w, const char* what) : w_(w), saved_(w.within.load(std::memory_order_relaxed)) {
    if (saved_ == nullptr) w_.within.store(what, std::memory_order_relaxed);
  }
  ~Within() { w_.within.store(saved_, std::memory_order_relaxed); }
  Within(const Within&) = delete;
  Within& operator=(const Within&) = delete;

 private:
  Worker& w_;
  const char* saved_;
};

void CheckFlag(int flag) {
  if (flag < 0 || flag >= kNumFlags) {
    FailCurrent("flag id " + std::to_string(flag) + " is out of range (0-15)");
  }
}

}  // namespace

const char* FlagName(int flag) {
  switch (flag) {
    case AscendC::SYNC_AIC_FLAG:
      return "SYNC_AIC_FLAG";
    case AscendC::SYNC_AIV_FLAG:
      return "SYNC_AIV_FLAG";
    case AscendC::SYNC_AIC_AIV_FLAG:
      return "SYNC_AIC_AIV_FLAG";
    case AscendC::SYNC_AIV_ONLY_ALL:
      return "SYNC_AIV_ONLY_ALL";
    default:
      return "";
  }
}

void SetFlag(LaunchContext& ctx, Worker& w, int mode, int flag) {
  CheckFlag(flag);
  switch (mode) {
    case 0: {
      w.counters[SK_TWIN_COUNTER_FFTS_SET_MODE0] += 1;
      RoundGroup& group = ctx.mode0[static_cast<int>(w.type) * kNumFlags + flag];
      Arrive(ctx, group, w.rank, flag);
      return;
    }
    case 1: {
      if (w.type != CoreType::kAiv) FailCurrent("mode-1 ffts_cross_core_sync is for AIV cores; an AIC called it");
      w.counters[SK_TWIN_COUNTER_FFTS_SET_MODE1] += 1;
      RoundGroup& group = ctx.mode1[w.block * kNumFlags + flag];
      Arrive(ctx, group, MemberOf(group, w), flag);
      return;
    }
    case 2: {
      w.counters[SK_TWIN_COUNTER_FFTS_SET_MODE2] += 1;
      if (w.type == CoreType::kAic) {
        for (Worker* aiv : ctx.aivs_of_block[w.block]) Increment(ctx, *aiv, flag, 1);
        NoteProgress(ctx);
        return;
      }
      RoundGroup& group = ctx.mode2up[w.block * kNumFlags + flag];
      Arrive(ctx, group, MemberOf(group, w), flag);
      return;
    }
    default:
      FailCurrent("ffts_cross_core_sync mode " + std::to_string(mode) +
                  " is not supported on A2/A3 (allowed: 0 all cores of a type, 1 AIVs of one AI core, 2 AIC <-> AIVs)");
  }
}

void WaitFlag(LaunchContext& ctx, Worker& w, int flag) {
  CheckFlag(flag);
  w.counters[SK_TWIN_COUNTER_WAIT_FLAG] += 1;
  FlagCell& cell = w.cells[flag];
  std::unique_lock<std::mutex> lock(cell.mu);
  if (cell.count == 0) {
    uint64_t begin = NowNs();
    w.wait_flag.store(flag, std::memory_order_relaxed);
    w.wait_since_ns.store(begin, std::memory_order_relaxed);
    w.state.store(WorkerState::kWaitFlag, std::memory_order_relaxed);
    while (cell.count == 0) {
      if (ctx.abort.load(std::memory_order_relaxed)) {
        lock.unlock();
        throw LaunchAborted{};
      }
      w.cv.wait_for(lock, kWaitSlice);
    }
    w.state.store(WorkerState::kRunning, std::memory_order_relaxed);
    w.wait_flag.store(-1, std::memory_order_relaxed);
    if (ctx.trace) {
      std::string name = "wait_flag_dev(" + std::to_string(flag);
      const char* known = FlagName(flag);
      if (*known != '\0') name += std::string(" ") + known;
      name += ")";
      RecordSpan(w, std::move(name), "barrier", begin, NowNs());
    }
  }
  cell.count -= 1;
  lock.unlock();
  NoteProgress(ctx);
}

void SyncAllOn(LaunchContext& ctx, Worker& w, bool aiv_only) {
  if (aiv_only) {
    Within within(w, "SyncAll<true>");
    SetFlag(ctx, w, 0, AscendC::SYNC_AIV_ONLY_ALL);
    WaitFlag(ctx, w, AscendC::SYNC_AIV_ONLY_ALL);
    return;
  }
  Within within(w, "SyncAll<false>");
  // Where the ration has only one core type the handshake has no partner and
  // SyncAll<false> is that type's all-core barrier: upstream's own SK code
  // relies on it (the dynamic goldens call it in 1:0 and 0:1 SKs).
  if (ctx.aiv_ration == 0) {
    SetFlag(ctx, w, 0, AscendC::SYNC_AIC_FLAG);
    WaitFlag(ctx, w, AscendC::SYNC_AIC_FLAG);
    return;
  }
  if (ctx.aic_ration == 0) {
    SetFlag(ctx, w, 0, AscendC::SYNC_AIV_ONLY_ALL);
    WaitFlag(ctx, w, AscendC::SYNC_AIV_ONLY_ALL);
    return;
  }
  if (w.type == CoreType::kAic) {
    WaitFlag(ctx, w, AscendC::SYNC_AIV_FLAG);
    SetFlag(ctx, w, 0, AscendC::SYNC_AIC_FLAG);
    WaitFlag(ctx, w, AscendC::SYNC_AIC_FLAG);
    SetFlag(ctx, w, 2, AscendC::SYNC_AIC_AIV_FLAG);
  } else {
    SetFlag(ctx, w, 2, AscendC::SYNC_AIV_FLAG);
    WaitFlag(ctx, w, AscendC::SYNC_AIC_AIV_FLAG);
  }
}

}  // namespace sk_twin

using sk_twin::CoreType;
using sk_twin::CurrentLaunch;
using sk_twin::CurrentWorker;
using sk_twin::EndSpin;
using sk_twin::LaunchContext;
using sk_twin::Worker;

extern "C" {

void sk_twin_ffts_set(int32_t pipe, uint64_t msg) {
  (void)pipe;  // the pipe only orders the set inside the core, which runs in program order here
  Worker& w = CurrentWorker("ffts_cross_core_sync");
  EndSpin(w);
  if ((msg & 0x1) == 0) {
    sk_twin::FailCurrent("ffts_cross_core_sync message " + sk_twin::HexAddr(msg) +
                         " lacks the valid bit; build it with AscendC::GetffstMsg(mode, flag)");
  }
  int mode = static_cast<int>((msg >> AscendC::SYNC_MODE_SHIFT_VALUE) & 0x3);
  int flag = static_cast<int>((msg >> AscendC::SYNC_FLAG_SHIFT_VALUE) & 0xf);
  sk_twin::SetFlag(CurrentLaunch(), w, mode, flag);
}

void sk_twin_wait_flag(int64_t flag) {
  Worker& w = CurrentWorker("wait_flag_dev");
  EndSpin(w);
  sk_twin::WaitFlag(CurrentLaunch(), w, static_cast<int>(flag));
}

void sk_twin_sync_all(int32_t aiv_only, int32_t publish) {
  Worker& w = CurrentWorker("SyncAll");
  EndSpin(w);
  LaunchContext& ctx = CurrentLaunch();
  w.counters[aiv_only ? SK_TWIN_COUNTER_SYNC_ALL_AIV : SK_TWIN_COUNTER_SYNC_ALL_MIX] += 1;
  if (publish && AscendC::g_superKernelAutoSyncAllEnable) {
    // Block 0 of the caller's type tells the idle cores which SyncAll to replay.
    GM_ADDR word = AscendC::g_superKernelAutoSyncAllConfigGmAddr;
    if (word == nullptr) {
      sk_twin::FailCurrent(
          "SyncAll with feed-sync-all enabled but AscendC::g_superKernelAutoSyncAllConfigGmAddr is not set");
    }
    if (w.rank == 0) {
      uint64_t value = sk_twin::FeedWord(AscendC::g_superKernelAutoSyncAllSyncIdx,
                                         aiv_only ? sk_twin::kFeedTypeAivOnly : sk_twin::kFeedTypeMix, false);
      __atomic_store_n(reinterpret_cast<uint64_t*>(word), value, __ATOMIC_RELAXED);
      w.counters[SK_TWIN_COUNTER_FEED_SYNC_ALL_PUBLISH] += 1;
      sk_twin::NoteProgress(ctx);
    }
    AscendC::g_superKernelAutoSyncAllSyncIdx += 1;
  }
  sk_twin::SyncAllOn(ctx, w, aiv_only != 0);
}

void sk_twin_set_next_task_start(void) {
  Worker& w = CurrentWorker("SetNextTaskStart");
  EndSpin(w);
  w.counters[SK_TWIN_COUNTER_SET_NEXT_TASK_START] += 1;
  LaunchContext& ctx = CurrentLaunch();
  if (w.type == CoreType::kAic) {
    sk_twin::SetFlag(ctx, w, 0, AscendC::SYNC_AIC_FLAG);
  } else {
    sk_twin::SetFlag(ctx, w, 0, AscendC::SYNC_AIV_ONLY_ALL);
  }
}

// config = (dev(producer) << 2) | dev(consumer) with AIC 0, AIV 1, MIX 2.
// Producers set with SetNextTaskStart (AIC: mode 0 on 11, AIV: mode 0 on 14).
// An AIC waits for all AICs (11) if the producer ran on AICs, and for its
// AIVs (12) if the producer ran on AIVs and the consumer runs on AICs; it
// releases its AIVs (13) when AIVs consume what AICs produced. The AIV side
// mirrors this. Every set is matched by exactly one wait.
void sk_twin_wait_pre_task_end(uint32_t config) {
  Worker& w = CurrentWorker("WaitPreTaskEnd");
  EndSpin(w);
  w.counters[SK_TWIN_COUNTER_WAIT_PRE_TASK_END] += 1;
  uint32_t producer = (config >> 2) & 0x3;
  uint32_t consumer = config & 0x3;
  if (producer > 2 || consumer > 2) {
    sk_twin::FailCurrent("WaitPreTaskEnd config " + std::to_string(config) +
                         " is not (dev(producer) << 2) | dev(consumer) with AIC 0, AIV 1, MIX 2");
  }
  bool from_aic = producer == 0 || producer == 2;
  bool from_aiv = producer == 1 || producer == 2;
  bool to_aic = consumer == 0 || consumer == 2;
  bool to_aiv = consumer == 1 || consumer == 2;
  LaunchContext& ctx = CurrentLaunch();
  sk_twin::Within within(w, "WaitPreTaskEnd");
  if (w.type == CoreType::kAic) {
    if (from_aic) sk_twin::WaitFlag(ctx, w, AscendC::SYNC_AIC_FLAG);
    if (from_aic && to_aiv) sk_twin::SetFlag(ctx, w, 2, AscendC::SYNC_AIC_AIV_FLAG);
    if (from_aiv && to_aic) sk_twin::WaitFlag(ctx, w, AscendC::SYNC_AIV_FLAG);
  } else {
    if (from_aiv) sk_twin::WaitFlag(ctx, w, AscendC::SYNC_AIV_ONLY_ALL);
    if (from_aiv && to_aic) sk_twin::SetFlag(ctx, w, 2, AscendC::SYNC_AIV_FLAG);
    if (from_aic && to_aiv) sk_twin::WaitFlag(ctx, w, AscendC::SYNC_AIC_AIV_FLAG);
  }
}

void sk_twin_feed_sync_all_end(void) {
  Worker& w = CurrentWorker("SuperKernelAutoSyncAllEndImpl");
  EndSpin(w);
  GM_ADDR word = AscendC::g_superKernelAutoSyncAllConfigGmAddr;
  if (word == nullptr) {
    sk_twin::FailCurrent("SuperKernelAutoSyncAllEndImpl without AscendC::g_superKernelAutoSyncAllConfigGmAddr");
  }
  if (w.rank == 0) {
    uint64_t value = sk_twin::FeedWord(AscendC::g_superKernelAutoSyncAllSyncIdx, 0, true);
    __atomic_store_n(reinterpret_cast<uint64_t*>(word), value, __ATOMIC_RELAXED);
    sk_twin::NoteProgress(CurrentLaunch());
  }
}

void sk_twin_feed_sync_all_complement(void) {
  Worker& w = CurrentWorker("SuperKernelAutoSyncAllComplementImpl");
  EndSpin(w);
  LaunchContext& ctx = CurrentLaunch();
  GM_ADDR word = AscendC::g_superKernelAutoSyncAllConfigGmAddr;
  if (word == nullptr) {
    sk_twin::FailCurrent(
        "SuperKernelAutoSyncAllComplementImpl without AscendC::g_superKernelAutoSyncAllConfigGmAddr");
  }
  const auto* cell = reinterpret_cast<const uint64_t*>(word);
  uint64_t begin = sk_twin::NowNs();
  uint64_t polls = 0;
  for (;;) {
    uint64_t value = __atomic_load_n(cell, __ATOMIC_RELAXED);
    uint64_t idx = value >> 32;
    if ((value & 0xff) == sk_twin::kFeedMagic && idx == AscendC::g_superKernelAutoSyncAllSyncIdx) {
      w.state.store(sk_twin::WorkerState::kRunning, std::memory_order_relaxed);
      if (((value >> 8) & 0xff) != 0) break;
      bool aiv_only = ((value >> 16) & 0xffff) == sk_twin::kFeedTypeAivOnly;
      w.counters[SK_TWIN_COUNTER_FEED_SYNC_ALL_REPLAY] += 1;
      sk_twin::SyncAllOn(ctx, w, aiv_only);
      AscendC::g_superKernelAutoSyncAllSyncIdx += 1;
      polls = 0;
      continue;
    }
    if (polls == 0) {
      w.wait_addr.store(reinterpret_cast<uintptr_t>(word), std::memory_order_relaxed);
      w.wait_since_ns.store(sk_twin::NowNs(), std::memory_order_relaxed);
      w.state.store(sk_twin::WorkerState::kFeedPoll, std::memory_order_relaxed);
    }
    sk_twin::CheckAbort(ctx);
    ++polls;
    if (polls < 64) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }
  w.state.store(sk_twin::WorkerState::kRunning, std::memory_order_relaxed);
  if (ctx.trace) sk_twin::RecordSpan(w, "feed-sync-all complement", "barrier", begin, sk_twin::NowNs());
}

}  // extern "C"
