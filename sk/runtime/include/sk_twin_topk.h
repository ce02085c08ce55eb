// sk_twin_topk.h - the TopK high-level API (Ascend C adv_api/sort/topk.h) as
// Atlas A2/A3 run it (merge sort), and the constants its implementation
// header puts at global scope (an unnamed namespace: TWO ... SIXTEEN, the
// TopK limits), which kernels use without declaring them.
//
// For each of topKInfo.outter rows of topKInfo.inner elements (inner a
// multiple of 32; n <= inner real ones, the padding sorted with them as on the
// device, so kernels pad with the type's lowest/highest value):
//   * the k largest (isLargest) or smallest values, in order, with their
//     indices; equal values keep their input order, NaN comes first in both
//     orders (the device sorts -x descending for the smallest);
//   * indices: srcIndexLocal's (isInitIndex; Normal mode one row of inner
//     shared by every row, Small mode a row each), else 0 .. inner-1;
//   * Normal mode writes row r at r * k_pad of dstValueLocal (k rounded up to
//     32 bytes of T) and r * kpad_index of dstIndexLocal (k rounded up to 8);
//     Small mode (inner == 32) packs the rows at r * k;
//   * isHasfinish (Normal mode only): a row whose finishLocal value is true
//     gets the index n for all k.
// A row is read whole before it is written, as the device sorts through its
// temporary buffer, so dst may be src (kernels call it in place). The tiling
// struct is not read; the temporary buffer is not used. Checked: 1 <= k <= n
// <= inner, inner % 32 == 0, inner <= 4096 (Normal) or == 32 (Small).
#ifndef SK_TWIN_TOPK_H_
#define SK_TWIN_TOPK_H_

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace {
constexpr uint16_t MIN_SORT32_SIZE = 32;
constexpr uint16_t MIN_RPSORT16_SIZE = 16;
constexpr uint32_t BUF_LIST_SIZE = 2;
constexpr uint32_t MRG_MAX_ARRAY_SIZE = 15;
constexpr uint32_t MRGSORT_VALID_QUEUE = 4;
constexpr uint32_t MRGSORT_VALID_TWO = 2;
constexpr uint32_t MRGSORT_VALID_TWO_OFFSET = 769;
constexpr uint32_t TWO = 2;
constexpr uint32_t THREE = 3;
constexpr uint32_t FOUR = 4;
constexpr uint32_t FIVE = 5;
constexpr uint32_t SIX = 6;
constexpr uint32_t SEVEN = 7;
constexpr uint32_t EIGHT = 8;
constexpr uint32_t NINE = 9;
constexpr uint32_t TWELVE = 12;
constexpr uint32_t SIXTEEN = 16;
constexpr uint32_t THIRTY_TWO = 32;
constexpr uint32_t FORTYEIGHT = 48;
constexpr uint32_t VREDUCEV2_HALF_MASK = 128;
constexpr uint32_t VREDUCEV2_FOUR_BYTE_MASK = 64;
constexpr uint32_t SRC1_STACK_TENSORSIZE = 10;
constexpr uint32_t SRC1_STACK_VAL_OFFSET = 16;
constexpr uint32_t TOPK_INNER_ALIGN_LEN = 32;
constexpr uint32_t TOPK_NORMAL_INNER_MAX_HALF_LEN = 2048;
constexpr uint32_t TOPK_NSMALL_INNER_LEN = 32;
constexpr uint32_t TOPK_NORMAL_INNER_MAX_LEN = 4096;
}  // namespace

namespace AscendC {

enum class TopKMode { TOPK_NORMAL, TOPK_NSMALL };
enum class TopKAlgo { RADIX_SELECT, MERGE_SORT };
enum class TopKOrder { UNSET, LARGEST, SMALLEST };
struct TopKConfig {
  TopKAlgo algo = TopKAlgo::MERGE_SORT;
  TopKOrder order = TopKOrder::UNSET;
  bool sorted = true;
};
struct TopKInfo {
  int32_t outter = 1;
  int32_t inner;  // n rounded up to a multiple of 32
  int32_t n;      // the real elements of a row
};

namespace sk_detail {
template <typename T, bool isInitIndex, bool isHasfinish, TopKMode topkMode>
static inline void TopKRows(const LocalTensor<T>& dstValue, const LocalTensor<int32_t>& dstIndex,
                            const LocalTensor<T>& src, const LocalTensor<int32_t>& srcIndex,
                            const LocalTensor<bool>& finish, int32_t k, const TopKInfo& info, bool isLargest) {
  static_assert(kOneOf<T, half, float>, "AscendC::TopK: T is half or float (Atlas A2/A3)");
  static_assert(!(topkMode == TopKMode::TOPK_NSMALL && isHasfinish),
                "AscendC::TopK: TopKMode::TOPK_NSMALL takes no finishLocal (isHasfinish must be false)");
  constexpr bool normal = topkMode == TopKMode::TOPK_NORMAL;
  const int32_t inner = info.inner, n = info.n, rows = info.outter;
  const bool bad = inner <= 0 || inner % 32 != 0 || n < 1 || n > inner || k < 1 || k > n || rows < 0 ||
                   (normal ? inner > 4096 : inner != 32);
  if (bad) {
    char msg[320];
    std::snprintf(msg, sizeof msg,
                  "AscendC::TopK (%s mode): k %d, topKInfo outter %d, inner %d, n %d; allowed: 1 <= k <= n <= inner, "
                  "inner a multiple of 32, %s",
                  normal ? "Normal" : "Small", k, rows, inner, n, normal ? "inner <= 4096" : "inner == 32");
    ::sk_twin_fail(msg);
  }
  const int32_t kpadValue = normal ? (k + static_cast<int32_t>(32 / sizeof(T)) - 1) / static_cast<int32_t>(32 / sizeof(T)) *
                                         static_cast<int32_t>(32 / sizeof(T))
                                   : k;
  const int32_t kpadIndex = normal ? (k + 7) / 8 * 8 : k;
  std::vector<T> value(inner);
  std::vector<float> key(inner);
  std::vector<int32_t> index(inner), order(inner);
  for (int32_t r = 0; r < rows; ++r) {
    for (int32_t j = 0; j < inner; ++j) {
      value[j] = src.GetValue(static_cast<uint32_t>(r * inner + j));
      key[j] = static_cast<float>(value[j]);
      if (!isLargest) key[j] = -key[j];
      if constexpr (isInitIndex) {
        index[j] = srcIndex.GetValue(static_cast<uint32_t>((normal ? 0 : r * inner) + j));
      } else {
        index[j] = j;
      }
      order[j] = j;
    }
    // Descending by key, NaN first, equal keys in input order.
    std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
      const bool na = key[a] != key[a], nb = key[b] != key[b];
      if (na || nb) return na && !nb;
      return key[a] > key[b];
    });
    bool finished = false;
    if constexpr (isHasfinish) finished = finish.GetValue(static_cast<uint32_t>(r));
    for (int32_t i = 0; i < k; ++i) {
      dstValue.SetValue(static_cast<uint32_t>(r * kpadValue + i), value[order[i]]);
      dstIndex.SetValue(static_cast<uint32_t>(r * kpadIndex + i), finished ? n : index[order[i]]);
    }
  }
}
}  // namespace sk_detail

template <typename T, bool isInitIndex = false, bool isHasfinish = false, bool isReuseSrc = false,
          enum TopKMode topkMode = TopKMode::TOPK_NORMAL>
static inline void TopK(const LocalTensor<T>& dstValueLocal, const LocalTensor<int32_t>& dstIndexLocal,
                        const LocalTensor<T>& srcLocal, const LocalTensor<int32_t>& srcIndexLocal,
                        const LocalTensor<bool>& finishLocal, const LocalTensor<uint8_t>& tmpLocal, const int32_t k,
                        const TopkTiling& tilling, const TopKInfo& topKInfo, const bool isLargest = true) {
  (void)tmpLocal;
  (void)tilling;
  if (ASCEND_IS_AIC) return;  // a vector-core API
  sk_detail::TopKRows<T, isInitIndex, isHasfinish, topkMode>(dstValueLocal, dstIndexLocal, srcLocal, srcIndexLocal,
                                                             finishLocal, k, topKInfo, isLargest);
}
template <typename T, bool isInitIndex = false, bool isHasfinish = false, bool isReuseSrc = false,
          enum TopKMode topkMode = TopKMode::TOPK_NORMAL>
static inline void TopK(const LocalTensor<T>& dstValueLocal, const LocalTensor<int32_t>& dstIndexLocal,
                        const LocalTensor<T>& srcLocal, const LocalTensor<int32_t>& srcIndexLocal,
                        const LocalTensor<bool>& finishLocal, const int32_t k, const TopkTiling& tilling,
                        const TopKInfo& topKInfo, const bool isLargest = true) {
  (void)tilling;
  if (ASCEND_IS_AIC) return;
  sk_detail::TopKRows<T, isInitIndex, isHasfinish, topkMode>(dstValueLocal, dstIndexLocal, srcLocal, srcIndexLocal,
                                                             finishLocal, k, topKInfo, isLargest);
}

}  // namespace AscendC

#endif  // SK_TWIN_TOPK_H_
