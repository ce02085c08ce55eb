// The tiling structs of the HCCL high-level API as kernels see them
// (AscendC::tiling::Mc2InitTiling / Mc2CcTiling, and the deprecated v1 Mc2Msg, also visible unqualified,
// as the ADK's generated kernel tiling header exports them), and the field
// layout inside them that the twin's Hccl reads (sk_twin_hccl.h).
//
// Both are opaque byte blocks to a kernel: the host fills them (Mc2CcTilingConfig::GetTiling).
// Inside: Mc2InitTiling holds a version, the count of communication tasks and
// their offsets; Mc2CcTiling holds one task's settings, its command type at
// byte 272 (kCcOpTypeOffset) and its reduce type after it.
#ifndef SK_TWIN_HCCL_TILING_H_
#define SK_TWIN_HCCL_TILING_H_

#include <cstddef>
#include <cstdint>

namespace AscendC {
namespace tiling {

#pragma pack(push, 8)
struct Mc2InitTiling {
  uint8_t reserved[64] = {};
};
struct Mc2CcTiling {
  uint8_t reserved[512] = {};
};
// The deprecated v1 communication tiling (Hccl::Init without an initTiling): the server's settings in a
// fixed order. A kernel reads useBufferType (2: the communication input is this rank's windowsIn).
struct Mc2Msg {
  uint32_t preparePosition = 0;
  uint32_t sendOff = 0;
  uint32_t recvOff = 0;
  uint32_t tailSendOff = 0;
  uint32_t tailRecvOff = 0;
  uint64_t sendCnt = 0;
  uint32_t recvCnt = 0;
  uint32_t tailSendCnt = 0;
  uint32_t tailRecvCnt = 0;
  uint32_t totalCnt = 0;
  uint32_t turnNum = 0;
  uint32_t tailNum = 0;
  uint32_t stride = 0;
  uint32_t workspaceOff = 0;
  uint32_t notifyOff = 0;
  uint16_t notifyBeginCnt = 0;
  uint16_t notifyEndCnt = 0;
  uint8_t useBufferType = 0;
  uint8_t funID = 0;
  uint8_t dataType = 0;
  uint8_t groupNum = 0;
  uint8_t reuseMode = 0;
  uint8_t commType = 0;
  uint8_t reduceOp = 0;
  uint8_t commOrder = 0;
  uint8_t waitPolicy = 0;
  uint8_t rspPolicy = 0;
  uint8_t exitPolicy = 0;
  uint8_t commAlg = 0;
  uint8_t taskType = 0;
  uint8_t debugMode = 0;
  uint8_t stepSize = 0;
  uint8_t sendArgIndex = 0;
  uint8_t recvArgIndex = 0;
  uint8_t commOutArgIndex = 0;
  uint8_t hasCommOut = 0;
  uint8_t reserve = 0;
  uint32_t reserve2 = 0;
};
#pragma pack(pop)

}  // namespace tiling
}  // namespace AscendC

using AscendC::tiling::Mc2CcTiling;
using AscendC::tiling::Mc2InitTiling;
using AscendC::tiling::Mc2Msg;

namespace sk_twin_hccl {
// Byte offsets inside Mc2CcTiling: 4 flag bytes, 9 reserved, engine and the two data types,
// the group name (128) and the algorithm configuration (128), then the command and reduce types.
constexpr size_t kCcOpTypeOffset = 4 + 9 + 3 + 128 + 128;
constexpr size_t kCcReduceTypeOffset = kCcOpTypeOffset + 4;
static_assert(kCcReduceTypeOffset + 4 <= sizeof(AscendC::tiling::Mc2CcTiling), "inside Mc2CcTiling");
// Mc2Msg as the kernel tiling generator lays it out (natural alignment, pack 8): sendCnt after 4 bytes of padding.
static_assert(offsetof(AscendC::tiling::Mc2Msg, sendCnt) == 24, "Mc2Msg layout");
static_assert(offsetof(AscendC::tiling::Mc2Msg, useBufferType) == 72, "Mc2Msg layout");
static_assert(sizeof(AscendC::tiling::Mc2Msg) == 96, "Mc2Msg layout");
}  // namespace sk_twin_hccl

#endif  // SK_TWIN_HCCL_TILING_H_
