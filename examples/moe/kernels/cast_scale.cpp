// Cast (AIV_ONLY, not fusable here): rescales the layer output between the two
// layers, y = x / 64 (truncating, as integer division does). Marked fusable =
// False in BUILD to show an op that stays a separate launch in both runs, as GE
// leaves unsupported ops outside SuperKernels.
//
// An Ascend C vector operator: tiles of 64 int32 go round-robin to the blocks,
// double-buffered through TQues; each tile is cast to float, scaled by 1/64
// (exact: a power of two) and cast back with CAST_TRUNC. Values stay far below
// 2^24, where int32 -> float is exact.
#include "kernel_operator.h"
#include "moe_shapes.h"

using namespace AscendC;

namespace {

constexpr int32_t kTile = 64;  // elements per tile: 256 bytes
constexpr int32_t kBufferNum = 2;
constexpr int32_t kTiles = MOE_TOKENS * MOE_HIDDEN / kTile;

class KernelCastScale {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y)
    {
        xGm.SetGlobalBuffer((__gm__ int32_t*)x, MOE_TOKENS * MOE_HIDDEN);
        yGm.SetGlobalBuffer((__gm__ int32_t*)y, MOE_TOKENS * MOE_HIDDEN);
        pipe.InitBuffer(inQueue, kBufferNum, kTile * sizeof(int32_t));
        pipe.InitBuffer(outQueue, kBufferNum, kTile * sizeof(int32_t));
        pipe.InitBuffer(floatBuf, kTile * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (int32_t t = GetBlockIdx(); t < kTiles; t += GetBlockNum()) {
            CopyIn(t);
            Compute();
            CopyOut(t);
        }
    }

private:
    __aicore__ inline void CopyIn(int32_t t)
    {
        LocalTensor<int32_t> xLocal = inQueue.AllocTensor<int32_t>();
        DataCopy(xLocal, xGm[t * kTile], kTile);
        inQueue.EnQue(xLocal);
    }
    __aicore__ inline void Compute()
    {
        LocalTensor<int32_t> xLocal = inQueue.DeQue<int32_t>();
        LocalTensor<int32_t> yLocal = outQueue.AllocTensor<int32_t>();
        LocalTensor<float> f = floatBuf.Get<float>();
        Cast(f, xLocal, RoundMode::CAST_NONE, kTile);
        Muls(f, f, 1.0f / 64, kTile);
        Cast(yLocal, f, RoundMode::CAST_TRUNC, kTile);
        outQueue.EnQue(yLocal);
        inQueue.FreeTensor(xLocal);
    }
    __aicore__ inline void CopyOut(int32_t t)
    {
        LocalTensor<int32_t> yLocal = outQueue.DeQue<int32_t>();
        DataCopy(yGm[t * kTile], yLocal, kTile);
        outQueue.FreeTensor(yLocal);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, kBufferNum> inQueue;
    TQue<QuePosition::VECOUT, kBufferNum> outQueue;
    TBuf<TPosition::VECCALC> floatBuf;
    GlobalTensor<int32_t> xGm, yGm;
};

}  // namespace

extern "C" __global__ __aicore__ void cast_scale(GM_ADDR x, GM_ADDR y) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    KernelCastScale op;
    op.Init(x, y);
    op.Process();
}
