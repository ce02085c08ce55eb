// lib/matmul_intf.h on the CPU twin: the cube Matmul high-level API
// (sk_twin_matmul.h, which kernel_operator.h includes).
#include "kernel_operator.h"
