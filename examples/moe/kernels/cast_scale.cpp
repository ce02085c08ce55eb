// Cast (AIV_ONLY, not fusable here): rescales the layer output between the two
// layers. Marked fusable = False in BUILD to show an op that stays a separate
// launch in both runs, as GE leaves unsupported ops outside SuperKernels.
#include "kernel_operator.h"
#include "moe_shapes.h"

extern "C" __global__ __aicore__ void cast_scale(GM_ADDR x, GM_ADDR y) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    __gm__ const moe_t* in = (__gm__ const moe_t*)x;
    __gm__ moe_t* out = (__gm__ moe_t*)y;
    for (int64_t i = AscendC::GetBlockIdx(); i < MOE_TOKENS * MOE_HIDDEN; i += AscendC::GetBlockNum())
        out[i] = in[i] / 64;
}
