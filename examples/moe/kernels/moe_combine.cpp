// MoeFinalizeRouting (AIV_ONLY): out[t] = x[t] + Σ_k w[t,k] · y[t,k] / 1024.
#include "kernel_operator.h"
#include "moe_shapes.h"

extern "C" __global__ __aicore__ void moe_combine(GM_ADDR x, GM_ADDR y, GM_ADDR topk_w, GM_ADDR out) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    __gm__ const moe_t* xs = (__gm__ const moe_t*)x;
    __gm__ const moe_t* ys = (__gm__ const moe_t*)y;
    __gm__ const moe_t* w = (__gm__ const moe_t*)topk_w;
    __gm__ moe_t* o = (__gm__ moe_t*)out;
    for (int64_t t = AscendC::GetBlockIdx(); t < MOE_TOKENS; t += AscendC::GetBlockNum()) {
        for (int h = 0; h < MOE_HIDDEN; ++h) {
            int64_t acc = 0;
            for (int k = 0; k < MOE_TOPK; ++k) acc += (int64_t)w[t * MOE_TOPK + k] * ys[(t * MOE_TOPK + k) * MOE_HIDDEN + h];
            o[t * MOE_HIDDEN + h] = xs[t * MOE_HIDDEN + h] + (moe_t)(acc / 1024);
        }
    }
}
