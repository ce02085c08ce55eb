// The body shared by the quickstart's four kernels: z = rotate(x) + y + N,
// written as an ordinary Ascend C vector operator: a class with Init/Process,
// a TPipe, TQue double buffering and CopyIn -> Compute -> CopyOut per tile.
//
// Each block owns one tile of z but reads x one tile further on, so every op
// depends on another block's output of the previous op: fusing the chain is
// only correct with a barrier between ops, which is what the fused run and
// the race check exercise.
#pragma once
#include "kernel_operator.h"

constexpr int64_t kAddTile = 256;        // elements of z per block
constexpr int32_t kAddTileLength = 64;   // elements per pipeline step (256 bytes of float)
constexpr int32_t kAddBufferNum = 2;     // double buffering
constexpr int32_t kAddLoops = kAddTile / kAddTileLength;

template <int N>
class KernelAddRotated {
public:
    __aicore__ inline KernelAddRotated() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z)
    {
        const int64_t blocks = AscendC::GetBlockNum();
        const int64_t me = AscendC::GetBlockIdx();
        // x is read one tile further on: the next block's tile, wrapping around.
        xGm.SetGlobalBuffer((__gm__ float*)x + ((me + 1) % blocks) * kAddTile, kAddTile);
        yGm.SetGlobalBuffer((__gm__ float*)y + me * kAddTile, kAddTile);
        zGm.SetGlobalBuffer((__gm__ float*)z + me * kAddTile, kAddTile);
        pipe.InitBuffer(inQueueX, kAddBufferNum, kAddTileLength * sizeof(float));
        pipe.InitBuffer(inQueueY, kAddBufferNum, kAddTileLength * sizeof(float));
        pipe.InitBuffer(outQueueZ, kAddBufferNum, kAddTileLength * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (int32_t i = 0; i < kAddLoops; i++) {
            CopyIn(i);
            Compute(i);
            CopyOut(i);
        }
    }

private:
    __aicore__ inline void CopyIn(int32_t progress)
    {
        AscendC::LocalTensor<float> xLocal = inQueueX.AllocTensor<float>();
        AscendC::LocalTensor<float> yLocal = inQueueY.AllocTensor<float>();
        AscendC::DataCopy(xLocal, xGm[progress * kAddTileLength], kAddTileLength);
        AscendC::DataCopy(yLocal, yGm[progress * kAddTileLength], kAddTileLength);
        inQueueX.EnQue(xLocal);
        inQueueY.EnQue(yLocal);
    }
    __aicore__ inline void Compute(int32_t progress)
    {
        (void)progress;
        AscendC::LocalTensor<float> xLocal = inQueueX.DeQue<float>();
        AscendC::LocalTensor<float> yLocal = inQueueY.DeQue<float>();
        AscendC::LocalTensor<float> zLocal = outQueueZ.AllocTensor<float>();
        AscendC::Add(zLocal, xLocal, yLocal, kAddTileLength);
        AscendC::Adds(zLocal, zLocal, (float)N, kAddTileLength);
        outQueueZ.EnQue<float>(zLocal);
        inQueueX.FreeTensor(xLocal);
        inQueueY.FreeTensor(yLocal);
    }
    __aicore__ inline void CopyOut(int32_t progress)
    {
        AscendC::LocalTensor<float> zLocal = outQueueZ.DeQue<float>();
        AscendC::DataCopy(zGm[progress * kAddTileLength], zLocal, kAddTileLength);
        outQueueZ.FreeTensor(zLocal);
    }

    AscendC::TPipe pipe;
    AscendC::TQue<AscendC::QuePosition::VECIN, kAddBufferNum> inQueueX, inQueueY;
    AscendC::TQue<AscendC::QuePosition::VECOUT, kAddBufferNum> outQueueZ;
    AscendC::GlobalTensor<float> xGm, yGm, zGm;
};

template <int N>
__aicore__ inline void AddTileRotated(GM_ADDR x, GM_ADDR y, GM_ADDR z)
{
    KernelAddRotated<N> op;
    op.Init(x, y, z);
    op.Process();
}
