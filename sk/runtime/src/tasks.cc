// Memory-semantic words and the external tasks of a launch (facts §15.3):
// an AI CPU tiling task and an SDMA prefetch task, run as host threads.
//
// Hardware makes a GM word written by another engine visible to a core when
// the core dccis it; the twin does the same at the dcci hook: a worker's
// dcci of a word a task writes returns once the task has written it (under
// Externals::mu, so the race checker sees the task's writes - the word, the
// tiling key and block count, the tiling data - happen before the kernel's
// reads), and a worker's dcci of a word it has just written (a notify) wakes
// the task waiting for it. A worker waiting for a word shows as a spin on it,
// so the watchdog ends a launch whose word is never written, naming the word,
// its op and the task that should have written it.
//
// A tiling function is user code: it is called like a kernel (faults.h), so
// that a fatal signal in it fails the launch naming the task and function,
// and one that never returns is failed by the watchdog and taken back.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core.h"
#include "sk_tiling.h"

namespace sk_twin {
namespace {

int FindWord(const Externals& ext, const volatile void* addr) {
  for (size_t i = 0; i < ext.words.size(); ++i) {
    if (static_cast<const volatile void*>(ext.words[i].addr) == addr) return static_cast<int>(i);
  }
  return -1;
}

std::string WordName(const Externals& ext, int i) {
  return "GM word " + HexAddr(reinterpret_cast<uintptr_t>(ext.words[i].addr)) + " (" + ext.whats[i] + ")";
}

void SetState(Externals& ext, size_t task, const std::string& state) {
  std::lock_guard<std::mutex> lock(ext.mu);
  ext.task_state[task] = state;
}

void TaskFail(LaunchContext& ctx, Externals& ext, size_t task, const std::string& why) {
  {
    std::lock_guard<std::mutex> lock(ext.mu);
    ext.task_error[task] = "task '" + ext.names[task] + "' " + why;
    ext.task_state[task] = "failed";
  }
  NoteProgress(ctx);
}

// How a tiling function's call ended: problem is "" or what it did, worded to
// follow "its tiling function ..." (any problem fails the launch at once);
// refused: it returned non-zero; cancelled: it was taken back (its failure is
// reported already).
struct TilingEnd {
  std::string problem;
  bool refused = false;
  bool cancelled = false;
};

// Calls the task's tiling function on this thread with faults caught, then
// checks the tiling key and block count it chose.
TilingEnd CallTiling(const SkTwinTask& task, TaskRun& run) {
  SkTilingContext* tc = task.tiling_ctx;
  tc->tiling_key = 0;
  tc->block_dim = 0;
  struct Call {
    const SkTwinTask* task;
    int rc;
    std::string thrown;
  } call{&task, 0, ""};
  run.tiling_since_ns.store(NowNs(), std::memory_order_relaxed);
  const CallEnd end = CallCatchingFaults(&run.fault, &run.code, [](void* p) {
    auto* c = static_cast<Call*>(p);
    try {
      c->rc = c->task->tiling(c->task->tiling_ctx);
    } catch (const std::exception& e) {
      c->thrown = std::string("threw: ") + e.what();
    } catch (...) {
      c->thrown = "threw a non-standard exception";
    }
  }, &call);
  run.tiling_since_ns.store(0, std::memory_order_relaxed);
  TilingEnd out;
  if (end == CallEnd::kCancelled) {
    out.cancelled = true;
    out.problem = "was taken back";
    return out;
  }
  if (end == CallEnd::kFaulted || !call.thrown.empty()) {
    out.problem = end == CallEnd::kFaulted ? "crashed: " + DescribeFault(run.fault) : call.thrown;
    return out;
  }
  if (call.rc != 0) {
    out.refused = true;
    out.problem = "returned " + std::to_string(call.rc);
    return out;
  }
  const uint64_t key = tc->tiling_key;
  bool known = task.num_tiling_keys == 0;
  std::string keys;
  for (uint32_t i = 0; i < task.num_tiling_keys; ++i) {
    known = known || task.tiling_keys[i] == key;
    keys += (i ? ", " : "") + std::to_string(task.tiling_keys[i]);
  }
  if (!known) {
    out.problem = "chose tiling key " + std::to_string(key) + ", which the kernel does not have (its keys: " + keys + ")";
  } else if (tc->block_dim < 1 || tc->block_dim > tc->max_block_dim) {
    out.problem = "chose " + std::to_string(tc->block_dim) + " blocks; allowed 1.." +
                  std::to_string(tc->max_block_dim) + " (the kernel's block_dim)";
  }
  return out;
}

std::string FunctionOf(const SkTwinTask& task) {
  return task.what != nullptr && *task.what != '\0' ? task.what : "tiling function";
}

std::string OverdueText(uint64_t ran_ns, uint64_t timeout_ns) {
  return "never returned: it ran for " + std::to_string(ran_ns / 1000000) + " ms (timeout " +
         std::to_string(timeout_ns / 1000000) + " ms; set SK_TWIN_TIMEOUT_MS to change it); an endless loop?";
}

void RunTask(LaunchContext* ctx, Externals* ext, size_t t) {
  const SkTwinTask& task = ext->tasks[t];
  if (task.wait_word >= 0) {
    const int ww = task.wait_word;
    SetState(*ext, t, "waits for its notify, " + WordName(*ext, ww));
    std::unique_lock<std::mutex> lock(ext->mu);
    while (!ext->written[ww]) {
      if (ctx->abort.load(std::memory_order_relaxed)) return;
      if (ext->kernel_done) {
        lock.unlock();
        TaskFail(*ctx, *ext, t, "waited for its notify, " + WordName(*ext, ww) +
                                    ", but the kernel ended without writing it");
        return;
      }
      ext->cv.wait_for(lock, std::chrono::milliseconds(10));
    }
    const uint64_t value = *ext->words[ww].addr;
    lock.unlock();
    if (value != 1) {
      TaskFail(*ctx, *ext, t, "read " + std::to_string(value) + " from its notify, " + WordName(*ext, ww) +
                                  "; the protocol writes 1");
      return;
    }
  }
  uint64_t key = 0;
  uint32_t blocks = 0;
  if (task.tiling != nullptr) {
    const std::string& function = ext->functions[t];
    SetState(*ext, t, "runs its " + function);
    TilingEnd end = CallTiling(task, *ext->runs[t]);
    if (end.cancelled) {
      SetState(*ext, t, "was taken back from its " + function);
      return;
    }
    if (!end.problem.empty()) {
      std::string why = "failed: its " + function + " " + end.problem;
      if (end.refused) {
        why += ", so it wrote no tiling and did not release " + WordName(*ext, task.release_word);
      }
      TaskFail(*ctx, *ext, t, why);
      // Known now, whether it crashed, said no or chose what the kernel cannot run: the launch ends
      // at once naming the task and what it returned, rather than after the watchdog's timeout as a
      // SuperKernel spinning on the lock that will never be released.
      std::string error;
      {
        std::lock_guard<std::mutex> lock(ext->mu);
        error = ext->task_error[t];
      }
      ctx->Fail(SK_TWIN_TASK_ERROR, "sk twin: kernel '" + ctx->name + "': " + error + ".");
      return;
    }
    key = task.tiling_ctx->tiling_key;
    blocks = task.tiling_ctx->block_dim;
  } else if (task.prefetch != nullptr) {
    // The SDMA engine loads the range into L2; the twin has no L2, it reads it through.
    SetState(*ext, t, "prefetches " + std::to_string(task.prefetch_bytes) + " bytes");
    const volatile uint8_t* p = static_cast<const volatile uint8_t*>(task.prefetch);
    uint64_t sum = 0;
    for (uint64_t i = 0; i < task.prefetch_bytes; i += 64) sum += p[i];
    (void)sum;
  }
  {
    std::lock_guard<std::mutex> lock(ext->mu);
    if (task.tiling != nullptr) {
      if (task.key_word >= 0) {
        *ext->words[task.key_word].addr = key;
        ext->task_value[task.key_word] = key;
        ext->written[task.key_word] = true;
      }
      if (task.block_word >= 0) {
        *ext->words[task.block_word].addr = blocks;
        ext->task_value[task.block_word] = blocks;
        ext->written[task.block_word] = true;
      }
    }
    if (task.release_word >= 0) {
      *ext->words[task.release_word].addr = 1;
      ext->task_value[task.release_word] = 1;
      ext->written[task.release_word] = true;
    }
    ext->task_state[t] = "done";
  }
  ext->cv.notify_all();
  NoteProgress(*ctx);
}

}  // namespace

bool ExternalDcci(LaunchContext& ctx, Worker& w, const volatile void* addr) {
  Externals& ext = *ctx.ext;
  const int i = FindWord(ext, addr);
  if (i < 0) return false;
  {
    // After this core's first read the word is plain GM to it: the kernel may have reset it (a tiling lock
    // released by block 0) and a core that spins on it from then on must count as spinning, not as
    // progress, or the watchdog never names the hang.
    std::lock_guard<std::mutex> seen(ext.mu);
    if (ext.words[i].writer != SK_TWIN_WORD_BY_KERNEL && ext.seen[i][w.index]) return false;
  }
  EndSpin(w);
  NoteProgress(ctx);
  std::unique_lock<std::mutex> lock(ext.mu);
  if (ext.words[i].writer == SK_TWIN_WORD_BY_KERNEL) {
    // The kernel wrote its notify; the dcci makes it visible to the task.
    ext.written[i] = true;
    lock.unlock();
    ext.cv.notify_all();
    return true;
  }
  if (!ext.written[i]) {
    const uint64_t since = NowNs();
    w.wait_addr.store(reinterpret_cast<uintptr_t>(addr), std::memory_order_relaxed);
    w.wait_since_ns.store(since, std::memory_order_relaxed);
    w.state.store(WorkerState::kSpin, std::memory_order_relaxed);
    while (!ext.written[i]) {
      if (ctx.abort.load(std::memory_order_relaxed)) {
        lock.unlock();
        w.state.store(WorkerState::kRunning, std::memory_order_relaxed);
        throw LaunchAborted{};
      }
      ext.cv.wait_for(lock, std::chrono::milliseconds(10));
    }
    w.state.store(WorkerState::kRunning, std::memory_order_relaxed);
    if (ctx.trace) RecordSpan(w, "wait for " + ext.whats[i], "barrier", since, NowNs());
  }
  volatile uint64_t* word = ext.words[i].addr;
  const bool overwritten = std::any_of(ext.late[i].begin(), ext.late[i].end(), [](bool b) { return b; });
  if (overwritten || *word != ext.task_value[i]) {
    // The kernel wrote over the word before this core's first read: block 0 releasing a tiling lock right
    // after its own call (upstream's text) while this core was still on its way to the lock. On hardware
    // the cores leave the barrier before it together and none is this late; a thread of the twin can be.
    // The twin replays the order hardware gives (this core reads the task's value) and notes it; the
    // kernel's value is back when every core has read the word (or at the launch's end).
    if (!overwritten) ext.reset_value[i] = *word;
    ext.late[i][w.index] = true;
    *word = ext.task_value[i];
  }
  ext.seen[i][w.index] = true;
  return true;
}

std::string WordText(const LaunchContext& ctx, uintptr_t addr) {
  if (ctx.ext == nullptr) return "";
  const int i = FindWord(*ctx.ext, reinterpret_cast<const volatile void*>(addr));
  return i < 0 ? "" : ctx.ext->whats[i];
}

std::string DescribeTasks(LaunchContext& ctx) {
  if (ctx.ext == nullptr || ctx.ext->tasks.empty()) return "";
  Externals& ext = *ctx.ext;
  std::lock_guard<std::mutex> lock(ext.mu);
  std::string out = " External tasks:";
  for (size_t t = 0; t < ext.tasks.size(); ++t) {
    out += (t ? "; '" : " '") + ext.names[t] + "' " +
           (ext.task_error[t].empty() ? ext.task_state[t] : ext.task_error[t]);
  }
  return out + ".";
}

std::shared_ptr<Externals> MakeExternals(const SkTwinWord* words, uint32_t num_words, const SkTwinTask* tasks,
                                         uint32_t num_tasks, std::string* problem) {
  auto ext = std::make_shared<Externals>();
  for (uint32_t i = 0; i < num_words; ++i) {
    if (words[i].addr == nullptr) {
      *problem = "word " + std::to_string(i) + " has a NULL address";
      return nullptr;
    }
    ext->words.push_back(words[i]);
    ext->whats.push_back(words[i].what == nullptr ? "" : words[i].what);
  }
  for (uint32_t t = 0; t < num_tasks; ++t) {
    const SkTwinTask& task = tasks[t];
    std::string name = task.name == nullptr ? "task " + std::to_string(t) : task.name;
    for (int32_t wi : {task.wait_word, task.key_word, task.block_word, task.release_word}) {
      if (wi >= static_cast<int32_t>(num_words)) {
        *problem = "task '" + name + "' names word " + std::to_string(wi) + " of " + std::to_string(num_words);
        return nullptr;
      }
    }
    if (task.tiling != nullptr && task.tiling_ctx == nullptr) {
      *problem = "tiling task '" + name + "' has no tiling context";
      return nullptr;
    }
    ext->tasks.push_back(task);
    ext->names.push_back(name);
    ext->functions.push_back(FunctionOf(task));
    ext->runs.emplace_back(new TaskRun());
    if (task.tiling != nullptr) ext->runs.back()->code = UserCodeRanges(reinterpret_cast<const void*>(task.tiling), nullptr);
  }
  ext->written.assign(num_words, false);
  ext->task_state.assign(num_tasks, "not started");
  ext->task_error.assign(num_tasks, "");
  return ext;
}

std::vector<std::thread> StartTasks(LaunchContext& ctx) {
  std::vector<std::thread> threads;
  if (ctx.ext == nullptr) return threads;
  Externals* ext = ctx.ext.get();
  LaunchContext* raw = &ctx;
  for (size_t t = 0; t < ext->tasks.size(); ++t) {
    threads.emplace_back([raw, ext, t] {
      RunTask(raw, ext, t);
      {
        std::lock_guard<std::mutex> lock(ext->mu);
        ext->runs[t]->finished = true;
      }
      ext->cv.notify_all();
    });
  }
  return threads;
}

bool TilingRuns(const LaunchContext& ctx) {
  if (ctx.ext == nullptr) return false;
  for (const auto& run : ctx.ext->runs) {
    if (run->tiling_since_ns.load(std::memory_order_relaxed) != 0) return true;
  }
  return false;
}

std::string OverdueTask(LaunchContext& ctx, uint64_t now_ns) {
  if (ctx.ext == nullptr) return "";
  Externals& ext = *ctx.ext;
  for (size_t t = 0; t < ext.runs.size(); ++t) {
    const uint64_t since = ext.runs[t]->tiling_since_ns.load(std::memory_order_relaxed);
    if (since == 0 || now_ns < since || now_ns - since <= ctx.timeout_ns) continue;
    std::lock_guard<std::mutex> lock(ext.mu);
    ext.task_error[t] =
        "task '" + ext.names[t] + "' failed: its " + ext.functions[t] + " " + OverdueText(now_ns - since, ctx.timeout_ns);
    ext.task_state[t] = "failed";
    return "sk twin: kernel '" + ctx.name + "': " + ext.task_error[t] + ".";
  }
  return "";
}

std::string FinishTasks(LaunchContext& ctx, std::vector<std::thread>* threads, bool* left) {
  *left = false;
  if (ctx.ext == nullptr) return "";
  Externals& ext = *ctx.ext;
  {
    std::lock_guard<std::mutex> lock(ext.mu);
    ext.kernel_done = true;
  }
  ext.cv.notify_all();
  // A task waiting for its notify leaves by itself; one in its tiling function gets the
  // watchdog's time, and after a failure it is taken back.
  uint64_t grace_end = 0;
  std::unique_lock<std::mutex> lock(ext.mu);
  while (true) {
    bool all = true;
    for (const auto& run : ext.runs) all = all && run->finished;
    if (all) break;
    lock.unlock();
    const uint64_t now = NowNs();
    if (!ctx.abort.load(std::memory_order_relaxed)) {
      std::string overdue = OverdueTask(ctx, now);
      if (!overdue.empty()) ctx.Fail(SK_TWIN_HANG, overdue);
    }
    if (ctx.abort.load(std::memory_order_relaxed)) {
      if (grace_end == 0) grace_end = now + GraceNs(ctx.timeout_ns);
      for (auto& run : ext.runs) {
        if (run->tiling_since_ns.load(std::memory_order_relaxed) != 0) RequestCancel(&run->fault);
      }
    }
    lock.lock();
    if (grace_end != 0 && now > grace_end) break;
    ext.cv.wait_for(lock, std::chrono::milliseconds(10));
  }
  std::string errors, stuck;
  for (size_t t = 0; t < threads->size(); ++t) {
    if (ext.runs[t]->finished) {
      (*threads)[t].join();
      continue;
    }
    // Stuck outside its own code (in libc, say): it still uses the launch, which RunOne leaks.
    (*threads)[t].detach();
    *left = true;
    stuck += (stuck.empty() ? "'" : ", '") + ext.names[t] + "'";
  }
  for (size_t i = 0; i < ext.words.size(); ++i) {
    if (std::any_of(ext.late[i].begin(), ext.late[i].end(), [](bool b) { return b; })) {
      *ext.words[i].addr = ext.reset_value[i];
    }
  }
  for (const auto& e : ext.task_error) {
    if (!e.empty()) errors += (errors.empty() ? "" : " ") + e + ".";
  }
  if (!stuck.empty()) {
    errors += " Tasks still running outside their own code after the abort (detached, not joined): " + stuck + ".";
  }
  return errors;
}

int RunTilingAlone(const SkTwinTask& task, uint64_t timeout_ns, std::string* error) {
  // The thread owns a copy of everything it reads: one that cannot be taken back
  // outlives the caller's context.
  struct Alone {
    SkTwinTask task;
    SkTilingContext tc;
    std::vector<const uint8_t*> inputs;
    std::vector<uint64_t> input_bytes;
    std::vector<uint64_t> keys;
    TaskRun run;
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;  // guarded by mu
    TilingEnd end;      // guarded by mu
  };
  auto a = std::make_shared<Alone>();
  a->task = task;
  a->tc = *task.tiling_ctx;
  a->inputs.assign(task.tiling_ctx->inputs, task.tiling_ctx->inputs + task.tiling_ctx->num_inputs);
  a->input_bytes.assign(task.tiling_ctx->input_bytes, task.tiling_ctx->input_bytes + task.tiling_ctx->num_inputs);
  a->keys.assign(task.tiling_keys, task.tiling_keys + task.num_tiling_keys);
  a->tc.inputs = a->inputs.data();
  a->tc.input_bytes = a->input_bytes.data();
  a->task.tiling_ctx = &a->tc;
  a->task.tiling_keys = a->keys.data();
  a->run.code = UserCodeRanges(reinterpret_cast<const void*>(task.tiling), nullptr);
  const std::string function = FunctionOf(task);
  std::thread thread([a] {
    TilingEnd end = CallTiling(a->task, a->run);
    std::lock_guard<std::mutex> lock(a->mu);
    a->end = std::move(end);
    a->done = true;
    a->cv.notify_all();
  });
  const uint64_t start = NowNs();
  std::unique_lock<std::mutex> lock(a->mu);
  while (!a->done && NowNs() - start <= timeout_ns) a->cv.wait_for(lock, std::chrono::milliseconds(10));
  if (a->done) {
    lock.unlock();
    thread.join();
    if (a->end.problem.empty()) {
      task.tiling_ctx->tiling_key = a->tc.tiling_key;
      task.tiling_ctx->block_dim = a->tc.block_dim;
      return SK_TWIN_OK;
    }
    *error = "the " + function + " " + a->end.problem;
    return SK_TWIN_TASK_ERROR;
  }
  *error = "the " + function + " " + OverdueText(NowNs() - start, timeout_ns);
  const uint64_t grace_end = NowNs() + GraceNs(timeout_ns);
  while (!a->done && NowNs() < grace_end) {
    lock.unlock();
    RequestCancel(&a->run.fault);
    lock.lock();
    a->cv.wait_for(lock, std::chrono::milliseconds(10));
  }
  const bool done = a->done;
  lock.unlock();
  if (done) {
    thread.join();
  } else {
    thread.detach();
    *error += " It could not be taken back outside its own code (detached, still running).";
  }
  return SK_TWIN_HANG;
}

}  // namespace sk_twin
