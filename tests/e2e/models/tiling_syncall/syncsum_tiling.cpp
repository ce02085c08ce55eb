// syncsum's host tiling function: its row count is the routing op's output in device memory.
#include "sk_tiling.h"
#include "syncsum.h"

extern "C" int syncsum_tiling(SkTilingContext* ctx) {
    const int32_t rows = ctx->Input<int32_t>(1)[0];  // inputs: v, counts
    if (rows < 0 || rows > 1024) return 1;
    SyncSumTiling* t = ctx->TilingData<SyncSumTiling>();
    const uint32_t blocks = rows == 0 ? 1 : (rows + 127) / 128;
    t->rows = rows;
    t->per_block = 128;
    ctx->SetTilingKey(1);
    ctx->SetBlockDim(blocks > ctx->max_block_dim ? ctx->max_block_dim : blocks);
    return 0;
}
