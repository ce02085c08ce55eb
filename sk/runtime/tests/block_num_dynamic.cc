// A dynamic-shape SK-mode sub-kernel: GetBlockNum reads the value the SK
// entry stored in g_super_kernel_dynamic_block_num.
#define __ASCENDC_ENABLE_SUPER_KERNEL__
#define __SUPER_KERNEL_DYNAMIC_BLOCK_NUM__
#include "kernel_operator.h"

extern "C" void block_num_dynamic(uint64_t args_offset) {
  GM_ADDR* param_base = (GM_ADDR*)get_para_base();
  auto* out = reinterpret_cast<int64_t*>(param_base[args_offset]);
  out[sk_twin_worker_index()] = AscendC::GetBlockNum();
}
