// ScaledAdd's kernel, one template instance per tiling key. The tensors' type is the binary
// variant's (DTYPE_X: float or half).
#include "scaled_add.h"

template <uint32_t mode, bool useRelu>
__global__ __aicore__ void scaled_add(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace, GM_ADDR tiling)
{
    REGISTER_TILING_DEFAULT(ScaledAddTilingData);
    GET_TILING_DATA_WITH_STRUCT(ScaledAddTilingData, tilingData, tiling);
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    NsScaledAdd::ScaledAdd<DTYPE_X, mode, useRelu> op;
    op.Init(x, y, z, tilingData);
    op.Process();
}
