// DequantSwigluQuant (AIV_ONLY): s = relu-gated product of the two halves of
// h (an integer stand-in for swish(gate) · up), requantised to int8 range.
#include "kernel_operator.h"
#include "moe_shapes.h"

extern "C" __global__ __aicore__ void dequant_swiglu_quant(GM_ADDR h, GM_ADDR s) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    __gm__ const moe_t* in = (__gm__ const moe_t*)h;
    __gm__ moe_t* out = (__gm__ moe_t*)s;
    constexpr int64_t rows = MOE_TOKENS * MOE_TOPK;
    for (int64_t r = AscendC::GetBlockIdx(); r < rows; r += AscendC::GetBlockNum()) {
        for (int f = 0; f < MOE_FFN; ++f) {
            moe_t gate = in[r * 2 * MOE_FFN + f];
            moe_t up = in[r * 2 * MOE_FFN + MOE_FFN + f];
            int64_t v = ((int64_t)(gate > 0 ? gate : 0) * up) >> 4;
            out[r * MOE_FFN + f] = (moe_t)(v > 127 ? 127 : v < -127 ? -127 : v);
        }
    }
}
