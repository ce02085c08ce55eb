// Texts for humans: the deadlock report (which barrier, who waits, who never
// arrived) and the residual report (sets never consumed at launch end).
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "core.h"

namespace sk_twin {
namespace {

const char* TypeName(CoreType t) { return t == CoreType::kAic ? "AIC" : "AIV"; }

// "AIC 0-30, AIV 4.1" from workers; consecutive ranks of one type collapse.
std::string Ranges(std::vector<const Worker*> ws) {
  std::sort(ws.begin(), ws.end(), [](const Worker* a, const Worker* b) {
    return std::make_tuple(a->type, a->rank) < std::make_tuple(b->type, b->rank);
  });
  std::string out;
  size_t i = 0;
  while (i < ws.size()) {
    size_t j = i;
    while (j + 1 < ws.size() && ws[j + 1]->type == ws[i]->type && ws[j + 1]->rank == ws[j]->rank + 1) ++j;
    if (!out.empty()) out += ", ";
    out += ws[i]->label;
    if (j > i) out += "-" + ws[j]->label.substr(4);
    i = j + 1;
  }
  return out;
}

std::string FlagText(int flag) {
  std::string text = std::to_string(flag);
  const char* name = FlagName(flag);
  if (*name != '\0') text += std::string(" ") + name;
  return text;
}

std::string AddrText(const LaunchContext& ctx, uintptr_t addr) {
  std::string text = HexAddr(addr);
  std::string word = WordText(ctx, addr);
  if (!word.empty()) text += " (" + word + ")";
  for (uint32_t i = 0; i < ctx.num_params; ++i) {
    if (ctx.params[i] == addr) return text + " (param_base[" + std::to_string(i) + "])";
  }
  return text;
}

std::string WaitText(const LaunchContext& ctx, const Worker& w) {
  std::string text;
  switch (w.state.load(std::memory_order_relaxed)) {
    case WorkerState::kWaitFlag:
      text = "wait_flag_dev(" + FlagText(w.wait_flag.load(std::memory_order_relaxed)) + ")";
      break;
    case WorkerState::kSpin:
      text = "a spin on the GM word at " + AddrText(ctx, w.wait_addr.load(std::memory_order_relaxed)) +
             " (notify/wait lock polled with dcci)";
      break;
    case WorkerState::kFeedPoll:
      text = "a poll of the feed-sync-all config word at " +
             AddrText(ctx, w.wait_addr.load(std::memory_order_relaxed)) +
             " (idle core waiting for the active cores' next SyncAll or end)";
      break;
    default:
      return "";
  }
  const char* within = w.within.load(std::memory_order_relaxed);
  if (within != nullptr) text += " in " + std::string(within);
  return text;
}

void Pending(RoundGroup& g, const std::string& what, std::vector<std::string>* out) {
  std::lock_guard<std::mutex> lock(g.mu);
  if (g.members.empty()) return;
  uint64_t high = *std::max_element(g.sets.begin(), g.sets.end());
  if (high <= g.rounds) return;
  std::vector<const Worker*> done;
  std::vector<const Worker*> missing;
  for (size_t i = 0; i < g.members.size(); ++i) {
    (g.sets[i] > g.rounds ? done : missing).push_back(g.members[i]);
  }
  out->push_back(what + ": round " + std::to_string(g.rounds + 1) + " set by " + Ranges(done) + ", missing " +
                 Ranges(missing));
}

void CollectPending(LaunchContext& ctx, std::vector<std::string>* pending) {
  for (int t = 0; t < 2; ++t) {
    for (int f = 0; f < kNumFlags; ++f) {
      Pending(ctx.mode0[t * kNumFlags + f],
              std::string("mode-0 flag ") + FlagText(f) + " over all " + TypeName(static_cast<CoreType>(t)) + "s",
              pending);
    }
  }
  for (uint32_t b = 0; b < ctx.block_dim; ++b) {
    for (int f = 0; f < kNumFlags; ++f) {
      Pending(ctx.mode1[b * kNumFlags + f], "mode-1 flag " + FlagText(f) + " over the AIVs of block " + std::to_string(b),
              pending);
      Pending(ctx.mode2up[b * kNumFlags + f],
              "mode-2 flag " + FlagText(f) + " from the AIVs of block " + std::to_string(b) + " to its AIC", pending);
    }
  }
}

}  // namespace

std::string HexAddr(uintptr_t addr) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(addr));
  return buf;
}

std::string RuleText(const LaunchContext& ctx, const Worker& w, const std::string& call, const std::string& problem,
                     const std::string& allowed) {
  std::string out = "kernel '" + ctx.name + "'";
  if (!w.sub_kernels.empty() && w.sub_kernels.back() != ctx.name) out += " (sub-kernel " + w.sub_kernels.back() + ")";
  out += " on " + w.label + " (block " + std::to_string(w.block) + "): " + call + ": " + problem;
  if (!allowed.empty()) out += "; " + allowed;
  return out;
}

std::string RationText(const LaunchContext& ctx) {
  return std::to_string(ctx.aic_ration) + ":" + std::to_string(ctx.aiv_ration);
}

std::string DescribeDeadlock(LaunchContext& ctx, uint64_t idle_ns) {
  std::string out = "sk twin: kernel '" + ctx.name + "' (block_dim " + std::to_string(ctx.block_dim) + ", ration " +
                    RationText(ctx) + ") deadlocked: no barrier progress for " +
                    std::to_string(idle_ns / 1000000) + " ms (timeout " +
                    std::to_string(ctx.timeout_ns / 1000000) + " ms; set SK_TWIN_TIMEOUT_MS to change it).";
  // Waiters grouped by what they wait on, in worker order.
  std::vector<std::string> order;
  std::map<std::string, std::vector<const Worker*>> waiting;
  std::vector<const Worker*> finished;
  std::vector<const Worker*> running;
  bool aic_waits = false;
  bool aiv_waits = false;
  for (const auto& w : ctx.workers) {
    std::string what = WaitText(ctx, *w);
    if (!what.empty()) {
      if (waiting.find(what) == waiting.end()) order.push_back(what);
      waiting[what].push_back(w.get());
      (w->type == CoreType::kAic ? aic_waits : aiv_waits) = true;
    } else if (w->state.load(std::memory_order_relaxed) == WorkerState::kFinished) {
      finished.push_back(w.get());
    } else {
      running.push_back(w.get());
    }
  }
  out += " Waiting:";
  for (size_t i = 0; i < order.size(); ++i) {
    out += (i == 0 ? " " : "; ") + Ranges(waiting[order[i]]) + " at " + order[i];
  }
  out += ".";
  if (!finished.empty() || !running.empty()) {
    out += " Never arrived:";
    if (!finished.empty()) out += " " + Ranges(finished) + " (finished the kernel)";
    if (!running.empty()) out += std::string(finished.empty() ? " " : "; ") + Ranges(running) + " (still running)";
    out += ".";
  }
  std::vector<std::string> pending;
  CollectPending(ctx, &pending);
  if (!pending.empty()) {
    out += " Incomplete set rounds:";
    for (size_t i = 0; i < pending.size(); ++i) out += (i == 0 ? " " : "; ") + pending[i];
    out += ".";
  }
  out += DescribeTasks(ctx);
  if (aic_waits && ctx.aiv_ration == 0) {
    out += " This launch has no AIV workers, so no mode-2 set from an AIV can release an AIC.";
  }
  if (aiv_waits && ctx.aic_ration == 0) {
    out += " This launch has no AIC workers, so no mode-2 set from an AIC can release an AIV.";
  }
  return out;
}

std::string DescribeResidual(LaunchContext& ctx) {
  std::vector<std::string> parts;
  std::map<int, std::vector<const Worker*>> by_flag;
  for (const auto& w : ctx.workers) {
    for (int f = 0; f < kNumFlags; ++f) {
      std::lock_guard<std::mutex> lock(w->cells[f].mu);
      if (w->cells[f].count != 0) by_flag[f].push_back(w.get());
    }
  }
  for (const auto& [flag, ws] : by_flag) {
    parts.push_back("flag " + FlagText(flag) + " left set on " + Ranges(ws));
  }
  if (ctx.ext != nullptr) {
    Externals& ext = *ctx.ext;
    std::lock_guard<std::mutex> lock(ext.mu);
    for (size_t i = 0; i < ext.words.size(); ++i) {
      std::vector<const Worker*> late;
      for (const auto& w : ctx.workers) {
        if (ext.late[i][w->index]) late.push_back(w.get());
      }
      if (late.empty()) continue;
      parts.push_back("the kernel wrote over GM word " + ext.whats[i] + " before " + Ranges(late) +
                      " first read it; the twin let them read what the task wrote, the order hardware gives when "
                      "all cores leave the barrier before it together (a core that arrives later spins forever: "
                      "a tiling lock released by block 0 right after its own call, sk/conformance/DIFFERENCES.md)");
    }
  }
  std::vector<std::string> pending;
  CollectPending(ctx, &pending);
  parts.insert(parts.end(), pending.begin(), pending.end());
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i == 0 ? "" : "; ") + parts[i];
  return out;
}

}  // namespace sk_twin
