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
#include <chrono>
#include <cstring>
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
    SetState(*ext, t, "runs its tiling function");
    SkTilingContext* tc = task.tiling_ctx;
    tc->tiling_key = 0;
    tc->block_dim = 0;
    int rc = task.tiling(tc);
    if (rc != 0) {
      TaskFail(*ctx, *ext, t, "failed: its tiling function returned " + std::to_string(rc) +
                                  ", so it wrote no tiling and did not release " + WordName(*ext, task.release_word));
      return;
    }
    key = tc->tiling_key;
    blocks = tc->block_dim;
    bool known = task.num_tiling_keys == 0;
    std::string keys;
    for (uint32_t i = 0; i < task.num_tiling_keys; ++i) {
      known = known || task.tiling_keys[i] == key;
      keys += (i ? ", " : "") + std::to_string(task.tiling_keys[i]);
    }
    if (!known) {
      TaskFail(*ctx, *ext, t, "failed: its tiling function chose tiling key " + std::to_string(key) +
                                  ", which the kernel does not have (its keys: " + keys + ")");
      return;
    }
    if (blocks < 1 || blocks > tc->max_block_dim) {
      TaskFail(*ctx, *ext, t, "failed: its tiling function chose " + std::to_string(blocks) +
                                  " blocks; allowed 1.." + std::to_string(tc->max_block_dim) +
                                  " (the kernel's block_dim)");
      return;
    }
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
        ext->written[task.key_word] = true;
      }
      if (task.block_word >= 0) {
        *ext->words[task.block_word].addr = blocks;
        ext->written[task.block_word] = true;
      }
    }
    if (task.release_word >= 0) {
      *ext->words[task.release_word].addr = 1;
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
  if (ext.seen[i][w.index]) return true;  // seen already: this dcci follows the kernel's own reset
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
    threads.emplace_back([raw, ext, t] { RunTask(raw, ext, t); });
  }
  return threads;
}

std::string FinishTasks(LaunchContext& ctx, std::vector<std::thread>* threads) {
  if (ctx.ext == nullptr) return "";
  Externals& ext = *ctx.ext;
  {
    std::lock_guard<std::mutex> lock(ext.mu);
    ext.kernel_done = true;
  }
  ext.cv.notify_all();
  for (auto& t : *threads) t.join();
  std::lock_guard<std::mutex> lock(ext.mu);
  std::string errors;
  for (const auto& e : ext.task_error) {
    if (!e.empty()) errors += (errors.empty() ? "" : " ") + e + ".";
  }
  return errors;
}

}  // namespace sk_twin
