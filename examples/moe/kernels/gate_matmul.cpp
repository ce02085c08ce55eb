// MatMul (AIC_ONLY): router logits[T,E] = x[T,H] · wg[H,E].
#include "kernel_operator.h"
#include "moe_shapes.h"

extern "C" __global__ __aicore__ void gate_matmul(GM_ADDR x, GM_ADDR wg, GM_ADDR logits) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY);
    __gm__ const moe_t* xs = (__gm__ const moe_t*)x;
    __gm__ const moe_t* w = (__gm__ const moe_t*)wg;
    __gm__ moe_t* out = (__gm__ moe_t*)logits;
    for (int64_t t = AscendC::GetBlockIdx(); t < MOE_TOKENS; t += AscendC::GetBlockNum()) {
        for (int e = 0; e < MOE_EXPERTS; ++e) {
            moe_t acc = 0;
            for (int h = 0; h < MOE_HIDDEN; ++h) acc += xs[t * MOE_HIDDEN + h] * w[h * MOE_EXPERTS + e];
            out[t * MOE_EXPERTS + e] = acc;
        }
    }
}
