// op_kernel/math_util.h on the CPU twin: the integer helpers of CANN's operator
// base library (Ops::Base). Division by zero gives 0, as a kernel must not trap.
#ifndef SK_TWIN_OP_KERNEL_MATH_UTIL_H_
#define SK_TWIN_OP_KERNEL_MATH_UTIL_H_

#include <type_traits>

namespace Ops {
namespace Base {
// ceil(a / b) for a >= 0, b > 0.
template <typename T, typename U>
constexpr auto CeilDiv(T a, U b) -> typename std::common_type<T, U>::type {
  return b == 0 ? 0 : (a + b - 1) / b;
}
// floor(a / b).
template <typename T, typename U>
constexpr auto FloorDiv(T a, U b) -> typename std::common_type<T, U>::type {
  return b == 0 ? 0 : a / b;
}
// a rounded up to a multiple of b.
template <typename T, typename U>
constexpr auto CeilAlign(T a, U b) -> typename std::common_type<T, U>::type {
  return CeilDiv(a, b) * b;
}
// a rounded down to a multiple of b.
template <typename T, typename U>
constexpr auto FloorAlign(T a, U b) -> typename std::common_type<T, U>::type {
  return FloorDiv(a, b) * b;
}
}  // namespace Base
}  // namespace Ops

#endif  // SK_TWIN_OP_KERNEL_MATH_UTIL_H_
