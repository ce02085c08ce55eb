// AIV_ONLY: out[i] = in[(i + 64) % 512] + 7: each block reads what another
// block (of the producing op) wrote, so a missing cross-core wait shows.
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void vec_shift(GM_ADDR in, GM_ADDR out) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    __gm__ const int32_t* x = (__gm__ const int32_t*)in;
    __gm__ int32_t* y = (__gm__ int32_t*)out;
    const int64_t tile = 512 / AscendC::GetBlockNum();
    const int64_t b0 = AscendC::GetBlockIdx() * tile;
    for (int64_t i = b0; i < b0 + tile; ++i) y[i] = x[(i + 64) % 512] + 7;
}
