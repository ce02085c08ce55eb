// lib/matmul_intf.h on the CPU twin: the cube Matmul high-level API is not
// implemented. This header exists so that a kernel including it fails here
// with a message instead of "file not found".
#error "the CPU twin does not implement the cube Matmul high-level API (lib/matmul_intf.h: Matmul, MatmulType, REGIST_MATMUL_OBJ); write the AIC side with plain loops over GM or the twin's cube intrinsics, or build with the CANN toolchain"
