// The APIs CANN's ops-transformer kernels need beyond ops-math/ops-nn
// (sk_twin_sort_layout.h, ...), checked against values worked out here by
// hand from the Ascend C docs.
#include <cstdint>
#include <vector>

#include "ascendc_util.h"
#include "ub_test_util.h"

using namespace AscendC;
using ub_test::At;
using ub_test::Put;
using ub_test::WithUb;

namespace {

TWIN_TEST(sort_len_and_offset_count_8_bytes_a_sorted_element_in_units_of_t) {
  // 8 bytes an element: 2 floats or 4 halves.
  CHECK_EQ(GetSortLen<float>(0), 0u);
  CHECK_EQ(GetSortLen<float>(1), 2u);
  CHECK_EQ(GetSortLen<float>(128), 256u);
  CHECK_EQ(GetSortLen<half>(128), 512u);
  CHECK_EQ(GetSortOffset<float>(32), 64u);
  CHECK_EQ(GetSortOffset<half>(5), 20u);
  static_assert(GetSortLen<float>(3) == 6, "GetSortLen is a constant expression");
}

TWIN_TEST(sort_offset_finds_the_kth_pair_sort32_wrote) {
  // 32 half scores sorted by Sort32: the k-th largest sits at GetSortOffset<half>(k)
  // and its index in the 4 bytes after the score's padded slot.
  std::vector<uint8_t> io(1024);
  for (uint32_t k = 0; k < 32; ++k) {
    Put<half>(&io, 2 * k, half(static_cast<float>((k * 7) % 32)));  // a permutation of 0..31
    Put<uint32_t>(&io, 64 + 4 * k, k);
  }
  WithUb(&io, [](LocalTensor<uint8_t>& ub) {
    LocalTensor<half> h = ub.ReinterpretCast<half>();
    Sort32(h[256], h, ub.ReinterpretCast<uint32_t>()[16], 1);  // output at byte 512
  });
  int bad = 0;
  for (uint32_t rank = 0; rank < 32; ++rank) {
    const uint32_t score = 31 - rank;
    uint32_t index = 0;
    while ((index * 7) % 32 != score) ++index;
    const size_t at = 512 + 2 * size_t{GetSortOffset<half>(rank)};
    bad += static_cast<float>(At<half>(io, at)) != static_cast<float>(score) || At<uint32_t>(io, at + 4) != index;
  }
  CHECK_EQ(bad, 0);
  CHECK_EQ(2 * GetSortLen<half>(32), 256u);  // the bytes Sort32 wrote
}

}  // namespace

int main(int argc, char** argv) { return twin_test::Main(argc, argv); }
