// Shapes of the miniature MoE block. Small enough for the CPU twin, large
// enough that every kernel spreads its rows over several blocks.
#pragma once

#define MOE_TOKENS 32   // T
#define MOE_HIDDEN 64   // H
#define MOE_EXPERTS 8   // E
#define MOE_TOPK 2      // K
#define MOE_FFN 64      // F (gate and up halves of GroupedMatmul 1 are F each)

// Integer arithmetic keeps the fused and separate runs comparable bit for
// bit without relying on floating-point contraction choices of the compiler.
typedef int32_t moe_t;
