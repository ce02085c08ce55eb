// Permute: gathers the tokens for the experts (here: copies them in order). It runs while the AI CPU
// computes the grouped op's tiling from the routing counts.
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void permute(GM_ADDR x, GM_ADDR xp) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    const int32_t b = AscendC::GetBlockIdx();
    AscendC::GlobalTensor<float> xs, ps;
    xs.SetGlobalBuffer((__gm__ float*)x);
    ps.SetGlobalBuffer((__gm__ float*)xp);
    for (int32_t i = b * 256; i < (b + 1) * 256; ++i) ps.SetValue(i, xs.GetValue(i));
}
