// ReduceMeanD (MIX_AIV_1_0 with SyncAll): centre every row by the mean of the
// whole tensor. Each block sums its rows into the workspace, all blocks meet
// in SyncAll, then every block reads all partial sums. Run inside a
// SuperKernel with more cores than this kernel's block_dim, the idle cores
// never reach the SyncAll: that is what feed-sync-all=1 is for.
//
// An Ascend C vector operator in two passes over the block's rows, both
// double-buffered through TQues: pass 1 accumulates the rows element-wise
// (int32 Add, exact) and sums the accumulator into the block's int64 partial
// in GM; pass 2 subtracts the mean (Adds) and writes the rows out.
#include "kernel_operator.h"
#include "moe_shapes.h"

using namespace AscendC;

namespace {

constexpr int32_t kBufferNum = 2;

class KernelReduceMean {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR workspace)
    {
        blocks = GetBlockNum();
        me = GetBlockIdx();
        xGm.SetGlobalBuffer((__gm__ int32_t*)x, MOE_TOKENS * MOE_HIDDEN);
        yGm.SetGlobalBuffer((__gm__ int32_t*)y, MOE_TOKENS * MOE_HIDDEN);
        partialGm.SetGlobalBuffer((__gm__ int64_t*)workspace, blocks);
        pipe.InitBuffer(inQueue, kBufferNum, MOE_HIDDEN * sizeof(int32_t));
        pipe.InitBuffer(outQueue, kBufferNum, MOE_HIDDEN * sizeof(int32_t));
        pipe.InitBuffer(accBuf, MOE_HIDDEN * sizeof(int32_t));
    }
    __aicore__ inline void Process()
    {
        LocalTensor<int32_t> acc = accBuf.Get<int32_t>();
        Duplicate(acc, 0, MOE_HIDDEN);
        for (int32_t t = me; t < MOE_TOKENS; t += blocks) {
            CopyIn(t);
            LocalTensor<int32_t> row = inQueue.DeQue<int32_t>();
            Add(acc, acc, row, MOE_HIDDEN);
            inQueue.FreeTensor(row);
        }
        int64_t sum = 0;
        for (int32_t h = 0; h < MOE_HIDDEN; ++h) sum += acc.GetValue(h);
        partialGm.SetValue(me, sum);
        SyncAll();
        int64_t total = 0;
        for (int32_t b = 0; b < blocks; ++b) total += partialGm.GetValue(b);
        const int32_t mean = (int32_t)(total / (MOE_TOKENS * MOE_HIDDEN));
        for (int32_t t = me; t < MOE_TOKENS; t += blocks) {
            CopyIn(t);
            Centre(mean);
            CopyOut(t);
        }
    }

private:
    __aicore__ inline void CopyIn(int32_t t)
    {
        LocalTensor<int32_t> row = inQueue.AllocTensor<int32_t>();
        DataCopy(row, xGm[t * MOE_HIDDEN], MOE_HIDDEN);
        inQueue.EnQue(row);
    }
    __aicore__ inline void Centre(int32_t mean)
    {
        LocalTensor<int32_t> row = inQueue.DeQue<int32_t>();
        LocalTensor<int32_t> out = outQueue.AllocTensor<int32_t>();
        Adds(out, row, -mean, MOE_HIDDEN);
        outQueue.EnQue(out);
        inQueue.FreeTensor(row);
    }
    __aicore__ inline void CopyOut(int32_t t)
    {
        LocalTensor<int32_t> out = outQueue.DeQue<int32_t>();
        DataCopy(yGm[t * MOE_HIDDEN], out, MOE_HIDDEN);
        outQueue.FreeTensor(out);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, kBufferNum> inQueue;
    TQue<QuePosition::VECOUT, kBufferNum> outQueue;
    TBuf<TPosition::VECCALC> accBuf;
    GlobalTensor<int32_t> xGm, yGm;
    GlobalTensor<int64_t> partialGm;
    int32_t blocks = 0;
    int32_t me = 0;
};

}  // namespace

extern "C" __global__ __aicore__ void reduce_mean(GM_ADDR x, GM_ADDR y, GM_ADDR workspace) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0);
    KernelReduceMean op;
    op.Init(x, y, workspace);
    op.Process();
}
