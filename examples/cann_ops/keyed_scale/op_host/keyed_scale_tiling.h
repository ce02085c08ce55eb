// The host side's tiling definition, as CANN's operator repositories write it: the op build turns
// BEGIN_TILING_DATA_DEF into the kernel's struct and REGISTER_TILING_DATA_CLASS tells GET_TILING_DATA
// which one the op's kernel reads (sk_cann_op does the same from the staged op_host/ on the twin).
#ifndef KEYED_SCALE_TILING_H
#define KEYED_SCALE_TILING_H

#include "register/tilingdata_base.h"

namespace optiling {
BEGIN_TILING_DATA_DEF(KeyedScaleTilingData)
TILING_DATA_FIELD_DEF(int64_t, totalNum);     // elements of x and y
TILING_DATA_FIELD_DEF(int64_t, blockFactor);  // elements per block (the last one takes the rest)
TILING_DATA_FIELD_DEF(int64_t, ubFactor);     // elements per pipeline step
TILING_DATA_FIELD_DEF(float, scale);          // y = |x| * scale
TILING_DATA_FIELD_DEF(float, reserved);
END_TILING_DATA_DEF;

REGISTER_TILING_DATA_CLASS(KeyedScale, KeyedScaleTilingData)
}  // namespace optiling

#endif  // KEYED_SCALE_TILING_H
