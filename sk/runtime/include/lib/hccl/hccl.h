// lib/hccl/hccl.h on the CPU twin: the HCCL high-level API (sk_twin_hccl.h,
// which kernel_operator.h includes).
#include "kernel_operator.h"
