// sk_twin_debug.h - the debugging interfaces of Ascend C kernels on the twin.
//
//   AscendC::PRINTF / AscendC::printf(fmt, args...)
//        one line per call, prefixed with the worker as the device prints it:
//        "[AIV Block 3/8] text" (AIC: "[AIC Block b/n] "); the block is
//        GetBlockIdx()/its count on that core type (AIVs: GetBlockNum() *
//        GetSubBlockNum()); half and bfloat16_t print as %f of their value.
//   AscendC::DumpTensor(LocalTensor|GlobalTensor, desc, dumpSize)
//        "[AIV Block b/n] DumpTensor: desc=D, addr=A, data_type=T, position=P,
//        dump_size=N" then "[v0, v1, ...]" (%f for floating types, %d/%u for
//        integers); addr is the UB offset, or 0 for GM.
//   ASSERT(expr), ascendc_assert / assert(expr[, fmt, args...]), ASCENDC_ASSERT(expr, {stmts})
//        a false expr prints "[AIV Block b/n] [ASSERT] file:line: function:
//        Assertion `expr' failed. <fmt>" and ends the launch with a kernel
//        error holding that text (file: its base name); compiled out under
//        NDEBUG, as CANN's release builds do.
//   KERNEL_LOG(level, fmt, args...)  a PRINTF line.
//   likely(x), unlikely(x)           __builtin_expect.
// Formatting and output happen in the runtime (src/debugprint.cc): each line
// is written whole, so lines of different workers never interleave.
#ifndef SK_TWIN_DEBUG_H_
#define SK_TWIN_DEBUG_H_

#include <cstdint>
#include <type_traits>

#include "sk_twin.h"
#include "sk_twin_half.h"

#ifndef likely
#define likely(x) __builtin_expect(!!(x), 1)
#endif
#ifndef unlikely
#define unlikely(x) __builtin_expect(!!(x), 0)
#endif

namespace sk_twin {

// A printf argument as C's variadic call passes it: 16-bit floats as double.
template <typename T>
inline auto PrintArg(const T& v) {
  if constexpr (std::is_same<T, half>::value || std::is_same<T, bfloat16_t>::value) {
    return static_cast<double>(static_cast<float>(v));
  } else if constexpr (std::is_enum<T>::value) {
    return static_cast<long long>(v);
  } else if constexpr (std::is_array<T>::value) {
    return static_cast<const std::remove_extent_t<T>*>(v);
  } else {
    static_assert(std::is_arithmetic<T>::value || std::is_pointer<T>::value || std::is_null_pointer<T>::value,
                  "PRINTF/printf/assert arguments are numbers, pointers or strings");
    return v;
  }
}

template <typename... Args>
inline void AssertFail(const char* file, unsigned line, const char* func, const char* expr) {
  ::sk_twin_assert_fail(file, line, func, expr, nullptr);
}
template <typename... Args>
inline void AssertFail(const char* file, unsigned line, const char* func, const char* expr, const char* fmt,
                       const Args&... args) {
  ::sk_twin_assert_fail(file, line, func, expr, fmt, PrintArg(args)...);
}

}  // namespace sk_twin

namespace AscendC {

template <typename... Args>
inline void PRINTF(const char* fmt, const Args&... args) {
  ::sk_twin_printf(fmt, ::sk_twin::PrintArg(args)...);
}
template <typename... Args>
inline void printf(const char* fmt, const Args&... args) {
  ::sk_twin_printf(fmt, ::sk_twin::PrintArg(args)...);
}

enum KernelLogLevel : int { KERNEL_DEBUG = 0, KERNEL_INFO, KERNEL_WARN, KERNEL_ERROR };

}  // namespace AscendC

#define KERNEL_LOG(level, fmt, ...) ::AscendC::PRINTF(fmt "\n", ##__VA_ARGS__)

#ifdef NDEBUG
#define ASSERT(expr) ((void)0)
#define ascendc_assert(expr, ...) ((void)0)
#define ASCENDC_ASSERT(expr, behavior) ((void)0)
#else
#define ASSERT(expr) \
  ((expr) ? (void)0 : ::sk_twin::AssertFail(__FILE__, __LINE__, __func__, #expr))
#define ascendc_assert(expr, ...) \
  ((expr) ? (void)0 : ::sk_twin::AssertFail(__FILE__, __LINE__, __func__, #expr, ##__VA_ARGS__))
#define ASCENDC_ASSERT(expr, behavior)                               \
  do {                                                               \
    if (!(expr)) {                                                   \
      behavior;                                                      \
      ::sk_twin::AssertFail(__FILE__, __LINE__, __func__, #expr);   \
    }                                                                \
  } while (0)
#endif
// Ascend C's assert(expr[, fmt, args...]) (utils/debug/asc_assert.h) is ascendc_assert; a kernel that includes
// <cassert> itself gets the standard one, as there.
#ifndef assert
#define assert(...) ascendc_assert(__VA_ARGS__)
#endif

#endif  // SK_TWIN_DEBUG_H_
