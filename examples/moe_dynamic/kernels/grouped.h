#pragma once
#include <stdint.h>

// Written by grouped_tiling (host, or the AI CPU tiling task), read by the grouped kernel.
struct GroupedTiling {
    int32_t rows;       // tokens routed to the expert
    int32_t per_block;  // tokens per block
};
