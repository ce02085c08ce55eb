// DequantSwigluQuant (AIV_ONLY): s = relu-gated product of the two halves of
// h (an integer stand-in for swish(gate) · up), requantised to int8 range:
// s = clamp((relu(gate) * up) >> 4, -127, 127).
//
// An Ascend C vector operator: each block takes rows round-robin, a row
// (gate and up, 2F int32) comes in through a double-buffered TQue, is cast to
// float, gated (Relu, Mul), scaled by 1/16 and floored back to int32
// (= the arithmetic shift), then clamped with Mins/Maxs. Products beyond
// float's exact range are far outside the clamp, so the result is the
// integer one.
#include "kernel_operator.h"
#include "moe_shapes.h"

using namespace AscendC;

namespace {

constexpr int32_t kBufferNum = 2;
constexpr int32_t kRows = MOE_TOKENS * MOE_TOPK;

class KernelSwiglu {
public:
    __aicore__ inline void Init(GM_ADDR h, GM_ADDR s)
    {
        hGm.SetGlobalBuffer((__gm__ int32_t*)h, kRows * 2 * MOE_FFN);
        sGm.SetGlobalBuffer((__gm__ int32_t*)s, kRows * MOE_FFN);
        pipe.InitBuffer(inQueue, kBufferNum, 2 * MOE_FFN * sizeof(int32_t));
        pipe.InitBuffer(outQueue, kBufferNum, MOE_FFN * sizeof(int32_t));
        pipe.InitBuffer(floatBuf, 2 * MOE_FFN * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (int32_t r = GetBlockIdx(); r < kRows; r += GetBlockNum()) {
            CopyIn(r);
            Compute();
            CopyOut(r);
        }
    }

private:
    __aicore__ inline void CopyIn(int32_t r)
    {
        LocalTensor<int32_t> row = inQueue.AllocTensor<int32_t>();
        DataCopy(row, hGm[r * 2 * MOE_FFN], 2 * MOE_FFN);
        inQueue.EnQue(row);
    }
    __aicore__ inline void Compute()
    {
        LocalTensor<int32_t> row = inQueue.DeQue<int32_t>();
        LocalTensor<int32_t> out = outQueue.AllocTensor<int32_t>();
        LocalTensor<float> f = floatBuf.Get<float>();
        LocalTensor<float> gate = f;
        LocalTensor<float> up = f[MOE_FFN];
        Cast(f, row, RoundMode::CAST_NONE, 2 * MOE_FFN);
        Relu(gate, gate, MOE_FFN);
        Mul(gate, gate, up, MOE_FFN);
        Muls(gate, gate, 1.0f / 16, MOE_FFN);
        Cast(out, gate, RoundMode::CAST_FLOOR, MOE_FFN);
        Mins(out, out, 127, MOE_FFN);
        Maxs(out, out, -127, MOE_FFN);
        outQueue.EnQue(out);
        inQueue.FreeTensor(row);
    }
    __aicore__ inline void CopyOut(int32_t r)
    {
        LocalTensor<int32_t> out = outQueue.DeQue<int32_t>();
        DataCopy(sGm[r * MOE_FFN], out, MOE_FFN);
        outQueue.FreeTensor(out);
    }

    TPipe pipe;
    TQue<QuePosition::VECIN, kBufferNum> inQueue;
    TQue<QuePosition::VECOUT, kBufferNum> outQueue;
    TBuf<TPosition::VECCALC> floatBuf;
    GlobalTensor<int32_t> hGm, sGm;
};

}  // namespace

extern "C" __global__ __aicore__ void dequant_swiglu_quant(GM_ADDR h, GM_ADDR s) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    KernelSwiglu op;
    op.Init(h, s);
    op.Process();
}
