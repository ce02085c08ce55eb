// s[0] = sum of x (half), a block reduction: every block sums its slice in
// float (Cast + ReduceSum), DataCopyPad writes the one float to the
// workspace, SyncAll, and block 0 reads the partials back with DataCopyPad,
// reduces them and writes s[0] with DataCopyPad.
// -DSEED_DOUBLE_DEQUE: the seeded bug, a second DeQue of the same tile.
#include "kernel_operator.h"

using namespace AscendC;

constexpr int32_t TOTAL_LENGTH = 16384;
constexpr int32_t TILE_LENGTH = 1024;
constexpr int32_t MAX_BLOCKS = 64;

class KernelBlockSum {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR s, GM_ADDR workspace)
    {
        blocks = GetBlockNum();
        blockLength = TOTAL_LENGTH / blocks;
        xGm.SetGlobalBuffer((__gm__ half*)x + blockLength * GetBlockIdx(), blockLength);
        sGm.SetGlobalBuffer((__gm__ float*)s, 1);
        partialGm.SetGlobalBuffer((__gm__ float*)workspace, blocks);
        pipe.InitBuffer(inQueue, 2, TILE_LENGTH * sizeof(half));
        pipe.InitBuffer(outQueue, 1, 32);
        pipe.InitBuffer(floatBuf, TILE_LENGTH * sizeof(float));
        pipe.InitBuffer(sumBuf, MAX_BLOCKS * sizeof(float));
        pipe.InitBuffer(workBuf, TILE_LENGTH * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        LocalTensor<float> f = floatBuf.Get<float>();
        LocalTensor<float> sums = sumBuf.Get<float>();
        LocalTensor<float> work = workBuf.Get<float>();
        const int32_t tiles = blockLength / TILE_LENGTH;
        for (int32_t i = 0; i < tiles; i++) {
            LocalTensor<half> xLocal = inQueue.AllocTensor<half>();
            DataCopy(xLocal, xGm[i * TILE_LENGTH], TILE_LENGTH);
            inQueue.EnQue(xLocal);
            xLocal = inQueue.DeQue<half>();
#ifdef SEED_DOUBLE_DEQUE
            xLocal = inQueue.DeQue<half>();
#endif
            Cast(f, xLocal, RoundMode::CAST_NONE, TILE_LENGTH);
            ReduceSum(sums[i * 8], f, work, TILE_LENGTH);  // tile sums 32 bytes apart
            inQueue.FreeTensor(xLocal);
        }
        for (int32_t i = 0; i < tiles; i++) sums.SetValue(i, sums.GetValue(i * 8));
        LocalTensor<float> out = outQueue.AllocTensor<float>();
        ReduceSum(out, sums, work, tiles);
        outQueue.EnQue(out);
        out = outQueue.DeQue<float>();
        DataCopyExtParams one{1, sizeof(float), 0, 0, 0};
        DataCopyPad(partialGm[GetBlockIdx()], out, one);
        outQueue.FreeTensor(out);
        SyncAll();
        if (GetBlockIdx() != 0) return;
        DataCopyExtParams all{1, (uint32_t)(blocks * sizeof(float)), 0, 0, 0};
        DataCopyPad(sums, partialGm, all, DataCopyPadExtParams<float>{true, 0, 0, 0.0f});
        out = outQueue.AllocTensor<float>();
        ReduceSum(out, sums, work, blocks);
        DataCopyPad(sGm, out, one);
        outQueue.FreeTensor(out);
    }

private:
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> inQueue;
    TQue<QuePosition::VECOUT, 1> outQueue;
    TBuf<TPosition::VECCALC> floatBuf, sumBuf, workBuf;
    GlobalTensor<half> xGm;
    GlobalTensor<float> sGm, partialGm;
    int32_t blocks = 0;
    int32_t blockLength = 0;
};

extern "C" __global__ __aicore__ void block_sum(GM_ADDR x, GM_ADDR s, GM_ADDR workspace)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0);
    KernelBlockSum op;
    op.Init(x, s, workspace);
    op.Process();
}
