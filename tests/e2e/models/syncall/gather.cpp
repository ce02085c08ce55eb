// MIX_AIV_1_0 on 4 blocks with an all-core SyncAll between two phases:
// each block sums a quarter of `in` into partial[b]; after SyncAll every
// block writes out[b] = total + b. In a SuperKernel on 8 blocks the other 4
// vector cores never call this kernel, so its SyncAll needs feed-sync-all.
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void gather(GM_ADDR in, GM_ADDR partial, GM_ADDR out) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0);
    __gm__ const int32_t* x = (__gm__ const int32_t*)in;
    __gm__ int32_t* p = (__gm__ int32_t*)partial;
    __gm__ int32_t* y = (__gm__ int32_t*)out;
    const int64_t b = AscendC::GetBlockIdx();
    const int64_t n = 512 / AscendC::GetBlockNum();
    int32_t sum = 0;
    for (int64_t i = b * n; i < (b + 1) * n; ++i) sum += x[i];
    p[b] = sum;
    AscendC::SyncAll<true>();
    int32_t total = 0;
    for (int64_t k = 0; k < AscendC::GetBlockNum(); ++k) total += p[k];
    y[b] = total + (int32_t)b;
}
