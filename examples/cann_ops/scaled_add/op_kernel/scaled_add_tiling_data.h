// The tiling buffer of ScaledAdd, as its host tiling function fills it.
#ifndef SCALED_ADD_TILING_DATA_H
#define SCALED_ADD_TILING_DATA_H

#include <cstdint>

struct ScaledAddTilingData {
    int64_t totalNum = 0;     // elements of x, y and z
    int64_t blockFactor = 0;  // elements per block (the last one takes the rest)
    int64_t ubFactor = 0;     // elements per pipeline step
    float alpha = 1.0f;       // z = x * alpha (+|-) y
    float reserved = 0.0f;
};

#endif  // SCALED_ADD_TILING_DATA_H
