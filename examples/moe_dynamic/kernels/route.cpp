// Routing: counts how many of the tokens go to the expert (x > 0); its output decides the
// grouped op's tiling, so that tiling can only be computed once this op has run.
#include "kernel_operator.h"

constexpr int32_t kTokens = 1024;

extern "C" __global__ __aicore__ void route(GM_ADDR x, GM_ADDR counts) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    if (AscendC::GetBlockIdx() != 0) return;
    AscendC::GlobalTensor<float> xs;
    AscendC::GlobalTensor<int32_t> out;
    xs.SetGlobalBuffer((__gm__ float*)x, kTokens);
    out.SetGlobalBuffer((__gm__ int32_t*)counts, 8);
    int32_t n = 0;
    for (int32_t i = 0; i < kTokens; ++i) n += xs.GetValue(i) > 0.0f ? 1 : 0;
    out.SetValue(0, n);
}
