// GroupedMatmul (MIX_AIC_1_2): for every (token, k) the token's row times the
// chosen expert's weight. The cube core computes the product into the
// workspace, then hands the rows to its two vector cores through a
// cube-to-vector flag (mode 2); they requantise (>> shift) and, when built
// with MOE_WITH_BIAS, add the expert's bias.
#include "kernel_operator.h"
#include "moe_shapes.h"

#ifndef GMM_IN
#define GMM_IN MOE_HIDDEN
#endif
#ifndef GMM_OUT
#define GMM_OUT (2 * MOE_FFN)
#endif
#ifndef GMM_SHIFT
#define GMM_SHIFT 6
#endif
#ifndef GMM_ENTRY
#define GMM_ENTRY grouped_matmul
#endif

// Flag the cube sets for its vector cores once its rows are in the workspace.
constexpr int kRowsReady = 3;

extern "C" __global__ __aicore__ void GMM_ENTRY(GM_ADDR x, GM_ADDR weight,
#ifdef MOE_WITH_BIAS
                                               GM_ADDR bias,
#endif
                                               GM_ADDR topk_id, GM_ADDR y, GM_ADDR workspace) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
    __gm__ const moe_t* xs = (__gm__ const moe_t*)x;
    __gm__ const moe_t* w = (__gm__ const moe_t*)weight;
    __gm__ const moe_t* ids = (__gm__ const moe_t*)topk_id;
    __gm__ moe_t* ws = (__gm__ moe_t*)workspace;
    __gm__ moe_t* out = (__gm__ moe_t*)y;
    constexpr int64_t rows = MOE_TOKENS * MOE_TOPK;
    if ASCEND_IS_AIC {
        const int64_t core = AscendC::GetBlockIdx();
        for (int64_t r = core; r < rows; r += AscendC::GetBlockNum()) {
#ifdef GMM_PER_ROW_INPUT
            const int64_t t = r;  // the down projection reads the (token, k) row itself
#else
            const int64_t t = r / MOE_TOPK;
#endif
            const int64_t e = ids[r];
            for (int o = 0; o < GMM_OUT; ++o) {
                moe_t acc = 0;
                for (int i = 0; i < GMM_IN; ++i) acc += xs[t * GMM_IN + i] * w[(e * GMM_IN + i) * GMM_OUT + o];
                ws[r * GMM_OUT + o] = acc;
            }
        }
        ffts_cross_core_sync(PIPE_FIX, AscendC::GetffstMsg(0x2, kRowsReady));
    }
    if ASCEND_IS_AIV {
        wait_flag_dev(kRowsReady);
        const int64_t core = AscendC::GetBlockIdx() / 2;
        const int64_t half = AscendC::GetSubBlockIdx();
        for (int64_t r = core; r < rows; r += AscendC::GetBlockNum()) {
            for (int o = half; o < GMM_OUT; o += 2) {
                moe_t v = ws[r * GMM_OUT + o] >> GMM_SHIFT;
#ifdef MOE_WITH_BIAS
                v += ((__gm__ const moe_t*)bias)[ids[r] * GMM_OUT + o];
#endif
                out[r * GMM_OUT + o] = v;
            }
        }
    }
}
