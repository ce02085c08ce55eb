// AIV_ONLY: records which code copy ran on each block. `marker` is private to
// this object, so every split copy of the sub-kernel has its own: its address
// identifies the copy. ids[b] = get_coreid() of the worker running block b.
#include "kernel_operator.h"

static int32_t marker;

extern "C" __global__ __aicore__ void whoami(GM_ADDR addrs, GM_ADDR ids) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    const int64_t b = AscendC::GetBlockIdx();
    ((__gm__ int64_t*)addrs)[b] = (int64_t)(uintptr_t)&marker;
    ((__gm__ int64_t*)ids)[b] = (int64_t)get_coreid();
}
