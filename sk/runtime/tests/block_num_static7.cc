// The same sub-kernel shape with a static block num of 7: its inline
// GetBlockNum must not be merged with the other TU's.
#define __ASCENDC_ENABLE_SUPER_KERNEL__
#define __SUPER_KERNEL_STATIC_BLOCK_NUM__ 7
#include "kernel_operator.h"

extern "C" void block_num_static7(uint64_t args_offset) {
  GM_ADDR* param_base = (GM_ADDR*)get_para_base();
  auto* out = reinterpret_cast<int64_t*>(param_base[args_offset]);
  out[sk_twin_worker_index()] = AscendC::GetBlockNum();
}
