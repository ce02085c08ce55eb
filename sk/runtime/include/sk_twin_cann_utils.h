// sk_twin_cann_utils.h - small Ascend C utilities CANN's operators use, on the twin.
//
//   AscendC::DumpTensor(LocalTensor|GlobalTensor, desc, dumpSize)   (sk_twin_debug.h)
//   AscendC::IsSameType<T, U>::value, AscendC::Std::{is_same, IsSame, min, max}
//   AscendC::ToFloat(bfloat16_t|half), AscendC::ToBfloat16(float)  (rounding to nearest even)
//   AscendC::CacheLine, DcciDst, DataCacheCleanAndInvalid<T, CacheLine[, DcciDst]>(GlobalTensor)
//        the twin's GM is coherent: counted as a dcci, as the raw intrinsic is
//   AscendC::GetUserWorkspace(workspace)   the workspace itself, as CANN's CPU debug mode returns it
//        (on the device the user part starts RESERVED_WORKSPACE bytes in);
//   AscendC::RESERVED_WORKSPACE            16 MiB (Atlas A2/A3)
//   AscendC::SetSysWorkspace[Force] / GetSysWorkSpacePtr   the registered system workspace (per worker)
//   AscendC::InitGlobalMemory(gm, size, value)      size elements set, bounds-checked
//   float16_t, float32_t                   the compiler's names for half and float
//   g_coreType, AscendC::AIC/AIV           the worker's core type
//   AscendC::Barrier()                     a compiler memory barrier; Order_t (vcmax/vcmin operand)
//   AscendC::DivCeil, AlignUp, ConstCeil, Ceil(a, b), CeilDivision, CeilDiv; DropOutShapeInfo,
//        SelectWithBytesMaskShapeInfo, SoftMaxShapeInfo
//   AscendC::MAX_REPEAT_TIMES, DEFAULT_REPEAT_STRIDE, FULL_MASK, ... GetDataBlockSizeInBytes()   (Atlas A2/A3)
//   AscendC::AscendCUtils::{SetMask<T>(len | high, low), GetC0Count, GetC0Size, GetBitSize, GetDefaultBlockNum,
//        GetRsvdCnt}
//   scalar sqrt, exp, ... (<cmath>)        a kernel that calls one references libm
#ifndef SK_TWIN_CANN_UTILS_H_
#define SK_TWIN_CANN_UTILS_H_

#include <cmath>  // scalar sqrt/exp/... that kernels call unqualified, as bisheng's builtins allow
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "sk_twin_ascendc.h"
#include "sk_twin_debug.h"

namespace AscendC {

template <typename T, typename U>
struct IsSameType {
  static constexpr bool value = std::is_same<T, U>::value;
};

namespace Std {
using std::is_same;
template <typename T, typename U>
struct IsSame : std::is_same<T, U> {};
template <typename T>
constexpr const T& min(const T& a, const T& b) { return b < a ? b : a; }
template <typename T>
constexpr const T& max(const T& a, const T& b) { return a < b ? b : a; }
}  // namespace Std

// Atlas A2/A3 declare ToFloat(const bfloat16_t&) only, so ToFloat(float) rounds through bfloat16_t there; the twin's
// half form is a template for half alone, so it never competes for other argument types.
inline float ToFloat(const bfloat16_t& v) { return static_cast<float>(v); }
template <typename T, typename std::enable_if<std::is_same<T, half>::value, int>::type = 0>
inline float ToFloat(const T& v) { return static_cast<float>(v); }
inline bfloat16_t ToBfloat16(const float& v) { return bfloat16_t(v); }

enum class CacheLine : uint8_t { SINGLE_CACHE_LINE = 0, ENTIRE_DATA_CACHE };
enum class DcciDst : uint8_t { CACHELINE_ALL = 0, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC };

template <typename T, CacheLine entireType, DcciDst dcciDst = DcciDst::CACHELINE_OUT>
inline void DataCacheCleanAndInvalid(const GlobalTensor<T>& dst) {
  ::sk_twin_dcci(dst.GetPhyAddr(), entireType == CacheLine::ENTIRE_DATA_CACHE ? 1 : 0, static_cast<int32_t>(dcciDst));
}

// Integer helpers of Ascend C's utilities (a / b rounded up; a rounded up to a multiple of b).
constexpr uint32_t DivCeil(uint32_t a, uint32_t b) { return b == 0 ? 0 : (a + b - 1) / b; }
constexpr uint32_t AlignUp(uint32_t a, uint32_t b) { return DivCeil(a, b) * b; }
constexpr uint32_t ConstCeil(uint32_t a, uint32_t b) { return DivCeil(a, b); }
// Ceil(a, b) of two unsigned integers (a / b rounded up); the tensor form is the high-level API (Ceil(dst, src, n)).
constexpr uint32_t Ceil(uint32_t a, uint32_t b) { return DivCeil(a, b); }
constexpr int32_t CeilDivision(int32_t num1, int32_t num2) { return num2 == 0 ? 0 : (num1 + num2 - 1) / num2; }
// AscendC::CeilDiv is the matmul utilities' 16-bit form (the device's kernel_operator.h does not show it). A
// template here so that a kernel's own CeilDiv (with `using namespace AscendC`), template or not, is the better
// match for arguments that need converting, as on the device.
template <typename Unused = void>
constexpr uint16_t CeilDiv(uint16_t a, uint16_t b) { return b == 0 ? 0 : static_cast<uint16_t>((a + b - 1) / b); }
template <typename Unused = void>
constexpr uint16_t CeilAlign(uint16_t a, uint16_t b) { return static_cast<uint16_t>(CeilDiv(a, b) * b); }

// The shape operand of the SoftMax family (the APIs themselves are in sk_twin_not_yet.h).
struct SoftMaxShapeInfo {
  uint32_t srcM{0};
  uint32_t srcK{0};
  uint32_t oriSrcM{0};
  uint32_t oriSrcK{0};
};

// The shape operands of DropOut and Select with a byte mask (the APIs themselves are in sk_twin_not_yet.h).
struct DropOutShapeInfo {
  uint32_t firstAxis = 0;
  uint32_t srcLastAxis = 0;
  uint32_t maskLastAxis = 0;
};
struct SelectWithBytesMaskShapeInfo {
  uint32_t firstAxis = 0;
  uint32_t srcLastAxis = 0;
  uint32_t maskLastAxis = 0;
};

// A compiler barrier: the order of memory accesses around it is kept (CANN's kfc Barrier).
inline void Barrier() { __asm__ __volatile__("" ::: "memory"); }

constexpr size_t RESERVED_WORKSPACE = 16 * 1024 * 1024;
inline GM_ADDR GetUserWorkspace(GM_ADDR workspace) { return workspace; }

// The system workspace a kernel registers for the APIs that need one; per worker.
inline GM_ADDR& SysWorkspaceSlot() {
  static thread_local GM_ADDR workspace = nullptr;
  return workspace;
}
inline void SetSysWorkspace(GM_ADDR workspace) { SysWorkspaceSlot() = workspace; }
inline void SetSysWorkspaceForce(GM_ADDR workspace) { SysWorkspaceSlot() = workspace; }
inline GM_ADDR GetSysWorkSpacePtr() { return SysWorkspaceSlot(); }

// size elements of gm set to value (converted to T), through the GlobalTensor's bounds checks.
template <typename T, typename U>
inline void InitGlobalMemory(GlobalTensor<T>& gm, const uint64_t size, const U value) {
  const T v = static_cast<T>(value);
  for (uint64_t i = 0; i < size; ++i) gm.SetValue(i, v);
}

namespace sk_dump {
template <typename T>
constexpr uint32_t Kind() {
  return std::is_same<T, half>::value ? 3u
         : std::is_same<T, bfloat16_t>::value ? 4u
         : std::is_floating_point<T>::value ? 0u
         : std::is_signed<T>::value ? 1u
                                    : 2u;
}
template <typename T>
constexpr const char* TypeName() {
  return std::is_same<T, half>::value ? "float16"
         : std::is_same<T, bfloat16_t>::value ? "bfloat16"
         : std::is_same<T, float>::value ? "float32"
         : std::is_same<T, double>::value ? "float64"
         : std::is_same<T, int8_t>::value ? "int8"
         : std::is_same<T, uint8_t>::value ? "uint8"
         : std::is_same<T, int16_t>::value ? "int16"
         : std::is_same<T, uint16_t>::value ? "uint16"
         : std::is_same<T, int32_t>::value ? "int32"
         : std::is_same<T, uint32_t>::value ? "uint32"
         : std::is_same<T, int64_t>::value ? "int64"
         : std::is_same<T, uint64_t>::value ? "uint64"
                                            : "unknown";
}
}  // namespace sk_dump

// dumpSize elements (at most the tensor's) from the start of tensor.
template <typename T>
inline void DumpTensor(const LocalTensor<T>& tensor, uint32_t desc, uint32_t dumpSize) {
  const uint32_t n = dumpSize < tensor.GetSize() ? dumpSize : tensor.GetSize();
  const void* data = n == 0 ? nullptr : static_cast<const void*>(&tensor(0));
  ::sk_twin_dump_tensor(desc, tensor.GetPhyAddr(), sk_dump::TypeName<T>(), "UB", n, data, sk_dump::Kind<T>(),
                        sizeof(T));
}
template <typename T>
inline void DumpTensor(const GlobalTensor<T>& tensor, uint32_t desc, uint32_t dumpSize) {
  const uint64_t size = tensor.GetSize();
  const uint32_t n = size != 0 && dumpSize > size ? static_cast<uint32_t>(size) : dumpSize;
  ::sk_twin_dump_tensor(desc, 0, sk_dump::TypeName<T>(), "GM", n, tensor.GetPhyAddr(), sk_dump::Kind<T>(),
                        sizeof(T));
}

// Constants of Ascend C's utilities (Atlas A2/A3): the repeat limit and default strides of the vector API, the
// full mask word, the data block (C0) of 32 bytes, the blocks of one repeat.
constexpr int32_t MAX_REPEAT_TIMES = 255;
constexpr int32_t MIN_REPEAT_TIMES = 0;
constexpr uint8_t DEFAULT_REPEAT_STRIDE = 8;
constexpr uint8_t HALF_DEFAULT_REPEAT_STRIDE = 4;
constexpr uint8_t ONE_FOURTH_DEFAULT_REPEAT_STRIDE = 2;
constexpr int32_t DEFAULT_BLK_STRIDE = 1;
constexpr int32_t DEFAULT_BLK_NUM = 8;
constexpr int32_t DEFAULT_BLOCK_SIZE = 256;
constexpr int32_t DEFAULT_C0_SIZE = 32;
constexpr int32_t ONE_BYTE_BIT_SIZE = 8;
constexpr uint64_t FULL_MASK = ~uint64_t{0};
constexpr int32_t FULL_MASK_LEN = 128;
constexpr int32_t HALF_MASK_LEN = 64;
constexpr uint8_t B64_BYTE_SIZE = 8;
constexpr uint8_t B32_BYTE_SIZE = 4;
constexpr uint8_t B16_BYTE_SIZE = 2;
constexpr uint8_t B8_BYTE_SIZE = 1;
constexpr uint8_t B32_DATA_NUM_PER_BLOCK = 8;
constexpr uint8_t B16_DATA_NUM_PER_BLOCK = 16;
constexpr int32_t B16_DATA_NUM_PER_REPEAT = 128;
constexpr int32_t B32_DATA_NUM_PER_REPEAT = 64;
constexpr int32_t DEFAULT_REDUCE_DST_REP_STRIDE = 1;
// The bytes of one data block (the unit of block strides and UB alignment).
constexpr int16_t GetDataBlockSizeInBytes() { return 32; }

// AscendCUtils: the static helpers kernels call directly. SetMask<T>(len) sets the mask register to the first len
// lanes in the normal-mode layout whatever the mode (64 lanes a word, len >= 128 or a whole repeat of T: all);
// SetMask<T>(high, low) sets it as given; both only on a vector core and only with isSetMask.
class AscendCUtils {
 public:
  static constexpr int32_t GetBitSize(int32_t byteSize) { return byteSize * ONE_BYTE_BIT_SIZE; }
  static constexpr int32_t GetC0Size() { return DEFAULT_C0_SIZE; }
  static inline int32_t GetC0Count(const int32_t dtypeSize) {
    if (dtypeSize == 0) ::sk_twin_fail("AscendCUtils::GetC0Count: dtypeSize can not be 0");
    return dtypeSize == 0 ? 0 : GetC0Size() / dtypeSize;
  }
  static constexpr int32_t GetDefaultBlockNum() { return DEFAULT_BLK_NUM; }
  // The kept count of the worker's last GatherMask (the RSVD_CNT register).
  static inline int64_t GetRsvdCnt() { return static_cast<int64_t>(::sk_twin_rsvd_cnt()); }
  template <typename T, bool isSetMask = true>
  static inline void SetMask(const uint64_t& maskHigh, const uint64_t& maskLow) {
    if (isSetMask && ASCEND_IS_NOT_AIC) SetVectorMask<T>(maskHigh, maskLow);
  }
  template <typename T, bool isSetMask = true>
  static inline void SetMask(int32_t len) {
    const int32_t whole = DEFAULT_BLOCK_SIZE / static_cast<int32_t>(sizeof(T));
    const uint64_t n = len < 0 ? 0 : static_cast<uint64_t>(len);
    if (len == whole || n >= 128) {
      SetMask<T, isSetMask>(FULL_MASK, FULL_MASK);
    } else {
      SetMask<T, isSetMask>(n > 64 ? (uint64_t{1} << (n - 64)) - 1 : 0, n >= 64 ? FULL_MASK : (uint64_t{1} << n) - 1);
    }
  }
  template <typename T>
  static inline void SetMaskCount() { ::AscendC::SetMaskCount(); }
  template <typename T>
  static inline void SetMaskNorm() { ::AscendC::SetMaskNorm(); }
};

}  // namespace AscendC

// The order operand of the vcmax/vcmin intrinsics.
enum Order_t { VALUE_INDEX = 0, INDEX_VALUE, ONLY_VALUE, ONLY_INDEX };

// The core type a unit runs on, as CANN's per-core global: `if (g_coreType == AIV)`.
namespace AscendC {
enum SkTwinCoreTag : int32_t { AIC = 0, AIV = 1 };
}  // namespace AscendC
#define g_coreType (::sk_twin_core_type() == 0 ? ::AscendC::AIC : ::AscendC::AIV)

using float16_t = half;
using float32_t = float;

#endif  // SK_TWIN_CANN_UTILS_H_
