// An ordinary kernel (extern "C" entry, no template, no tiling) fused with the CANN-style ops:
// z = x * x on float32, kElemsPerBlock elements per block.
#include "kernel_operator.h"

namespace {
constexpr int32_t kElemsPerBlock = 256;
constexpr int32_t kTile = 64;
}  // namespace

extern "C" __global__ __aicore__ void square(GM_ADDR x, GM_ADDR z)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, 1> in;
    AscendC::TQue<AscendC::QuePosition::VECOUT, 1> out;
    AscendC::GlobalTensor<float> xGm, zGm;
    const int64_t base = AscendC::GetBlockIdx() * kElemsPerBlock;
    xGm.SetGlobalBuffer((__gm__ float*)x + base, kElemsPerBlock);
    zGm.SetGlobalBuffer((__gm__ float*)z + base, kElemsPerBlock);
    pipe.InitBuffer(in, 1, kTile * sizeof(float));
    pipe.InitBuffer(out, 1, kTile * sizeof(float));
    for (int32_t i = 0; i < kElemsPerBlock / kTile; ++i) {
        AscendC::LocalTensor<float> xl = in.AllocTensor<float>();
        AscendC::DataCopy(xl, xGm[i * kTile], kTile);
        in.EnQue(xl);
        xl = in.DeQue<float>();
        AscendC::LocalTensor<float> zl = out.AllocTensor<float>();
        AscendC::Mul(zl, xl, xl, kTile);
        out.EnQue(zl);
        in.FreeTensor(xl);
        zl = out.DeQue<float>();
        AscendC::DataCopy(zGm[i * kTile], zl, kTile);
        out.FreeTensor(zl);
    }
}
