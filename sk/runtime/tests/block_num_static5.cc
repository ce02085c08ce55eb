// An SK-mode sub-kernel TU built for a static block num of 5 (the flags the
// SK sub-kernel compile passes, written here as defines).
#define __ASCENDC_ENABLE_SUPER_KERNEL__
#define __SUPER_KERNEL_STATIC_BLOCK_NUM__ 5
#include "kernel_operator.h"

extern "C" void block_num_static5(uint64_t args_offset) {
  GM_ADDR* param_base = (GM_ADDR*)get_para_base();
  auto* out = reinterpret_cast<int64_t*>(param_base[args_offset]);
  out[sk_twin_worker_index()] = AscendC::GetBlockNum();
}
