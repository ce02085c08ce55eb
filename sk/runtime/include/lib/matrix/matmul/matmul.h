// lib/matrix/matmul/matmul.h: the path some kernels include the Matmul
// high-level API by; it is lib/matmul_intf.h's on the twin.
#include "lib/matmul_intf.h"
