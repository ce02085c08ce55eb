// The grouped op's host tiling function: reads the routing counts from device memory.
#include "sk_tiling.h"
#include "grouped.h"

extern "C" int grouped_tiling(SkTilingContext* ctx) {
    const int32_t rows = ctx->Input<int32_t>(1)[0];  // inputs: x, counts
    if (rows < 0 || rows > 1024) return 1;
    GroupedTiling* t = ctx->TilingData<GroupedTiling>();
    const uint32_t blocks = rows == 0 ? 1 : (rows + 127) / 128;
    t->rows = rows;
    t->per_block = 128;
    ctx->SetTilingKey(rows == 1024 ? 2 : 1);
    ctx->SetBlockDim(blocks > ctx->max_block_dim ? ctx->max_block_dim : blocks);
    return 0;
}
