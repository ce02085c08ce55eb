// kernel_log.h on the CPU twin: a path CANN's kernels include (KERNEL_LOG,
// ASCENDC_ASSERT). The Ascend C APIs it names are declared by kernel_operator.h;
// the ones the twin lacks fail to compile naming them (sk_twin_not_yet.h).
#pragma once
#include "kernel_operator.h"
