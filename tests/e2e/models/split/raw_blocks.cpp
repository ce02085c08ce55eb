// AIV_ONLY, deliberately breaking SK rule §8.1: reads the launch's raw block
// count (get_block_num) instead of AscendC::GetBlockNum(). Fused into a
// SuperKernel with more blocks, it writes a different value.
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void raw_blocks(GM_ADDR out) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    ((__gm__ int64_t*)out)[AscendC::GetBlockIdx()] = (int64_t)get_block_num();
}
