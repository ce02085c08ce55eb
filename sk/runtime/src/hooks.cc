// Kernel hooks that need no cross-core protocol: identity, accounting,
// local memory, trace spans, failure; and the per-worker globals that
// kernel_operator.h declares.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "core.h"
#include "kernel_operator.h"

#if defined(__SANITIZE_THREAD__)
extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);
#endif

// Per-worker state of the SuperKernel protocols. A fresh thread starts with
// these zeroed; BindCurrent resets them anyway so the rule is explicit.
thread_local uint32_t g_super_kernel_early_start_config = 0;
thread_local uint32_t g_super_kernel_dynamic_block_num = 0;
__attribute__((weak)) OpSystemRunCfg g_opSystemRunCfg = {0};

namespace AscendC {
thread_local GM_ADDR g_superKernelAutoSyncAllConfigGmBaseAddr = nullptr;
thread_local GM_ADDR g_superKernelAutoSyncAllConfigGmAddr = nullptr;
thread_local uint32_t g_superKernelAutoSyncAllSyncIdx = 0;
thread_local bool g_superKernelAutoSyncAllEnable = false;
}  // namespace AscendC

namespace sk_twin {
namespace {

thread_local LaunchContext* t_launch = nullptr;
thread_local Worker* t_worker = nullptr;

// A worker that calls dcci on the same address this many times in a row is
// spinning on a GM word; from then on it backs off and the watchdog sees it.
constexpr uint64_t kSpinThreshold = 16;

}  // namespace

void BindCurrent(LaunchContext* ctx, Worker* worker) {
  t_launch = ctx;
  t_worker = worker;
  g_super_kernel_early_start_config = 0;
  g_super_kernel_dynamic_block_num = 0;
  AscendC::g_superKernelAutoSyncAllConfigGmBaseAddr = nullptr;
  AscendC::g_superKernelAutoSyncAllConfigGmAddr = nullptr;
  AscendC::g_superKernelAutoSyncAllSyncIdx = 0;
  AscendC::g_superKernelAutoSyncAllEnable = false;
}

Worker& CurrentWorker(const char* hook) {
  if (t_worker == nullptr) {
    std::fprintf(stderr, "sk twin: %s called outside a twin launch (no worker on this thread)\n", hook);
    std::abort();
  }
  return *t_worker;
}

LaunchContext& CurrentLaunch() { return *t_launch; }

void FailCurrent(const std::string& message) {
  Worker& w = CurrentWorker("sk_twin_fail");
  LaunchContext& ctx = CurrentLaunch();
  ctx.Fail(SK_TWIN_KERNEL_ERROR, "kernel '" + ctx.name + "' on " + w.label + ": " + message, w.index);
  throw LaunchAborted{};
}

void FailRule(const std::string& call, const std::string& problem, const std::string& allowed) {
  Worker& w = CurrentWorker("sk_twin_fail");
  LaunchContext& ctx = CurrentLaunch();
  ctx.Fail(SK_TWIN_KERNEL_ERROR, RuleText(ctx, w, call, problem, allowed), w.index);
  throw LaunchAborted{};
}

uint8_t* UbArena(Worker& w) {
  // Local memory starts with garbage on hardware; a poison pattern keeps
  // code from relying on zeros it never wrote.
  if (w.ub.empty()) w.ub.assign(kUbBytes, 0xcd);
  return w.ub.data();
}

void CheckAbort(LaunchContext& ctx) {
  if (ctx.abort.load(std::memory_order_relaxed)) throw LaunchAborted{};
}

void EndSpin(Worker& w) {
  if (w.repeat_dcci == 0 && w.last_dcci == nullptr) return;
  w.last_dcci = nullptr;
  w.repeat_dcci = 0;
  if (w.state.load(std::memory_order_relaxed) == WorkerState::kSpin) {
    w.state.store(WorkerState::kRunning, std::memory_order_relaxed);
    if (t_launch->trace) RecordSpan(w, "spin on GM word", "barrier", w.spin_begin_ns, NowNs());
  }
}

void RecordSpan(Worker& w, std::string name, const char* category, uint64_t begin_ns, uint64_t end_ns) {
  w.spans.push_back(Span{std::move(name), category, begin_ns, end_ns});
}

}  // namespace sk_twin

using sk_twin::CurrentLaunch;
using sk_twin::CurrentWorker;
using sk_twin::EndSpin;
using sk_twin::Worker;

extern "C" {

int32_t sk_twin_core_type(void) { return static_cast<int32_t>(CurrentWorker("ASCEND_IS_AIC/AIV").type); }
int64_t sk_twin_block_idx(void) { return CurrentWorker("get_block_idx").block; }
int64_t sk_twin_block_num(void) {
  CurrentWorker("get_block_num");
  return CurrentLaunch().block_dim;
}
int64_t sk_twin_sub_block_idx(void) { return CurrentWorker("get_subblockid").sub; }
int64_t sk_twin_sub_block_num(void) { return CurrentWorker("get_subblockdim").sub_num; }
int64_t sk_twin_core_id(void) { return CurrentWorker("get_coreid").coreid; }
uint64_t sk_twin_para_base(void) {
  CurrentWorker("get_para_base");
  return reinterpret_cast<uint64_t>(CurrentLaunch().params);
}
uint32_t sk_twin_worker_index(void) { return CurrentWorker("sk_twin_worker_index").index; }

void sk_twin_set_ffts_base(uint64_t addr) {
  (void)addr;  // the twin's flags need no FFTS block
  CurrentWorker("set_ffts_base_addr").counters[SK_TWIN_COUNTER_SET_FFTS_BASE] += 1;
}

void sk_twin_count(uint32_t counter, uint64_t amount) {
  Worker& w = CurrentWorker("counter");
  if (counter >= SK_TWIN_COUNTER_COUNT) sk_twin::FailCurrent("unknown counter " + std::to_string(counter));
  w.counters[counter] += amount;
}

void sk_twin_preload(const void* addr, int64_t units) {
  (void)addr;  // there is no instruction cache to fill
  Worker& w = CurrentWorker("preload");
  EndSpin(w);
  if (units < 0) sk_twin::FailCurrent("preload of " + std::to_string(units) + " units; expected >= 0");
  w.counters[SK_TWIN_COUNTER_PRELOAD] += 1;
  w.counters[SK_TWIN_COUNTER_PRELOAD_UNITS] += static_cast<uint64_t>(units);
}

void sk_twin_dcci(const volatile void* addr, int32_t entire, int32_t dst) {
  (void)entire;
  (void)dst;
  Worker& w = CurrentWorker("dcci");
  sk_twin::LaunchContext& ctx = CurrentLaunch();
  w.counters[SK_TWIN_COUNTER_DCCI] += 1;
  if (ctx.ext != nullptr && addr != nullptr && sk_twin::ExternalDcci(ctx, w, addr)) return;
#if defined(__SANITIZE_THREAD__)
  // Host memory is coherent; for the race checker a dcci on a GM word orders
  // the caller's accesses around it like the flush/invalidate pair does.
  if (addr != nullptr) {
    void* a = const_cast<void*>(addr);
    __tsan_release(a);
    __tsan_acquire(a);
  }
#endif
  if (addr == nullptr || addr != w.last_dcci) {
    EndSpin(w);
    w.last_dcci = addr;
    sk_twin::NoteProgress(ctx);
    return;
  }
  w.repeat_dcci += 1;
  if (w.repeat_dcci < sk_twin::kSpinThreshold) return;
  if (w.repeat_dcci == sk_twin::kSpinThreshold) {
    w.spin_begin_ns = sk_twin::NowNs();
    w.wait_addr.store(reinterpret_cast<uintptr_t>(addr), std::memory_order_relaxed);
    w.wait_since_ns.store(w.spin_begin_ns, std::memory_order_relaxed);
    w.state.store(sk_twin::WorkerState::kSpin, std::memory_order_relaxed);
  }
  sk_twin::CheckAbort(ctx);
  std::this_thread::sleep_for(std::chrono::microseconds(20));
}

uint64_t sk_twin_cycles(void) { return sk_twin::NowNs(); }
uint64_t sk_twin_cycle_hz(void) { return 1000000000ull; }

void* sk_twin_local(int32_t space, uint64_t addr, uint64_t bytes) {
  Worker& w = CurrentWorker(space == 0 ? "L1 access" : "UB access");
  bool l1 = space == 0;
  if (l1 && w.type != sk_twin::CoreType::kAic) sk_twin::FailCurrent("L1 (cbuf) access from an AIV; L1 is the cube's");
  if (!l1 && w.type != sk_twin::CoreType::kAiv) sk_twin::FailCurrent("UB (ubuf) access from an AIC; UB is the vector's");
  std::vector<uint8_t>& arena = l1 ? w.l1 : w.ub;
  uint64_t size = l1 ? sk_twin::kL1Bytes : sk_twin::kUbBytes;
  if (addr > size || bytes > size - addr) {
    sk_twin::FailCurrent(std::string(l1 ? "L1" : "UB") + " access [" + std::to_string(addr) + ", " +
                         std::to_string(addr + bytes) + ") is outside the " + std::to_string(size) + "-byte buffer");
  }
  if (l1) {
    // Local memory starts with garbage on hardware (see UbArena).
    if (arena.empty()) arena.assign(size, 0xcd);
    return arena.data() + addr;
  }
  return sk_twin::UbArena(w) + addr;
}

void sk_twin_fail(const char* msg) { sk_twin::FailCurrent(msg == nullptr ? "sk_twin_fail" : msg); }

void sk_twin_trace_begin(const char* name) {
  Worker& w = CurrentWorker("sk_twin_trace_begin");
  // The sub-kernel a SuperKernel is in, for error messages.
  w.sub_kernels.emplace_back(name == nullptr ? "" : name);
  if (!CurrentLaunch().trace) return;
  w.open_spans.push_back(sk_twin::Span{name == nullptr ? "" : name, "sub_kernel", sk_twin::NowNs(), 0});
}

void sk_twin_trace_end(void) {
  Worker& w = CurrentWorker("sk_twin_trace_end");
  if (!w.sub_kernels.empty()) w.sub_kernels.pop_back();
  if (!CurrentLaunch().trace) return;
  if (w.open_spans.empty()) sk_twin::FailCurrent("sk_twin_trace_end without a matching sk_twin_trace_begin");
  sk_twin::Span span = std::move(w.open_spans.back());
  w.open_spans.pop_back();
  span.end_ns = sk_twin::NowNs();
  w.spans.push_back(std::move(span));
}

}  // extern "C"
