// MoeGatingTopK (AIV_ONLY): the K largest router logits per token (ties to the
// lower expert id) and their weights, normalised to sum 1024.
#include "kernel_operator.h"
#include "moe_shapes.h"

extern "C" __global__ __aicore__ void moe_gating_topk(GM_ADDR logits, GM_ADDR topk_w, GM_ADDR topk_id) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    __gm__ const moe_t* lg = (__gm__ const moe_t*)logits;
    __gm__ moe_t* w = (__gm__ moe_t*)topk_w;
    __gm__ moe_t* id = (__gm__ moe_t*)topk_id;
    for (int64_t t = AscendC::GetBlockIdx(); t < MOE_TOKENS; t += AscendC::GetBlockNum()) {
        int picked[MOE_TOPK];
        int64_t score[MOE_TOPK];
        int64_t total = 0;
        for (int k = 0; k < MOE_TOPK; ++k) {
            int best = -1;
            for (int e = 0; e < MOE_EXPERTS; ++e) {
                bool taken = false;
                for (int j = 0; j < k; ++j) taken = taken || picked[j] == e;
                if (!taken && (best < 0 || lg[t * MOE_EXPERTS + e] > lg[t * MOE_EXPERTS + best])) best = e;
            }
            picked[k] = best;
            int64_t v = lg[t * MOE_EXPERTS + best];
            score[k] = (v < 0 ? -v : v) + 1;
            total += score[k];
        }
        for (int k = 0; k < MOE_TOPK; ++k) {
            id[t * MOE_TOPK + k] = picked[k];
            w[t * MOE_TOPK + k] = (moe_t)(score[k] * 1024 / total);
        }
    }
}
