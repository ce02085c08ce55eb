// AIC_ONLY: out[i] = in[i] * 3 on a tile per cube block.
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void cube_mul(GM_ADDR in, GM_ADDR out) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY);
    __gm__ const int32_t* x = (__gm__ const int32_t*)in;
    __gm__ int32_t* y = (__gm__ int32_t*)out;
    const int64_t tile = 512 / AscendC::GetBlockNum();
    for (int64_t i = get_block_idx() * tile; i < (get_block_idx() + 1) * tile; ++i) y[i] = x[i] * 3;
}
