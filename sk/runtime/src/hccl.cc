// The launch's HCCL communication contexts (sk_twin_hccl_abi.h): one rank,
// two communication domains, each with its own windows. Made at the first
// GetHcclContext of a launch, under the launch's hccl_mu, and freed with the
// launch (a launch that left stuck workers behind keeps them).
#include <cstring>
#include <memory>
#include <string>

#include "core.h"
#include "faults.h"
#include "sk_twin_hccl_abi.h"

namespace sk_twin {
namespace {

struct Domain {
  uint8_t* context = nullptr;     // the twin's own (guarded GM)
  uint8_t* window_in = nullptr;
  uint8_t* window_out = nullptr;
  uint8_t* set_context = nullptr;  // SetHcclContext's, if any
};

struct HcclState {
  Domain domains[sk_twin_hccl::kDomains];
  HcclState() = default;
  HcclState(const HcclState&) = delete;
  HcclState& operator=(const HcclState&) = delete;
  ~HcclState() {
    for (Domain& d : domains) {
      GuardedFree(d.context);
      GuardedFree(d.window_in);
      GuardedFree(d.window_out);
    }
  }
};

HcclState& StateOf(LaunchContext& ctx) {  // callers hold ctx.hccl_mu
  if (!ctx.hccl) ctx.hccl = std::make_shared<HcclState>();
  return *static_cast<HcclState*>(ctx.hccl.get());
}

void MakeDomain(Domain& d, uint32_t index) {
  const std::string n = std::to_string(index);
  d.context = static_cast<uint8_t*>(GuardedAlloc(sizeof(sk_twin_hccl::Context), ("HCCL context " + n).c_str()));
  d.window_in = static_cast<uint8_t*>(GuardedAlloc(sk_twin_hccl::kWindowBytes, ("HCCL windowsIn " + n).c_str()));
  d.window_out = static_cast<uint8_t*>(GuardedAlloc(sk_twin_hccl::kWindowBytes, ("HCCL windowsOut " + n).c_str()));
  if (d.context == nullptr || d.window_in == nullptr || d.window_out == nullptr) {
    FailCurrent("GetHcclContext<" + n + ">: the twin could not map the communication context and its two " +
                std::to_string(sk_twin_hccl::kWindowBytes >> 20) + " MiB windows");
  }
  sk_twin_hccl::Context c;
  std::memset(&c, 0, sizeof c);
  c.rankId = 0;
  c.rankNum = 1;
  c.winSize = sk_twin_hccl::kWindowBytes;
  c.windowsIn[0] = reinterpret_cast<uint64_t>(d.window_in);
  c.windowsOut[0] = reinterpret_cast<uint64_t>(d.window_out);
  std::memcpy(d.context, &c, sizeof c);
}

uint32_t CheckedIndex(const char* call, uint32_t index) {
  if (index >= sk_twin_hccl::kDomains) {
    FailRule(call, "communication domain index " + std::to_string(index), "0 or 1 (at most 2 communication domains)");
  }
  return index;
}

}  // namespace
}  // namespace sk_twin

extern "C" {

uint8_t* sk_twin_hccl_context(uint32_t index) {
  using namespace sk_twin;
  CurrentWorker("GetHcclContext");
  CheckedIndex("GetHcclContext", index);
  LaunchContext& ctx = CurrentLaunch();
  std::lock_guard<std::mutex> lock(ctx.hccl_mu);
  Domain& d = StateOf(ctx).domains[index];
  if (d.set_context != nullptr) return d.set_context;
  if (d.context == nullptr) MakeDomain(d, index);
  return d.context;
}

void sk_twin_hccl_set_context(uint32_t index, uint8_t* context) {
  using namespace sk_twin;
  CurrentWorker("SetHcclContext");
  CheckedIndex("SetHcclContext", index);
  LaunchContext& ctx = CurrentLaunch();
  std::lock_guard<std::mutex> lock(ctx.hccl_mu);
  StateOf(ctx).domains[index].set_context = context;
}

void sk_twin_hccl_fail(const char* call, const char* problem, const char* allowed) {
  sk_twin::FailRule(call == nullptr ? "Hccl" : call, problem == nullptr ? "" : problem,
                    allowed == nullptr ? "" : allowed);
}

}  // extern "C"
