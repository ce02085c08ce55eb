// The size of Sort's (score, index) data, as CANN's sorting kernels size
// their buffers with it. On the twin's target (Atlas A2/A3) every sorted
// element takes 8 bytes: the score (a half padded to 4 bytes, or a float)
// then its uint32 index. Both functions count in elements of T, the unit
// the Ascend C docs' MrgSort example indexes a LocalTensor<T> with.
#ifndef SK_TWIN_SORT_LAYOUT_H_
#define SK_TWIN_SORT_LAYOUT_H_

#include <cstdint>
#include <type_traits>

#include "sk_twin_half.h"

namespace AscendC {

namespace sk_detail {
constexpr uint32_t kSortElementBytes = 8;
template <typename T>
constexpr uint32_t SortUnitsOf(uint32_t elements) {
  static_assert(std::is_same<T, half>::value || std::is_same<T, float>::value,
                "GetSortLen/GetSortOffset: T must be half or float");
  return elements * (kSortElementBytes / static_cast<uint32_t>(sizeof(T)));
}
}  // namespace sk_detail

// How much Sort data elemCount sorted elements take, in elements of T.
template <typename T>
__aicore__ constexpr inline uint32_t GetSortLen(const uint32_t elemCount) {
  return sk_detail::SortUnitsOf<T>(elemCount);
}

// Where the elemOffset-th sorted element starts in Sort data, in elements of T.
template <typename T>
__aicore__ constexpr inline uint32_t GetSortOffset(const uint32_t elemOffset) {
  return sk_detail::SortUnitsOf<T>(elemOffset);
}

}  // namespace AscendC

#endif  // SK_TWIN_SORT_LAYOUT_H_
