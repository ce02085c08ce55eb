// op_kernel/platform_util.h on the CPU twin: the platform facts CANN's operator
// base library gives kernels (Ops::Base), for the part the twin models
// (Atlas A2/A3: 32-byte UB blocks, 256-byte vector repeats, 192 KiB UB).
#ifndef SK_TWIN_OP_KERNEL_PLATFORM_UTIL_H_
#define SK_TWIN_OP_KERNEL_PLATFORM_UTIL_H_

#include <cstdint>

namespace Ops {
namespace Base {
constexpr uint32_t GetUbBlockSize() { return 32; }
constexpr uint32_t GetVRegSize() { return 256; }
constexpr uint32_t GetUbSize() { return 192 * 1024; }
}  // namespace Base
}  // namespace Ops

#endif  // SK_TWIN_OP_KERNEL_PLATFORM_UTIL_H_
