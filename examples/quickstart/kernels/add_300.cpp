// add_300: z = x (rotated by one tile) + y + 300, on every vector core (AIV_ONLY).
#include "add_kernel.h"

extern "C" __global__ __aicore__ void add_300(GM_ADDR x, GM_ADDR y, GM_ADDR z) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    AddTileRotated<300>(x, y, z);
}
