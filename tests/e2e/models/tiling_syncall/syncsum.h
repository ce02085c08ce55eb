#pragma once
#include <stdint.h>

// Written by syncsum_tiling (host, or the AI CPU tiling task), read by the syncsum kernel.
struct SyncSumTiling {
    int32_t rows;       // values to sum: the routed token count
    int32_t per_block;  // values per block
};
