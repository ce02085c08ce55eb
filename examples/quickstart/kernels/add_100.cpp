// add_100: z = x (rotated by one tile) + y + 100, on every vector core (AIV_ONLY).
#include "add_kernel.h"

extern "C" __global__ __aicore__ void add_100(GM_ADDR x, GM_ADDR y, GM_ADDR z) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    AddTileRotated<100>(x, y, z);
}
