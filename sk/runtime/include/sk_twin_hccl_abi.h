// The twin's side of the HCCL high-level API (src/hccl.cc): the
// communication context a launch owns, and the hooks sk_twin_hccl.h calls.
//
// The context has the layout HCCL hands an Atlas A2 kernel (what
// GetHcclContext returns there, and what MC2 kernels read directly as their
// own HcclCombinOpParam / HcclA2CombineOpParam): the client/server workspace,
// this rank's id and the rank count, the window size, then the windowsIn and
// windowsOut address of every rank. The twin has ONE rank: rankId 0,
// rankNum 1, windowsIn[0]/windowsOut[0] its own guarded GM buffers of
// kWindowBytes each, every other byte zero (so the capability pointer that
// MoE kernels test is null: the AI CPU data plane).
#ifndef SK_TWIN_HCCL_ABI_H_
#define SK_TWIN_HCCL_ABI_H_

#include <cstddef>
#include <cstdint>

namespace sk_twin_hccl {

constexpr uint32_t kMaxRanks = 32;      // the A2 context's window tables
constexpr uint32_t kDomains = 2;        // GetHcclContext<0> and <1>
constexpr uint64_t kWindowBytes = 200ull << 20;  // HCCL's default buffer size (HCCL_BUFFSIZE 200 MB)

struct Context {
  uint64_t workSpace;
  uint64_t workSpaceSize;
  uint32_t rankId;
  uint32_t rankNum;
  uint64_t winSize;
  uint64_t windowsIn[kMaxRanks];
  uint64_t windowsOut[kMaxRanks];
  uint8_t res[8328];
  uint8_t multiFlag;
  uint64_t data;
  uint64_t dataSize;
  uint64_t sizeOfAiRMAInfo;
  uint64_t aiRMAInfo;
  uint64_t capability;
  uint64_t capabilitySize;
};
static_assert(offsetof(Context, rankId) == 16, "A2 context layout");
static_assert(offsetof(Context, windowsIn) == 32, "A2 context layout");
static_assert(offsetof(Context, windowsOut) == 288, "A2 context layout");
static_assert(offsetof(Context, multiFlag) == 8872, "A2 context layout");
static_assert(offsetof(Context, capability) == 8912, "A2 context layout");

}  // namespace sk_twin_hccl

extern "C" {
// The context of communication domain `index` (0 or 1) for the calling worker's launch: the one
// sk_twin_hccl_set_context gave, else the twin's own (made at first use, freed with the launch).
uint8_t* sk_twin_hccl_context(uint32_t index);
// SetHcclContext<index>: later GetHcclContext<index> calls of the launch return `context`.
void sk_twin_hccl_set_context(uint32_t index, uint8_t* context);
// Fails the launch with a broken rule of an Hccl call (named like the twin's other rule errors).
void sk_twin_hccl_fail(const char* call, const char* problem, const char* allowed);
}

#endif  // SK_TWIN_HCCL_ABI_H_
