// sk_twin_matmul.h - the cube Matmul high-level API on the CPU twin (not yet: rejected with a message).
#ifndef SK_TWIN_MATMUL_H_
#define SK_TWIN_MATMUL_H_
#include "sk_twin_ascendc.h"
namespace AscendC {
#define SK_TWIN_CUBE_UNSUPPORTED                                                                                \
  "the CPU twin does not implement the cube Matmul high-level API (Matmul, MatmulType, REGIST_MATMUL_OBJ, "   \
  "lib/matmul_intf.h); write the AIC side with the twin's cube intrinsics or plain loops over GM, or build with " \
  "the CANN toolchain"

enum class CubeFormat : uint8_t { ND = 0, NZ, ZN, ZZ, NN, ND_ALIGN, SCALAR, VECTOR };

template <TPosition POSITION, CubeFormat FORMAT, typename TYPE, bool ISTRANS = false>
struct MatmulType {
  static_assert(sk_detail::kFalse<TYPE>, SK_TWIN_CUBE_UNSUPPORTED);
};

template <typename A_TYPE, typename B_TYPE, typename C_TYPE, typename BIAS_TYPE = C_TYPE, typename... Rest>
class Matmul {
  static_assert(sk_detail::kFalse<A_TYPE>, SK_TWIN_CUBE_UNSUPPORTED);
};

}  // namespace AscendC

namespace matmul {
template <typename A_TYPE, typename B_TYPE, typename C_TYPE, typename BIAS_TYPE = C_TYPE, typename... Rest>
class MatmulImpl {
  static_assert(AscendC::sk_detail::kFalse<A_TYPE>, SK_TWIN_CUBE_UNSUPPORTED);
};
}  // namespace matmul

#define REGIST_MATMUL_OBJ(...) static_assert(false && sizeof(#__VA_ARGS__), SK_TWIN_CUBE_UNSUPPORTED)
#endif  // SK_TWIN_MATMUL_H_
