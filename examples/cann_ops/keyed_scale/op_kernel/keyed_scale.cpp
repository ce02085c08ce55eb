// A kernel without template arguments, as most of CANN's operators are written: the host tiling
// picks a TILING_KEY_IS branch per dtype, the ADK builds one binary per key, and GET_TILING_DATA
// reads the struct op_host/ registers. BUILD names the key: combinations = {"": "tiling_key=1"}.
#include "kernel_operator.h"
#include "../elementwise_common/block_split.h"

namespace NsKeyedScale {
using namespace AscendC;

constexpr int32_t BUFFER_NUM = 2;

template <typename T>
class KeyedScale {
public:
    template <typename Tiling>
    __aicore__ inline void Init(GM_ADDR x, GM_ADDR y, const Tiling& t)
    {
        range_ = ElementwiseCommon::SplitBlocks(t.totalNum, t.blockFactor, GetBlockIdx());
        ubFactor_ = t.ubFactor;
        scale_ = t.scale;
        xGm_.SetGlobalBuffer((__gm__ T*)x + range_.offset, range_.count);
        yGm_.SetGlobalBuffer((__gm__ T*)y + range_.offset, range_.count);
        pipe_.InitBuffer(inX_, BUFFER_NUM, ubFactor_ * sizeof(T));
        pipe_.InitBuffer(outY_, BUFFER_NUM, ubFactor_ * sizeof(T));
        pipe_.InitBuffer(f_, ubFactor_ * sizeof(float));
    }
    __aicore__ inline void Process()
    {
        for (int64_t done = 0; done < range_.count; done += ubFactor_) {
            const int64_t n = (range_.count - done < ubFactor_) ? range_.count - done : ubFactor_;
            LocalTensor<T> x = inX_.template AllocTensor<T>();
            DataCopy(x, xGm_[done], n);
            inX_.EnQue(x);
            x = inX_.template DeQue<T>();
            LocalTensor<T> y = outY_.template AllocTensor<T>();
            LocalTensor<float> f = f_.template Get<float>();
            if constexpr (std::is_same_v<T, float>) {
                Abs(f, x, n);
                Muls(y, f, scale_, n);
            } else {
                Cast(f, x, RoundMode::CAST_NONE, n);
                Abs(f, f, n);
                Muls(f, f, scale_, n);
                Cast(y, f, RoundMode::CAST_RINT, n);
            }
            inX_.FreeTensor(x);
            outY_.EnQue(y);
            y = outY_.template DeQue<T>();
            DataCopy(yGm_[done], y, n);
            outY_.FreeTensor(y);
        }
    }

private:
    TPipe pipe_;
    TQue<QuePosition::VECIN, BUFFER_NUM> inX_;
    TQue<QuePosition::VECOUT, BUFFER_NUM> outY_;
    TBuf<TPosition::VECCALC> f_;
    GlobalTensor<T> xGm_, yGm_;
    ElementwiseCommon::BlockRange range_{0, 0};
    int64_t ubFactor_ = 0;
    float scale_ = 1.0f;
};
}  // namespace NsKeyedScale

extern "C" __global__ __aicore__ void keyed_scale(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling)
{
    GET_TILING_DATA(tilingData, tiling);
    if (TILING_KEY_IS(1)) {
        NsKeyedScale::KeyedScale<float> op;
        op.Init(x, y, tilingData);
        op.Process();
    } else if (TILING_KEY_IS(2)) {
        NsKeyedScale::KeyedScale<half> op;
        op.Init(x, y, tilingData);
        op.Process();
    }
}
