// The tiling struct of scale_add: written by the host, read by the kernel
// through its `tiling` parameter (its size is `tiling_size` in BUILD).
#pragma once
#include <stdint.h>

struct ScaleAddTiling {
    int32_t n;      // elements of x, y and z; a multiple of 64 * block_dim
    float scale;
};
