// MoeGatingTopK (AIV_ONLY): the K largest router logits per token (ties to the
// lower expert id) and their weights, normalised to sum 1024.
//
// An Ascend C vector operator: a token's E logits (32 bytes) come in through a
// double-buffered TQue and are cast to float (exact: logits stay below 2^24);
// ReduceMax with calIndex finds the best expert (the lowest index among
// equals), which is then masked with -inf for the next round. The K ids and
// weights of a token are 8 bytes each, so they go out with DataCopyPad.
#include "kernel_operator.h"
#include "moe_shapes.h"

using namespace AscendC;

namespace {

constexpr int32_t kBufferNum = 2;

class KernelGatingTopK {
public:
    __aicore__ inline void Init(GM_ADDR logits, GM_ADDR topk_w, GM_ADDR topk_id)
    {
        logitsGm.SetGlobalBuffer((__gm__ int32_t*)logits, MOE_TOKENS * MOE_EXPERTS);
        weightGm.SetGlobalBuffer((__gm__ int32_t*)topk_w, MOE_TOKENS * MOE_TOPK);
        idGm.SetGlobalBuffer((__gm__ int32_t*)topk_id, MOE_TOKENS * MOE_TOPK);
        pipe.InitBuffer(inQueue, kBufferNum, MOE_EXPERTS * sizeof(int32_t));
        pipe.InitBuffer(outQueue, kBufferNum, 2 * 8 * sizeof(int32_t));  // ids at 0, weights at 8
        pipe.InitBuffer(scoreBuf, MOE_EXPERTS * sizeof(float));
        pipe.InitBuffer(maxBuf, 8 * sizeof(float));
        pipe.InitBuffer(workBuf, 8 * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (int32_t t = GetBlockIdx(); t < MOE_TOKENS; t += GetBlockNum()) {
            CopyIn(t);
            Compute();
            CopyOut(t);
        }
    }

private:
    __aicore__ inline void CopyIn(int32_t t)
    {
        LocalTensor<int32_t> lg = inQueue.AllocTensor<int32_t>();
        DataCopy(lg, logitsGm[t * MOE_EXPERTS], MOE_EXPERTS);
        inQueue.EnQue(lg);
    }
    __aicore__ inline void Compute()
    {
        LocalTensor<int32_t> lg = inQueue.DeQue<int32_t>();
        LocalTensor<int32_t> out = outQueue.AllocTensor<int32_t>();
        LocalTensor<float> score = scoreBuf.Get<float>();
        LocalTensor<float> best = maxBuf.Get<float>();
        LocalTensor<float> work = workBuf.Get<float>();
        Cast(score, lg, RoundMode::CAST_NONE, MOE_EXPERTS);
        int64_t weight[MOE_TOPK];
        int64_t total = 0;
        for (int32_t k = 0; k < MOE_TOPK; ++k) {
            ReduceMax(best, score, work, MOE_EXPERTS, true);
            const int32_t e = best.ReinterpretCast<int32_t>().GetValue(1);  // the index, as stored
            const int64_t v = lg.GetValue(e);
            weight[k] = (v < 0 ? -v : v) + 1;
            total += weight[k];
            out.SetValue(k, e);
            score.SetValue(e, -__builtin_inff());  // taken
        }
        for (int32_t k = 0; k < MOE_TOPK; ++k) out.SetValue(8 + k, (int32_t)(weight[k] * 1024 / total));
        outQueue.EnQue(out);
        inQueue.FreeTensor(lg);
    }
    __aicore__ inline void CopyOut(int32_t t)
    {
        LocalTensor<int32_t> out = outQueue.DeQue<int32_t>();
        DataCopyExtParams params{1, MOE_TOPK * sizeof(int32_t), 0, 0, 0};
        DataCopyPad(idGm[t * MOE_TOPK], out, params);
        DataCopyPad(weightGm[t * MOE_TOPK], out[8], params);
        outQueue.FreeTensor(out);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, kBufferNum> inQueue;
    TQue<QuePosition::VECOUT, kBufferNum> outQueue;
    TBuf<TPosition::VECCALC> scoreBuf, maxBuf, workBuf;
    GlobalTensor<int32_t> logitsGm, weightGm, idGm;
};

}  // namespace

extern "C" __global__ __aicore__ void moe_gating_topk(GM_ADDR logits, GM_ADDR topk_w, GM_ADDR topk_id) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    KernelGatingTopK op;
    op.Init(logits, topk_w, topk_id);
    op.Process();
}
