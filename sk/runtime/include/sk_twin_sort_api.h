// The sort high-level API forms CANN's sorting kernels use beyond the basic
// ones of sk_twin_vector_ext.h: the size of Sort's (score, index) data, and
// MrgSort reporting how many elements it took from each list. On the twin's target (Atlas A2/A3) every sorted
// element takes 8 bytes: the score (a half padded to 4 bytes, or a float)
// then its uint32 index. Both functions count in elements of T, the unit
// the Ascend C docs' MrgSort example indexes a LocalTensor<T> with.
#ifndef SK_TWIN_SORT_API_H_
#define SK_TWIN_SORT_API_H_

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

// MrgSort merging up to 4 sorted lists (validBit 0b11, 0b111 or 0b1111)
// into dst, descending by score; sortedNum[i]: the elements it took from
// list i (all of a valid list, unless isExhaustedSuspension stopped the merge
// when one list ran out).
template <typename T, bool isExhaustedSuspension = false>
__aicore__ inline void MrgSort(const LocalTensor<T>& dst, const MrgSortSrcList<T>& sortList,
                               const uint16_t elementCountList[4], uint32_t sortedNum[4], uint16_t validBit,
                               const int32_t repeatTime) {
  MrgSort(dst, sortList, MrgSort4Info(elementCountList, isExhaustedSuspension, validBit,
                                      static_cast<uint16_t>(repeatTime)));
  uint16_t taken[4];
  ::sk_twin_mrg_sort_result(taken);
  for (int i = 0; i < 4; ++i) sortedNum[i] = taken[i];
}

}  // namespace AscendC

#endif  // SK_TWIN_SORT_API_H_
