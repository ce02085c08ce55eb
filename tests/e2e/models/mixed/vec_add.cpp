// AIV_ONLY: out[i] = a[(i + 64) % 512] + helper(b[i]); reads the cube op's
// output written by other blocks, and defines its own global helper().
#include "kernel_operator.h"

int helper(int v) { return v + 1000; }

extern "C" __global__ __aicore__ void vec_add(GM_ADDR a, GM_ADDR b, GM_ADDR out) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    __gm__ const int32_t* x = (__gm__ const int32_t*)a;
    __gm__ const int32_t* z = (__gm__ const int32_t*)b;
    __gm__ int32_t* y = (__gm__ int32_t*)out;
    const int64_t tile = 512 / AscendC::GetBlockNum();
    const int64_t b0 = AscendC::GetBlockIdx() * tile;
    for (int64_t i = b0; i < b0 + tile; ++i) y[i] = x[(i + 64) % 512] + helper(z[i]);
}
