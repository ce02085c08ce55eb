// kernel_tiling/kernel_tiling.h on the CPU twin: where CANN's kernels find the
// tiling macros and structs (sk_twin_tiling.h lists them). The high-level
// APIs' tiling structs (TCubeTiling, ...) come from the headers that implement
// those APIs on the twin, included here when present.
#ifndef SK_TWIN_KERNEL_TILING_H_
#define SK_TWIN_KERNEL_TILING_H_

#include <cstddef>
#include <cstdint>

#include "../sk_twin_tiling.h"
#include "../sk_twin_hccl_tiling.h"

#if __has_include("../sk_twin_adv_tiling.h")
#include "../sk_twin_adv_tiling.h"
#endif

#endif  // SK_TWIN_KERNEL_TILING_H_
