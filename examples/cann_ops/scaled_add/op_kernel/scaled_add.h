// ScaledAdd: z = relu?(x * alpha (+|-) y), computed in float whatever the tensors' type.
#ifndef SCALED_ADD_H
#define SCALED_ADD_H

#include "kernel_operator.h"
#include "kernel_tiling/kernel_tiling.h"
#include "../elementwise_common/block_split.h"
#include "scaled_add_tiling_data.h"
#include "scaled_add_tiling_key.h"

namespace NsScaledAdd {
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

template <typename T, uint32_t mode, bool useRelu>
class ScaledAdd {
public:
    __aicore__ inline ScaledAdd() {}
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, GM_ADDR z, const ScaledAddTilingData& t)
    {
        range_ = ElementwiseCommon::SplitBlocks(t.totalNum, t.blockFactor, GetBlockIdx());
        ubFactor_ = t.ubFactor;
        alpha_ = t.alpha;
        xGm_.SetGlobalBuffer((__gm__ T*)x + range_.offset, range_.count);
        yGm_.SetGlobalBuffer((__gm__ T*)y + range_.offset, range_.count);
        zGm_.SetGlobalBuffer((__gm__ T*)z + range_.offset, range_.count);
        pipe_.InitBuffer(inX_, BUFFER_NUM, ubFactor_ * sizeof(T));
        pipe_.InitBuffer(inY_, BUFFER_NUM, ubFactor_ * sizeof(T));
        pipe_.InitBuffer(outZ_, BUFFER_NUM, ubFactor_ * sizeof(T));
        pipe_.InitBuffer(xf_, ubFactor_ * sizeof(float));
        pipe_.InitBuffer(yf_, ubFactor_ * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (int64_t done = 0; done < range_.count; done += ubFactor_) {
            const int64_t n = (range_.count - done < ubFactor_) ? range_.count - done : ubFactor_;
            CopyIn(done, n);
            Compute(n);
            CopyOut(done, n);
        }
    }

private:
    __aicore__ inline void CopyIn(int64_t at, int64_t n)
    {
        LocalTensor<T> x = inX_.template AllocTensor<T>();
        LocalTensor<T> y = inY_.template AllocTensor<T>();
        DataCopy(x, xGm_[at], n);
        DataCopy(y, yGm_[at], n);
        inX_.EnQue(x);
        inY_.EnQue(y);
    }
    __aicore__ inline void Compute(int64_t n)
    {
        LocalTensor<T> x = inX_.template DeQue<T>();
        LocalTensor<T> y = inY_.template DeQue<T>();
        LocalTensor<T> z = outZ_.template AllocTensor<T>();
        LocalTensor<float> xf = xf_.template Get<float>();
        LocalTensor<float> yf = yf_.template Get<float>();
        if constexpr (std::is_same_v<T, float>) {
            Muls(xf, x, alpha_, n);
            DataCopy(yf, y, n);
        } else {
            Cast(xf, x, RoundMode::CAST_NONE, n);
            Cast(yf, y, RoundMode::CAST_NONE, n);
            Muls(xf, xf, alpha_, n);
        }
        if constexpr (mode == SCALED_ADD_MODE_ADD) {
            Add(xf, xf, yf, n);
        } else {
            Sub(xf, xf, yf, n);
        }
        if constexpr (useRelu) {
            Relu(xf, xf, n);
        }
        if constexpr (std::is_same_v<T, float>) {
            DataCopy(z, xf, n);
        } else {
            Cast(z, xf, RoundMode::CAST_RINT, n);
        }
        outZ_.EnQue(z);
        inX_.FreeTensor(x);
        inY_.FreeTensor(y);
    }
    __aicore__ inline void CopyOut(int64_t at, int64_t n)
    {
        LocalTensor<T> z = outZ_.template DeQue<T>();
        DataCopy(zGm_[at], z, n);
        outZ_.FreeTensor(z);
    }

    TPipe pipe_;
    TQue<QuePosition::VECIN, BUFFER_NUM> inX_, inY_;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outZ_;
    TBuf<TPosition::VECCALC> xf_, yf_;
    GlobalTensor<T> xGm_, yGm_, zGm_;
    ElementwiseCommon::BlockRange range_{0, 0};
    int64_t ubFactor_ = 0;
    float alpha_ = 1.0f;
};

}  // namespace NsScaledAdd

#endif  // SCALED_ADD_H
