// y = 2 * x between the early-start calls. In SK mode it writes back with a
// dcci when the GetValue/SetValue dcci macro is on, as Ascend C's GlobalTensor
// does, so the dcci-* options show in its object.
#include "kernel_operator.h"

extern "C" __global__ __aicore__ void scale(GM_ADDR x, GM_ADDR y) {
    AscendC::WaitPreTaskEnd();
    __gm__ const int32_t* in = (__gm__ const int32_t*)x;
    __gm__ int32_t* out = (__gm__ int32_t*)y;
    const int64_t b = AscendC::GetBlockIdx();
    for (int64_t i = b * 16; i < (b + 1) * 16; ++i) out[i] = 2 * in[i];
#if defined(__ASCENDC_SUPER_KERNEL_ENABLE_GM_GET_SET_VALUE_DCCI__)
    dcci(out + b * 16, cache_line_t::SINGLE_CACHE_LINE, dcci_dst_t::CACHELINE_OUT);
#endif
    AscendC::SetNextTaskStart();
}
