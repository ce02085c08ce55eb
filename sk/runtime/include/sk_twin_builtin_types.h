// sk_twin_builtin_types.h - the types the Ascend C compiler (bisheng) knows
// without any include: `half` and `bfloat16_t`. Kernels may name them before
// their first #include (weight_quant_batch_matmul_v2's tiling header declares
// `half` fields ahead of kernel_operator.h), so the twin's kernel compiles
// force this header in front (sk/toolflow/toolargv.py TWIN_BUILTIN_TYPES).
#ifndef SK_TWIN_BUILTIN_TYPES_H_
#define SK_TWIN_BUILTIN_TYPES_H_

#include "sk_twin_half.h"

#endif  // SK_TWIN_BUILTIN_TYPES_H_
