// MIX_AIC_1_2: the cube of block b fills out[b*128, b*128+64), its two vector
// workers fill the other half, 32 elements each, from the previous op's output.
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void mix_split(GM_ADDR in, GM_ADDR out) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
    __gm__ const int32_t* x = (__gm__ const int32_t*)in;
    __gm__ int32_t* y = (__gm__ int32_t*)out;
    if ASCEND_IS_AIC {
        const int64_t base = get_block_idx() * 128;
        for (int64_t i = base; i < base + 64; ++i) y[i] = x[(i + 128) % 512] * 2;
    }
    if ASCEND_IS_AIV {
        const int64_t base = AscendC::GetBlockIdx() / 2 * 128 + 64 + AscendC::GetSubBlockIdx() * 32;
        for (int64_t i = base; i < base + 32; ++i) y[i] = x[(i + 128) % 512] - 7;
    }
}
