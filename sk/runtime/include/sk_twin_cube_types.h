// sk_twin_cube_types.h - cube-side enums and sizes that kernels name in signatures and
// configurations, from the public Ascend C documentation. Only the names and
// their order: no cube data-path instruction (Fixpipe, LoadData, Mmad) is
// implemented on the twin, so a kernel that passes these to one still stops
// at that call.
#ifndef SK_TWIN_CUBE_TYPES_H_
#define SK_TWIN_CUBE_TYPES_H_

#include <cstdint>

// Fixpipe's / DataCopy(L0C->GM)'s on-the-fly quantisation mode, a global
// unscoped enum as kernels write it (QuantMode_t::F322BF16 and bare F322BF16).
enum QuantMode_t {
  NoQuant,
  F322F16,
  F322BF16,
  DEQF16,
  VDEQF16,
  QF322B8_PRE,
  VQF322B8_PRE,
  REQ8,
  VREQ8,
  QF322FP8_PRE,
  VQF322FP8_PRE,
  QF322HIF8_PRE,
  VQF322HIF8_PRE,
  QF322HIF8_PRE_HYBRID,
  VQF322HIF8_PRE_HYBRID,
  QS322BF16_PRE,
  VQS322BF16_PRE,
  QF322F16_PRE,
  VQF322F16_PRE,
  QF322BF16_PRE,
  VQF322BF16_PRE,
  QF322F32_PRE,
  VQF322F32_PRE,
};

// How a load walks its source addresses (LoadData2DParams::addrMode): the compiler's addr_cal_mode_t.
enum addr_cal_mode_t : uint8_t { inc = 0, dec = 1 };

namespace AscendC {
// The cube's L1 Buffer capacity on Atlas A2/A3 (512 KiB, the twin's per-AIC L1 arena too).
constexpr uint32_t TOTAL_L1_SIZE = 512 * 1024;
// L0C (CO1) capacity on Atlas A2/A3: 128 KiB.
constexpr uint32_t TOTAL_L0C_SIZE = 128 * 1024;
// A cube fractal is BLOCK_CUBE (16) rows of 32 bytes; CUBE_MAX_SIZE elements of a 16 x 16 fractal.
constexpr int32_t BLOCK_CUBE = 16;
constexpr int32_t CUBE_MAX_SIZE = 256;
constexpr int32_t BYTE_PER_FRACTAL = 512;
// One contiguous burst without gaps: the defaults kernels put in DataCopyParams/DataCopyExtParams.
constexpr uint8_t DEFAULT_DATA_COPY_NBURST = 1;
constexpr uint8_t DEFAULT_DATA_COPY_STRIDE = 0;
}  // namespace AscendC

#endif  // SK_TWIN_CUBE_TYPES_H_
