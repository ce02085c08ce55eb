// ReduceMeanD (MIX_AIV_1_0 with SyncAll): centre every row by the mean of the
// whole tensor. Each block sums its rows into the workspace, all blocks meet
// in SyncAll, then every block reads all partial sums. Run inside a
// SuperKernel with more cores than this kernel's block_dim, the idle cores
// never reach the SyncAll: that is what feed-sync-all=1 is for.
#include "kernel_operator.h"
#include "moe_shapes.h"

extern "C" __global__ __aicore__ void reduce_mean(GM_ADDR x, GM_ADDR y, GM_ADDR workspace) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0);
    __gm__ const moe_t* in = (__gm__ const moe_t*)x;
    __gm__ moe_t* out = (__gm__ moe_t*)y;
    __gm__ int64_t* partial = (__gm__ int64_t*)workspace;
    const int64_t blocks = AscendC::GetBlockNum();
    const int64_t me = AscendC::GetBlockIdx();
    int64_t sum = 0;
    for (int64_t t = me; t < MOE_TOKENS; t += blocks)
        for (int h = 0; h < MOE_HIDDEN; ++h) sum += in[t * MOE_HIDDEN + h];
    partial[me] = sum;
    AscendC::SyncAll();
    int64_t total = 0;
    for (int64_t b = 0; b < blocks; ++b) total += partial[b];
    const moe_t mean = (moe_t)(total / (MOE_TOKENS * MOE_HIDDEN));
    for (int64_t t = me; t < MOE_TOKENS; t += blocks)
        for (int h = 0; h < MOE_HIDDEN; ++h) out[t * MOE_HIDDEN + h] = in[t * MOE_HIDDEN + h] - mean;
}
