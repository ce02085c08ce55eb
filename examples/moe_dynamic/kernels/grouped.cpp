// A tiling-sink kernel: its tiling (rows, tokens per block, tiling key, block count) depends on the
// routing op's output in device memory. Key 1 scales the routed rows, key 2 shifts them.
#include "kernel_operator.h"
#include "grouped.h"

extern "C" __global__ __aicore__ void grouped(GM_ADDR x, GM_ADDR counts, GM_ADDR y, GM_ADDR workspace,
                                              GM_ADDR tiling) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    const GroupedTiling t = *(__gm__ const GroupedTiling*)tiling;
    const int32_t b = AscendC::GetBlockIdx();
    // Inside a SuperKernel every launched block calls the kernel; GetBlockNum() is the tiling's count.
    if (b >= AscendC::GetBlockNum()) return;
    AscendC::GlobalTensor<float> xs, ys;
    xs.SetGlobalBuffer((__gm__ float*)x);
    ys.SetGlobalBuffer((__gm__ float*)y);
    const int32_t begin = b * t.per_block;
    const int32_t end = begin + t.per_block < t.rows ? begin + t.per_block : t.rows;
    for (int32_t i = begin; i < end; ++i) {
        if (TILING_KEY_IS(1)) {
            ys.SetValue(i, xs.GetValue(i) * 2.0f);
        } else if (TILING_KEY_IS(2)) {
            ys.SetValue(i, xs.GetValue(i) + 1.0f);
        }
    }
}
