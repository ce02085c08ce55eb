// add_400: z = x (rotated by one tile) + y + 400, on every vector core (AIV_ONLY).
#include "add_kernel.h"

extern "C" __global__ __aicore__ void add_400(GM_ADDR x, GM_ADDR y, GM_ADDR z) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    AddTileRotated<400>(x, y, z);
}
