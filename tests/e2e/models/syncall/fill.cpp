// AIV_ONLY on 8 blocks: out[i] = in[i] + 1, 64 elements per block.
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void fill(GM_ADDR in, GM_ADDR out) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    __gm__ const int32_t* x = (__gm__ const int32_t*)in;
    __gm__ int32_t* y = (__gm__ int32_t*)out;
    const int64_t b0 = AscendC::GetBlockIdx() * 64;
    for (int64_t i = b0; i < b0 + 64; ++i) y[i] = x[i] + 1;
}
