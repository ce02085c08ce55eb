// z = 2 * x + y over 4096 floats: each block computes its share, found from
// GetBlockIdx() and GetBlockNum() (this kernel's block_dim, also when fused).
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void scale_add(GM_ADDR x, GM_ADDR y, GM_ADDR z) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    constexpr int64_t kCount = 4096;
    const int64_t share = kCount / AscendC::GetBlockNum();
    const int64_t first = AscendC::GetBlockIdx() * share;
    __gm__ const float* xs = (__gm__ const float*)x;
    __gm__ const float* ys = (__gm__ const float*)y;
    __gm__ float* zs = (__gm__ float*)z;
    for (int64_t i = first; i < first + share; ++i) zs[i] = 2.0f * xs[i] + ys[i];
}
