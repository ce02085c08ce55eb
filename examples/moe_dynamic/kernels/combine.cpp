// Combine: weights the expert's output (the weights were prefetched into L2 by an SDMA task).
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void combine(GM_ADDR y, GM_ADDR w, GM_ADDR z) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    const int32_t b = AscendC::GetBlockIdx();
    AscendC::GlobalTensor<float> ys, ws, zs;
    ys.SetGlobalBuffer((__gm__ float*)y);
    ws.SetGlobalBuffer((__gm__ float*)w);
    zs.SetGlobalBuffer((__gm__ float*)z);
    for (int32_t i = b * 256; i < (b + 1) * 256; ++i) zs.SetValue(i, ys.GetValue(i) * ws.GetValue(i));
}
