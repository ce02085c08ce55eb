// The body shared by the quickstart's four kernels: z = rotate(x) + y + N.
//
// Each block owns one tile of z but reads x one tile further on, so every op
// depends on another block's output of the previous op: fusing the chain is
// only correct with a barrier between ops, which is what the fused run and
// the race check exercise.
#pragma once
#include "kernel_operator.h"

constexpr int64_t kAddTile = 256;

template <int N>
__aicore__ inline void AddTileRotated(GM_ADDR x, GM_ADDR y, GM_ADDR z) {
    const int64_t blocks = AscendC::GetBlockNum();
    const int64_t total = blocks * kAddTile;
    __gm__ const float* xs = (__gm__ const float*)x;
    __gm__ const float* ys = (__gm__ const float*)y;
    __gm__ float* zs = (__gm__ float*)z;
    const int64_t begin = AscendC::GetBlockIdx() * kAddTile;
    for (int64_t i = begin; i < begin + kAddTile; ++i) {
        zs[i] = xs[(i + kAddTile) % total] + ys[i] + (float)N;
    }
}
