// scale_add: z = x * t.scale + y (+ the block's count from the workspace), a
// dynamic-shape Ascend C vector operator: its signature ends with
// `workspace, tiling`, and the element count and the scale come from the
// tiling struct at run time.
//
// The workspace carries each block's element count through GM and back (a
// stand-in for a real kernel's scratch data), so a launch API that passes
// the wrong workspace address changes the result.
#include "kernel_operator.h"
#include "scale_add_tiling.h"

namespace {

constexpr int32_t kTile = 64;  // elements per pipeline step (256 bytes of float)
constexpr int32_t kBufferNum = 2;

class KernelScaleAdd {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, const ScaleAddTiling& t)
    {
        const int64_t blocks = AscendC::GetBlockNum();
        me = AscendC::GetBlockIdx();
        per = t.n / blocks;
        scale = t.scale;
        xGm.SetGlobalBuffer((__gm__ float*)x + me * per, per);
        yGm.SetGlobalBuffer((__gm__ float*)y + me * per, per);
        zGm.SetGlobalBuffer((__gm__ float*)z + me * per, per);
        wsGm.SetGlobalBuffer((__gm__ int32_t*)workspace, blocks);
        pipe.InitBuffer(inX, kBufferNum, kTile * sizeof(float));
        pipe.InitBuffer(inY, kBufferNum, kTile * sizeof(float));
        pipe.InitBuffer(outZ, kBufferNum, kTile * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        wsGm.SetValue(me, (int32_t)me);
        const float offset = (float)wsGm.GetValue(me);
        for (int64_t i = 0; i < per / kTile; ++i) {
            AscendC::LocalTensor<float> xl = inX.AllocTensor<float>();
            AscendC::LocalTensor<float> yl = inY.AllocTensor<float>();
            AscendC::DataCopy(xl, xGm[i * kTile], kTile);
            AscendC::DataCopy(yl, yGm[i * kTile], kTile);
            inX.EnQue(xl);
            inY.EnQue(yl);
            xl = inX.DeQue<float>();
            yl = inY.DeQue<float>();
            AscendC::LocalTensor<float> zl = outZ.AllocTensor<float>();
            AscendC::Muls(zl, xl, scale, kTile);
            AscendC::Add(zl, zl, yl, kTile);
            AscendC::Adds(zl, zl, offset, kTile);
            outZ.EnQue<float>(zl);
            inX.FreeTensor(xl);
            inY.FreeTensor(yl);
            zl = outZ.DeQue<float>();
            AscendC::DataCopy(zGm[i * kTile], zl, kTile);
            outZ.FreeTensor(zl);
        }
    }

private:
    int64_t me = 0;
    int64_t per = 0;
    float scale = 1.0f;
    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, kBufferNum> inX, inY;
    AscendC::TQue<AscendC::QuePosition::VECOUT, kBufferNum> outZ;
    AscendC::GlobalTensor<float> xGm, yGm, zGm;
    AscendC::GlobalTensor<int32_t> wsGm;
};

}  // namespace

// One source, two entries: BUILD compiles it again as scale_add_alone (-DSCALE_ADD_ENTRY=...).
#ifndef SCALE_ADD_ENTRY
#define SCALE_ADD_ENTRY scale_add
#endif

extern "C" __global__ __aicore__ void SCALE_ADD_ENTRY(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace,
                                                GM_ADDR tiling) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    const ScaleAddTiling t = *(__gm__ const ScaleAddTiling*)tiling;
    KernelScaleAdd op;
    op.Init(x, y, z, workspace, t);
    op.Process();
}
