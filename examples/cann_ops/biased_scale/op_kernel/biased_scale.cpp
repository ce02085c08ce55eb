// y = x * scale (+ bias where the call passes one), in the variant's dtype (bfloat16 here), computed in
// float. bias is an optional input, tested for nullptr as CANN's kernels test theirs: a call that
// leaves it out gets a null GM pointer (BUILD: sk_op bind = {"bias": ""}).
#include "kernel_operator.h"
#include "kernel_tiling/kernel_tiling.h"
#include "../elementwise_common/block_split.h"

struct BiasedScaleTilingData {
    int64_t totalNum = 0;     // elements of x, bias and y
    int64_t blockFactor = 0;  // elements per block (the last one takes the rest)
    int64_t ubFactor = 0;     // elements per pipeline step
    float scale = 1.0f;
    float reserved = 0.0f;
};

namespace NsBiasedScale {
using namespace AscendC;

template <typename T>
class BiasedScale {
public:
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR bias, GM_ADDR y, const BiasedScaleTilingData& t)
    {
        range_ = ElementwiseCommon::SplitBlocks(t.totalNum, t.blockFactor, GetBlockIdx());
        ubFactor_ = t.ubFactor;
        scale_ = t.scale;
        hasBias_ = bias != nullptr;
        xGm_.SetGlobalBuffer((__gm__ T*)x + range_.offset, range_.count);
        if (hasBias_) {
            biasGm_.SetGlobalBuffer((__gm__ T*)bias + range_.offset, range_.count);
        }
        yGm_.SetGlobalBuffer((__gm__ T*)y + range_.offset, range_.count);
        pipe_.InitBuffer(in_, ubFactor_ * sizeof(T));
        pipe_.InitBuffer(f_, ubFactor_ * sizeof(float));
        pipe_.InitBuffer(g_, ubFactor_ * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        LocalTensor<T> in = in_.Get<T>();
        LocalTensor<float> f = f_.Get<float>();
        LocalTensor<float> g = g_.Get<float>();
        for (int64_t done = 0; done < range_.count; done += ubFactor_) {
            const int64_t n = (range_.count - done < ubFactor_) ? range_.count - done : ubFactor_;
            DataCopy(in, xGm_[done], n);
            PipeBarrier<PIPE_ALL>();
            Cast(f, in, RoundMode::CAST_NONE, n);
            Muls(f, f, scale_, n);
            if (hasBias_) {
                PipeBarrier<PIPE_ALL>();
                DataCopy(in, biasGm_[done], n);
                PipeBarrier<PIPE_ALL>();
                Cast(g, in, RoundMode::CAST_NONE, n);
                Add(f, f, g, n);
            }
            Cast(in, f, RoundMode::CAST_RINT, n);
            PipeBarrier<PIPE_ALL>();
            DataCopy(yGm_[done], in, n);
            PipeBarrier<PIPE_ALL>();
        }
    }

private:
    TPipe pipe_;
    TBuf<TPosition::VECCALC> in_, f_, g_;
    GlobalTensor<T> xGm_, biasGm_, yGm_;
    ElementwiseCommon::BlockRange range_{0, 0};
    int64_t ubFactor_ = 0;
    float scale_ = 1.0f;
    bool hasBias_ = false;
};
}  // namespace NsBiasedScale

extern "C" __global__ __aicore__ void biased_scale(GM_ADDR x, GM_ADDR bias, GM_ADDR y, GM_ADDR workspace,
                                                   GM_ADDR tiling)
{
    REGISTER_TILING_DEFAULT(BiasedScaleTilingData);
    GET_TILING_DATA_WITH_STRUCT(BiasedScaleTilingData, tilingData, tiling);
    NsBiasedScale::BiasedScale<DTYPE_X> op;
    op.Init(x, bias, y, tilingData);
    op.Process();
}
