// y = LeakyRelu(x, 0.01) on half, computed in float in a TBuf scratch (cast
// up, LeakyRelu, cast back with CAST_RINT), tiles double-buffered.
// -DSEED_UB_OVERFLOW: the seeded bug, a scratch buffer larger than the UB.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t TOTAL_LENGTH = 16384;
constexpr int32_t BUFFER_NUM = 2;
constexpr int32_t TILE_LENGTH = 512;
#ifdef SEED_UB_OVERFLOW
constexpr uint32_t SCRATCH_BYTES = 192 * 1024;
#else
constexpr uint32_t SCRATCH_BYTES = TILE_LENGTH * sizeof(float);
#endif

class KernelLeakyRelu {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y)
    {
        blockLength = TOTAL_LENGTH / GetBlockNum();
        xGm.SetGlobalBuffer((__gm__ half*)x + blockLength * GetBlockIdx(), blockLength);
        yGm.SetGlobalBuffer((__gm__ half*)y + blockLength * GetBlockIdx(), blockLength);
        pipe.InitBuffer(inQueue, BUFFER_NUM, TILE_LENGTH * sizeof(half));
        pipe.InitBuffer(outQueue, BUFFER_NUM, TILE_LENGTH * sizeof(half));
        pipe.InitBuffer(scratch, SCRATCH_BYTES);
    }
    __aicore__ inline void Process()
    {
        for (int32_t i = 0; i < blockLength / TILE_LENGTH; i++) {
            LocalTensor<half> xLocal = inQueue.AllocTensor<half>();
            DataCopy(xLocal, xGm[i * TILE_LENGTH], TILE_LENGTH);
            inQueue.EnQue(xLocal);
            xLocal = inQueue.DeQue<half>();
            LocalTensor<half> yLocal = outQueue.AllocTensor<half>();
            LocalTensor<float> tmp = scratch.Get<float>(TILE_LENGTH);
            Cast(tmp, xLocal, RoundMode::CAST_NONE, TILE_LENGTH);
            LeakyRelu(tmp, tmp, 0.01f, TILE_LENGTH);
            Cast(yLocal, tmp, RoundMode::CAST_RINT, TILE_LENGTH);
            outQueue.EnQue(yLocal);
            inQueue.FreeTensor(xLocal);
            yLocal = outQueue.DeQue<half>();
            DataCopy(yGm[i * TILE_LENGTH], yLocal, TILE_LENGTH);
            outQueue.FreeTensor(yLocal);
        }
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, BUFFER_NUM> inQueue;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outQueue;
    TBuf<TPosition::VECCALC> scratch;
    GlobalTensor<half> xGm, yGm;
    int32_t blockLength = 0;
};

extern "C" __global__ __aicore__ void leaky_relu(GM_ADDR x, GM_ADDR y)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    KernelLeakyRelu op;
    op.Init(x, y);
    op.Process();
}
