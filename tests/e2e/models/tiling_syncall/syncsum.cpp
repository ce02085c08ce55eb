// A tiling-sink kernel that calls SyncAll: each of the tiling's blocks sums its share of the
// first `rows` values into partial[b]; after the all-core barrier every block adds the total of
// all partials to twice its values: y[i] = 2 * v[i] + sum(v[0:rows]) for i < rows.
// Inside a SuperKernel every launched vector core calls the kernel (GetBlockNum() is the
// tiling's count), so the cores past the count skip the work but still take part in SyncAll,
// as the launch's cores do in a separate launch.
#include "kernel_operator.h"
#include "syncsum.h"

extern "C" __global__ __aicore__ void syncsum(GM_ADDR v, GM_ADDR counts, GM_ADDR partial, GM_ADDR y,
                                              GM_ADDR workspace, GM_ADDR tiling) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    const SyncSumTiling t = *(__gm__ const SyncSumTiling*)tiling;
    __gm__ const int32_t* vs = (__gm__ const int32_t*)v;
    __gm__ int32_t* ps = (__gm__ int32_t*)partial;
    __gm__ int32_t* ys = (__gm__ int32_t*)y;
    const int32_t b = AscendC::GetBlockIdx();
    const int32_t n = AscendC::GetBlockNum();
    const int32_t begin = b * t.per_block;
    const int32_t end = begin + t.per_block < t.rows ? begin + t.per_block : t.rows;
    if (b < n) {
        int32_t sum = 0;
        for (int32_t i = begin; i < end; ++i) sum += vs[i];
        ps[b] = sum;
    }
    AscendC::SyncAll<true>();
    if (b >= n) return;
    int32_t total = 0;
    for (int32_t k = 0; k < n; ++k) total += ps[k];
    for (int32_t i = begin; i < end; ++i) {
        if (TILING_KEY_IS(1)) ys[i] = 2 * vs[i] + total;
    }
}
