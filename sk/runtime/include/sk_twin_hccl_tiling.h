// The tiling structs of the HCCL high-level API as kernels see them
// (AscendC::tiling::Mc2InitTiling / Mc2CcTiling, also visible unqualified,
// as the ADK's generated kernel tiling header exports them), and the field
// layout inside them that the twin's Hccl reads (sk_twin_hccl.h).
//
// Both are opaque byte blocks to a kernel: the host fills them (Mc2CcTilingConfig::GetTiling).
// Inside: Mc2InitTiling holds a version, the count of communication tasks and
// their offsets; Mc2CcTiling holds one task's settings: skipLocalRankCopy at byte 0,
// its command type at byte 272 (kCcOpTypeOffset) and its reduce type after it.
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
#pragma pack(pop)

}  // namespace tiling
}  // namespace AscendC

using AscendC::tiling::Mc2CcTiling;
using AscendC::tiling::Mc2InitTiling;

namespace sk_twin_hccl {
// Byte offsets inside Mc2CcTiling: 4 flag bytes, 9 reserved, engine and the two data types,
// the group name (128) and the algorithm configuration (128), then the command and reduce types.
// skipLocalRankCopy is byte 0: 1 keeps this rank's own block out of recvBuf (AllGather, AlltoAll on A2).
constexpr size_t kCcSkipLocalRankCopyOffset = 0;
constexpr size_t kCcOpTypeOffset = 4 + 9 + 3 + 128 + 128;
constexpr size_t kCcReduceTypeOffset = kCcOpTypeOffset + 4;
static_assert(kCcReduceTypeOffset + 4 <= sizeof(AscendC::tiling::Mc2CcTiling), "inside Mc2CcTiling");
}  // namespace sk_twin_hccl

#endif  // SK_TWIN_HCCL_TILING_H_
