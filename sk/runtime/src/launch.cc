// Launches: build the workers of a topology, run them as threads, watch for
// deadlocks, collect counters and spans into a result.
#include <pthread.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <thread>
#include <utility>

#include "core.h"
#include "sk_tiling.h"

namespace sk_twin {

uint64_t NowNs() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

void NoteProgress(LaunchContext& ctx) { ctx.last_progress_ns.store(NowNs(), std::memory_order_relaxed); }

void LaunchContext::Fail(int code, const std::string& message, int64_t worker) {
  {
    // Workers break a rule concurrently (often every block the same one):
    // keeping the lowest worker's kernel error makes the report the same
    // from run to run. Workers run on after an abort until their next wait.
    std::lock_guard<std::mutex> lock(error_mu);
    const bool lower = code == SK_TWIN_KERNEL_ERROR && status == SK_TWIN_KERNEL_ERROR && worker >= 0 &&
                       error_worker >= 0 && worker < error_worker;
    if (status == SK_TWIN_OK || lower) {
      status = code;
      error = message;
      error_worker = code == SK_TWIN_KERNEL_ERROR ? worker : -1;
    }
  }
  abort.store(true, std::memory_order_relaxed);
  for (auto& w : workers) w->cv.notify_all();
}

namespace {

using Arg = uint8_t*;

template <size_t... I>
void CallWithArgs(void* fn, const uint64_t* p, std::index_sequence<I...>) {
  using Fn = void (*)(decltype((void)I, Arg())...);
  reinterpret_cast<Fn>(fn)(reinterpret_cast<Arg>(p[I])...);
}

template <size_t N>
void CallFixed(void* fn, const uint64_t* p) {
  CallWithArgs(fn, p, std::make_index_sequence<N>{});
}

template <size_t... N>
constexpr auto MakeCallTable(std::index_sequence<N...>) {
  using Caller = void (*)(void*, const uint64_t*);
  return std::array<Caller, sizeof...(N)>{{&CallFixed<N>...}};
}

constexpr auto kCallTable = MakeCallTable(std::make_index_sequence<SK_TWIN_MAX_ARGS + 1>{});

std::string Label(CoreType type, uint32_t block, uint32_t sub, uint32_t sub_num) {
  if (type == CoreType::kAic) return "AIC " + std::to_string(block);
  if (sub_num > 1) return "AIV " + std::to_string(block) + "." + std::to_string(sub);
  return "AIV " + std::to_string(block);
}

// The kernel call; a C++ exception ends only this worker.
void CallEntry(LaunchContext* ctx, Worker* w) {
  void* fn = (w->type == CoreType::kAiv && ctx->entry_aiv != nullptr) ? ctx->entry_aiv : ctx->entry;
  try {
    if (ctx->num_args == SK_TWIN_PARA_BASE_ENTRY) {
      reinterpret_cast<void (*)()>(fn)();
    } else {
      kCallTable[ctx->num_args](fn, ctx->params);
    }
    if (!w->open_spans.empty()) {
      ctx->Fail(SK_TWIN_KERNEL_ERROR, "kernel '" + ctx->name + "' on " + w->label + ": trace span '" +
                                          w->open_spans.back().name + "' was never ended",
                w->index);
    }
  } catch (const LaunchAborted&) {
    // The failure is already recorded.
  } catch (const std::exception& e) {
    ctx->Fail(SK_TWIN_KERNEL_ERROR, "kernel '" + ctx->name + "' on " + w->label + " threw: " + e.what(), w->index);
  } catch (...) {
    ctx->Fail(SK_TWIN_KERNEL_ERROR, "kernel '" + ctx->name + "' on " + w->label + " threw a non-standard exception",
              w->index);
  }
}

std::string SubKernelText(const LaunchContext& ctx, const std::string& sub) {
  return !sub.empty() && sub != ctx.name ? " (sub-kernel " + sub + ")" : "";
}

void RunWorker(LaunchContext* ctx, Worker* w) {
  {
    // No worker starts before all exist: a worker that already finished must
    // not be ordered before the creation of a later one.
    std::unique_lock<std::mutex> lock(ctx->start_mu);
    ctx->start_cv.wait(lock, [ctx] { return ctx->started; });
  }
  {
    std::string thread_name = w->label;
    std::replace(thread_name.begin(), thread_name.end(), ' ', '-');
    pthread_setname_np(pthread_self(), thread_name.substr(0, 15).c_str());
  }
  BindCurrent(ctx, w);
  uint64_t begin = NowNs();
  {
    // A fatal signal in the kernel (or the supervisor taking a stuck worker
    // back) ends the call early; the kernel's frames are abandoned.
    FaultCatch* fc = w->fault.get();
    struct Call {
      LaunchContext* ctx;
      Worker* w;
    } call{ctx, w};
    const CallEnd end = CallCatchingFaults(fc, &ctx->kernel_code, [](void* p) {
      auto* c = static_cast<Call*>(p);
      CallEntry(c->ctx, c->w);
    }, &call);
    if (end == CallEnd::kFaulted) {
      std::string sub = w->sub_kernels.empty() ? "" : w->sub_kernels.back();
      ctx->Fail(SK_TWIN_KERNEL_ERROR,
                "kernel '" + ctx->name + "'" + SubKernelText(*ctx, sub) + " on " + w->label + " (block " +
                    std::to_string(w->block) + ") crashed: " + DescribeFault(*fc),
                w->index);
    } else if (end == CallEnd::kCancelled) {
      w->cancelled = true;
      w->stuck_in = w->sub_kernels.empty() ? "" : w->sub_kernels.back();
    }
  }
  if (ctx->trace) RecordSpan(*w, ctx->name, "kernel", begin, NowNs());
  w->state.store(WorkerState::kFinished, std::memory_order_relaxed);
  BindCurrent(nullptr, nullptr);
  NoteProgress(*ctx);
  {
    std::lock_guard<std::mutex> lock(ctx->done_mu);
    ctx->done += 1;
  }
  ctx->done_cv.notify_all();
}

bool ValidRation(uint32_t aic, uint32_t aiv) {
  return (aic == 1 && aiv == 0) || (aic == 0 && aiv == 1) || (aic == 1 && aiv == 1) || (aic == 1 && aiv == 2);
}

// Returns "" or why the launch cannot run.
std::string Validate(const SkTwinLaunch& l) {
  std::string name = l.name == nullptr ? "" : l.name;
  std::string where = "launch of '" + name + "': ";
  if (l.entry == nullptr) return where + "entry is NULL; pass the kernel's function pointer";
  if (l.block_dim == 0 || l.block_dim > 65535) {
    return where + "block_dim " + std::to_string(l.block_dim) + " is out of range (1-65535)";
  }
  if (!ValidRation(l.aic_ration, l.aiv_ration)) {
    return where + "task ration " + std::to_string(l.aic_ration) + ":" + std::to_string(l.aiv_ration) +
           " is not supported (allowed: 1:0, 0:1, 1:1, 1:2)";
  }
  if (l.num_args != SK_TWIN_PARA_BASE_ENTRY) {
    if (l.num_args > SK_TWIN_MAX_ARGS) {
      return where + std::to_string(l.num_args) + " kernel arguments; at most " + std::to_string(SK_TWIN_MAX_ARGS);
    }
    if (l.num_args > l.num_params) {
      return where + "the entry takes " + std::to_string(l.num_args) + " arguments but only " +
             std::to_string(l.num_params) + " params were given";
    }
  }
  if (l.num_params > 0 && l.params == nullptr) return where + "num_params > 0 but params is NULL";
  return "";
}

// A whole number of milliseconds in [1, 2^32 - 1] (the range of
// SkTwinLaunch.timeout_ms) from the environment; `fallback` when unset.
uint64_t EnvMs(const char* var, uint64_t fallback, std::string* error) {
  const char* env = std::getenv(var);
  if (env == nullptr || *env == '\0') return fallback;
  const std::string text = env;
  uint64_t v = 0;
  bool ok = text.size() <= 10;
  for (char c : text) {
    if (c < '0' || c > '9') ok = false;
    if (ok) v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  if (!ok || v == 0 || v > UINT32_MAX) {
    *error = std::string(var) + "='" + text.substr(0, 40) + (text.size() > 40 ? "...'" : "'") +
             " is not a whole number of milliseconds from 1 to " + std::to_string(UINT32_MAX);
    return 0;
  }
  return v;
}

}  // namespace

uint64_t WatchdogNs(uint32_t timeout_ms, std::string* error) {
  uint64_t ms = timeout_ms;
  if (ms == 0) ms = EnvMs("SK_TWIN_TIMEOUT_MS", kDefaultTimeoutMs, error);
  return ms * 1000000ull;
}

uint64_t GraceNs(uint64_t timeout_ns) {
  return std::max<uint64_t>(std::min<uint64_t>(timeout_ns, 5000000000ull), 1000000000ull);
}

namespace {

uint64_t LaunchLimitNs(std::string* error) {
  return EnvMs("SK_TWIN_LAUNCH_TIMEOUT_MS", kDefaultLaunchLimitMs, error) * 1000000ull;
}

std::shared_ptr<LaunchContext> BuildContext(const SkTwinLaunch& l, uint64_t timeout_ns, uint64_t limit_ns) {
  auto ctx = std::make_shared<LaunchContext>();
  ctx->name = l.name == nullptr ? "" : l.name;
  ctx->entry = l.entry;
  ctx->entry_aiv = l.entry_aiv;
  ctx->num_args = l.num_args;
  ctx->block_dim = l.block_dim;
  ctx->aic_ration = l.aic_ration;
  ctx->aiv_ration = l.aiv_ration;
  ctx->params = l.params;
  ctx->num_params = l.num_params;
  ctx->timeout_ns = timeout_ns;
  ctx->launch_limit_ns = limit_ns;
  ctx->kernel_code = UserCodeRanges(l.entry, l.entry_aiv);
  ctx->trace = l.trace != 0;
  ctx->aic_of_block.assign(l.block_dim, nullptr);
  ctx->aivs_of_block.assign(l.block_dim, {});
  uint32_t index = 0;
  for (uint32_t b = 0; b < l.block_dim; ++b) {
    if (l.aic_ration == 1) {
      auto w = std::make_unique<Worker>();
      w->index = index++;
      w->type = CoreType::kAic;
      w->block = b;
      w->rank = b;
      w->coreid = static_cast<int64_t>(l.coreid_offset) + b;
      w->label = Label(CoreType::kAic, b, 0, 1);
      ctx->aic_of_block[b] = w.get();
      ctx->of_type[0].push_back(w.get());
      ctx->workers.push_back(std::move(w));
    }
    for (uint32_t s = 0; s < l.aiv_ration; ++s) {
      auto w = std::make_unique<Worker>();
      w->index = index++;
      w->type = CoreType::kAiv;
      w->block = b;
      w->sub = s;
      w->sub_num = l.aiv_ration;
      w->rank = b * l.aiv_ration + s;
      w->coreid = static_cast<int64_t>(l.coreid_offset) + w->rank;
      w->label = Label(CoreType::kAiv, b, s, l.aiv_ration);
      ctx->aivs_of_block[b].push_back(w.get());
      ctx->of_type[1].push_back(w.get());
      ctx->workers.push_back(std::move(w));
    }
  }
  ctx->mode0.reset(new RoundGroup[2 * kNumFlags]);
  for (int t = 0; t < 2; ++t) {
    for (int f = 0; f < kNumFlags; ++f) {
      RoundGroup& g = ctx->mode0[t * kNumFlags + f];
      g.members = ctx->of_type[t];
      g.targets = ctx->of_type[t];
      g.sets.assign(g.members.size(), 0);
    }
  }
  ctx->mode1.reset(new RoundGroup[static_cast<size_t>(l.block_dim) * kNumFlags]);
  ctx->mode2up.reset(new RoundGroup[static_cast<size_t>(l.block_dim) * kNumFlags]);
  for (uint32_t b = 0; b < l.block_dim; ++b) {
    for (int f = 0; f < kNumFlags; ++f) {
      RoundGroup& g1 = ctx->mode1[b * kNumFlags + f];
      g1.members = ctx->aivs_of_block[b];
      g1.targets = ctx->aivs_of_block[b];
      g1.sets.assign(g1.members.size(), 0);
      RoundGroup& g2 = ctx->mode2up[b * kNumFlags + f];
      g2.members = ctx->aivs_of_block[b];
      if (ctx->aic_of_block[b] != nullptr) g2.targets.push_back(ctx->aic_of_block[b]);
      g2.sets.assign(g2.members.size(), 0);
    }
  }
  return ctx;
}

bool AnyoneWaiting(const LaunchContext& ctx) {
  for (const auto& w : ctx.workers) {
    WorkerState s = w->state.load(std::memory_order_relaxed);
    if (s == WorkerState::kWaitFlag || s == WorkerState::kSpin || s == WorkerState::kFeedPoll) return true;
  }
  return false;
}

}  // namespace
}  // namespace sk_twin

struct SkTwinResult {
  int status = SK_TWIN_OK;
  std::string error;
  std::string residual;
  uint64_t wall_ns = 0;
  uint64_t start_ns = 0;
  uint64_t counters[SK_TWIN_COUNTER_COUNT] = {};
  std::vector<std::string> labels;
  struct Event {
    uint32_t worker;
    sk_twin::Span span;
  };
  std::vector<Event> events;
};

namespace sk_twin {
namespace {

// The workers still running kernel code (neither waiting nor finished).
std::vector<Worker*> Running(const LaunchContext& ctx) {
  std::vector<Worker*> out;
  for (const auto& w : ctx.workers) {
    if (w->state.load(std::memory_order_relaxed) == WorkerState::kRunning) out.push_back(w.get());
  }
  return out;
}

// Waits for the workers. Nothing moved for the timeout: a deadlock when some
// wait, else a hang (workers busy in kernel code: an endless loop); the
// launch past its limit: a hang too. Workers busy in kernel code after a
// failure are taken back (faults.h). Returns true when every worker finished.
bool Supervise(LaunchContext& ctx, uint64_t start_ns) {
  const uint32_t total = static_cast<uint32_t>(ctx.workers.size());
  std::vector<Worker*> hung;
  std::string hang_text;
  std::unique_lock<std::mutex> lock(ctx.done_mu);
  while (ctx.done < total) {
    ctx.done_cv.wait_for(lock, std::chrono::milliseconds(10));
    if (ctx.done == total || ctx.abort.load(std::memory_order_relaxed)) break;
    // Workers stamp progress concurrently, so the stamp may be newer than now.
    uint64_t now = NowNs();
    uint64_t last = ctx.last_progress_ns.load(std::memory_order_relaxed);
    uint64_t idle = now > last ? now - last : 0;
    bool over = ctx.launch_limit_ns != 0 && now - start_ns > ctx.launch_limit_ns;
    // Workers waiting for a task's tiling function wait for it, not for one another.
    std::string overdue = OverdueTask(ctx, now);
    if (!overdue.empty()) {
      lock.unlock();
      ctx.Fail(SK_TWIN_HANG, overdue);
      lock.lock();
      break;
    }
    if (TilingRuns(ctx) && !over) continue;
    if (idle > ctx.timeout_ns && AnyoneWaiting(ctx)) {
      lock.unlock();
      ctx.Fail(SK_TWIN_DEADLOCK, DescribeDeadlock(ctx, idle));
      lock.lock();
      break;
    }
    if (idle > ctx.timeout_ns || over) {
      hung = Running(ctx);
      hang_text = over ? "ran for more than " + std::to_string(ctx.launch_limit_ns / 1000000) +
                             " ms (the whole-launch limit; set SK_TWIN_LAUNCH_TIMEOUT_MS to change it)"
                       : "made no progress for " + std::to_string(idle / 1000000) +
                             " ms: no worker reached a barrier or returned, and none waits (timeout " +
                             std::to_string(ctx.timeout_ns / 1000000) +
                             " ms; set SK_TWIN_TIMEOUT_MS to change it)";
      ctx.abort.store(true, std::memory_order_relaxed);
      for (auto& w : ctx.workers) w->cv.notify_all();
      break;
    }
  }
  // After an abort every cooperative worker leaves its wait within a slice;
  // one busy in kernel code is taken back by a signal.
  uint64_t grace_end = NowNs() + GraceNs(ctx.timeout_ns);
  while (ctx.done < total && NowNs() < grace_end) {
    if (ctx.abort.load(std::memory_order_relaxed)) {
      for (auto& w : ctx.workers) {
        if (w->state.load(std::memory_order_relaxed) == WorkerState::kRunning) RequestCancel(w->fault.get());
      }
    }
    ctx.done_cv.wait_for(lock, std::chrono::milliseconds(10));
  }
  const bool all_done = ctx.done == total;
  lock.unlock();
  if (!hang_text.empty()) {
    std::string where;
    for (Worker* w : hung) {
      where += (where.empty() ? "" : ", ") + w->label;
      // Read only once the worker finished: its own thread wrote it.
      if (all_done && w->cancelled) where += SubKernelText(ctx, w->stuck_in);
    }
    ctx.Fail(SK_TWIN_HANG, "sk twin: kernel '" + ctx.name + "' (block_dim " + std::to_string(ctx.block_dim) +
                               ", ration " + RationText(ctx) + ") never returned: it " + hang_text +
                               ". Still running kernel code (an endless loop?): " +
                               (where.empty() ? "none" : where) + ".");
  }
  return all_done;
}

SkTwinResult* RunOne(const SkTwinLaunch& launch, std::shared_ptr<Externals> ext = nullptr) {
  auto* result = new SkTwinResult();
  std::string problem = Validate(launch);
  uint64_t timeout_ns = 0;
  uint64_t limit_ns = 0;
  if (problem.empty()) timeout_ns = WatchdogNs(launch.timeout_ms, &problem);
  if (problem.empty()) limit_ns = LaunchLimitNs(&problem);
  if (!problem.empty()) {
    result->status = SK_TWIN_BAD_LAUNCH;
    result->error = problem;
    return result;
  }
  std::shared_ptr<LaunchContext> ctx = BuildContext(launch, timeout_ns, limit_ns);
  ctx->ext = std::move(ext);
  if (ctx->ext != nullptr) {
    Externals& ext = *ctx->ext;
    ext.seen.assign(ext.words.size(), std::vector<bool>(ctx->workers.size(), false));
    ext.late.assign(ext.words.size(), std::vector<bool>(ctx->workers.size(), false));
    ext.task_value.assign(ext.words.size(), 0);
    ext.reset_value.assign(ext.words.size(), 0);
  }
  result->start_ns = NowNs();
  NoteProgress(*ctx);
  std::vector<std::thread> threads;
  threads.reserve(ctx->workers.size());
  // Workers get a raw pointer: a shared_ptr copy per thread would make the
  // race checker see its reference count as synchronisation between workers.
  LaunchContext* raw = ctx.get();
  for (auto& w : ctx->workers) {
    Worker* worker = w.get();
    threads.emplace_back([raw, worker] { RunWorker(raw, worker); });
  }
  {
    std::lock_guard<std::mutex> lock(ctx->start_mu);
    ctx->started = true;
  }
  ctx->start_cv.notify_all();
  std::vector<std::thread> tasks = StartTasks(*ctx);
  bool all_done = Supervise(*ctx, result->start_ns);
  bool tasks_left = false;
  std::string task_errors = FinishTasks(*ctx, &tasks, &tasks_left);
  if (!task_errors.empty()) {
    std::lock_guard<std::mutex> lock(ctx->error_mu);
    if (ctx->status == SK_TWIN_OK) {
      ctx->status = SK_TWIN_TASK_ERROR;
      ctx->error = "sk twin: kernel '" + ctx->name + "': " + task_errors;
    } else if (ctx->error.find(task_errors) == std::string::npos) {
      ctx->error += " " + task_errors;
    }
  }
  // Stuck threads still use the context: it is leaked on purpose.
  if (!all_done || tasks_left) new std::shared_ptr<LaunchContext>(ctx);
  if (all_done) {
    for (auto& t : threads) t.join();
  } else {
    std::string stuck;
    for (size_t i = 0; i < threads.size(); ++i) {
      if (ctx->workers[i]->state.load(std::memory_order_relaxed) != WorkerState::kFinished) {
        stuck += (stuck.empty() ? "" : ", ") + ctx->workers[i]->label;
      }
      threads[i].detach();
    }
    std::lock_guard<std::mutex> lock(ctx->error_mu);
    ctx->error += " Workers still running outside any twin call after the abort (detached, not joined): " + stuck + ".";
  }
  if (all_done) {
    // Writes into the guard bytes beside a tensor (one that reached a guard
    // page failed the launch already, naming the block).
    std::string damaged = CheckGmGuards();
    std::lock_guard<std::mutex> lock(ctx->error_mu);
    if (!damaged.empty() && ctx->status == SK_TWIN_OK) {
      ctx->status = SK_TWIN_KERNEL_ERROR;
      ctx->error = "kernel '" + ctx->name + "' wrote outside its GM tensors (found in the guard bytes after the "
                   "launch, so the block is not known; a write further out faults at once and names it): " +
                   damaged;
    }
  }
  result->wall_ns = NowNs() - result->start_ns;
  {
    std::lock_guard<std::mutex> lock(ctx->error_mu);
    result->status = ctx->status;
    result->error = ctx->error;
  }
  if (!all_done) return result;
  for (auto& w : ctx->workers) {
    for (uint32_t c = 0; c < SK_TWIN_COUNTER_COUNT; ++c) result->counters[c] += w->counters[c];
    result->labels.push_back(w->label);
    for (auto& span : w->spans) result->events.push_back(SkTwinResult::Event{w->index, std::move(span)});
  }
  std::stable_sort(result->events.begin(), result->events.end(),
                   [](const SkTwinResult::Event& a, const SkTwinResult::Event& b) {
                     return a.span.begin_ns < b.span.begin_ns;
                   });
  if (result->status == SK_TWIN_OK) result->residual = DescribeResidual(*ctx);
  return result;
}

const char* const kCounterNames[SK_TWIN_COUNTER_COUNT] = {
    "ffts_set_mode0",   "ffts_set_mode1",     "ffts_set_mode2",          "wait_flag",
    "sync_all_mix",     "sync_all_aiv",       "set_next_task_start",     "wait_pre_task_end",
    "feed_sync_all_publish", "feed_sync_all_replay", "pipe_barrier",      "pipe_flag",
    "preload",          "preload_units",      "dcci",                    "set_ffts_base",
};

}  // namespace
}  // namespace sk_twin

extern "C" {

int sk_twin_launch(const SkTwinLaunch* launch, SkTwinResult** out) {
  if (out == nullptr) return SK_TWIN_BAD_LAUNCH;
  if (launch == nullptr) {
    *out = new SkTwinResult();
    (*out)->status = SK_TWIN_BAD_LAUNCH;
    (*out)->error = "launch description is NULL";
    return SK_TWIN_BAD_LAUNCH;
  }
  *out = sk_twin::RunOne(*launch);
  return (*out)->status;
}

int sk_twin_launch_tasks(const SkTwinLaunch* launch, const SkTwinWord* words, uint32_t num_words,
                         const SkTwinTask* tasks, uint32_t num_tasks, SkTwinResult** out) {
  if (out == nullptr) return SK_TWIN_BAD_LAUNCH;
  std::string problem;
  std::shared_ptr<sk_twin::Externals> ext;
  if (launch != nullptr && (num_words == 0 || words != nullptr) && (num_tasks == 0 || tasks != nullptr)) {
    ext = sk_twin::MakeExternals(words, num_words, tasks, num_tasks, &problem);
  } else {
    problem = "launch, words or tasks is NULL";
  }
  if (ext == nullptr) {
    *out = new SkTwinResult();
    (*out)->status = SK_TWIN_BAD_LAUNCH;
    (*out)->error = "launch with tasks: " + problem;
    return SK_TWIN_BAD_LAUNCH;
  }
  *out = sk_twin::RunOne(*launch, std::move(ext));
  return (*out)->status;
}

int sk_twin_run_sequence(const SkTwinLaunch* launches, uint32_t count, SkTwinResult** out) {
  if (out == nullptr || (launches == nullptr && count > 0)) return SK_TWIN_BAD_LAUNCH;
  for (uint32_t i = 0; i < count; ++i) out[i] = nullptr;
  for (uint32_t i = 0; i < count; ++i) {
    out[i] = sk_twin::RunOne(launches[i]);
    if (out[i]->status != SK_TWIN_OK) return out[i]->status;
  }
  return SK_TWIN_OK;
}

void sk_twin_result_free(SkTwinResult* result) { delete result; }
int sk_twin_result_status(const SkTwinResult* r) { return r->status; }
const char* sk_twin_result_error(const SkTwinResult* r) { return r->error.c_str(); }
const char* sk_twin_result_residual(const SkTwinResult* r) { return r->residual.c_str(); }
uint64_t sk_twin_result_wall_ns(const SkTwinResult* r) { return r->wall_ns; }
uint64_t sk_twin_result_start_ns(const SkTwinResult* r) { return r->start_ns; }

uint32_t sk_twin_counter_count(void) { return SK_TWIN_COUNTER_COUNT; }
const char* sk_twin_counter_name(uint32_t index) {
  return index < SK_TWIN_COUNTER_COUNT ? sk_twin::kCounterNames[index] : "";
}
uint64_t sk_twin_result_counter(const SkTwinResult* r, uint32_t index) {
  return index < SK_TWIN_COUNTER_COUNT ? r->counters[index] : 0;
}

uint32_t sk_twin_result_worker_count(const SkTwinResult* r) { return static_cast<uint32_t>(r->labels.size()); }
const char* sk_twin_result_worker_label(const SkTwinResult* r, uint32_t worker) {
  return worker < r->labels.size() ? r->labels[worker].c_str() : "";
}
uint64_t sk_twin_result_event_count(const SkTwinResult* r) { return r->events.size(); }
int sk_twin_result_event(const SkTwinResult* r, uint64_t index, uint32_t* worker, uint64_t* begin_ns,
                         uint64_t* end_ns, const char** name, const char** category) {
  if (index >= r->events.size()) return -1;
  const auto& e = r->events[index];
  if (worker != nullptr) *worker = e.worker;
  if (begin_ns != nullptr) *begin_ns = e.span.begin_ns;
  if (end_ns != nullptr) *end_ns = e.span.end_ns;
  if (name != nullptr) *name = e.span.name.c_str();
  if (category != nullptr) *category = e.span.category;
  return 0;
}

int sk_twin_run_tiling(const SkTwinTask* task, uint32_t timeout_ms, SkTwinResult** out) {
  if (out == nullptr) return SK_TWIN_BAD_LAUNCH;
  *out = new SkTwinResult();
  SkTwinResult& r = **out;
  if (task == nullptr || task->tiling == nullptr || task->tiling_ctx == nullptr ||
      (task->num_tiling_keys > 0 && task->tiling_keys == nullptr) ||
      (task->tiling_ctx->num_inputs > 0 && (task->tiling_ctx->inputs == nullptr || task->tiling_ctx->input_bytes == nullptr))) {
    r.status = SK_TWIN_BAD_LAUNCH;
    r.error = "tiling call: the task, its tiling function, its context, keys or inputs is NULL";
    return r.status;
  }
  const uint64_t timeout_ns = sk_twin::WatchdogNs(timeout_ms, &r.error);
  if (!r.error.empty()) {
    r.status = SK_TWIN_BAD_LAUNCH;
    return r.status;
  }
  r.start_ns = sk_twin::NowNs();
  r.status = sk_twin::RunTilingAlone(*task, timeout_ns, &r.error);
  r.wall_ns = sk_twin::NowNs() - r.start_ns;
  return r.status;
}

void sk_twin_check_tiling_read(const void* tiling, uint64_t bytes) {
  const std::string short_by = sk_twin::ShortGmRead(reinterpret_cast<uintptr_t>(tiling), bytes);
  if (short_by.empty()) return;
  const std::string msg = "GET_TILING_DATA: the kernel reads its " + std::to_string(bytes) +
                          "-byte tiling struct, but the tiling buffer " + short_by +
                          "; give the op a tiling of the whole struct (sk_model data file ops[].tiling, the launch "
                          "API's tiling bytes; sk_cann_op's tiling_size is sizeof the struct)";
  sk_twin_fail(msg.c_str());
}

void* sk_twin_gm_alloc(uint64_t bytes) { return sk_twin::GuardedAlloc(bytes, nullptr); }
void* sk_twin_gm_alloc_named(uint64_t bytes, const char* name) { return sk_twin::GuardedAlloc(bytes, name); }
void sk_twin_gm_free(void* ptr) { sk_twin::GuardedFree(ptr); }

}  // extern "C"
