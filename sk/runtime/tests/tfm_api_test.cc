// The APIs CANN's ops-transformer kernels need beyond ops-math/ops-nn
// (sk_twin_sort_api.h, ...), checked against values worked out here by
// hand from the Ascend C docs.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include <type_traits>

#include "ascendc_util.h"
#include "kernel_tiling/kernel_tiling.h"
#include "ub_test_util.h"

using namespace AscendC;
using ub_test::At;
using ub_test::Put;
using ub_test::WithUb;

namespace {

float FromBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// REGISTER_TILING_DEFAULT at namespace scope (ops-transformer's swin_attention_ffn writes it before its kernel):
// GET_TILING_DATA in that namespace reads that struct; one in a function body still wins for its block.
struct NsTiling {
  uint32_t a;
  uint16_t b;
};
struct BodyTiling {
  uint16_t c;
};
REGISTER_TILING_DEFAULT(NsTiling);

TWIN_TEST(register_tiling_default_at_namespace_scope_names_the_struct_get_tiling_data_takes) {
  std::vector<uint8_t> bytes(16, 0);
  const uint32_t a = 0x01020304u;
  const uint16_t b = 0xbeef;
  std::memcpy(bytes.data(), &a, 4);
  std::memcpy(bytes.data() + 4, &b, 2);
  GET_TILING_DATA(t, bytes.data());
  static_assert(std::is_same<decltype(t), NsTiling>::value, "the namespace's default");
  CHECK_EQ(t.a, a);
  CHECK_EQ(t.b, b);
  {
    REGISTER_TILING_DEFAULT(BodyTiling);
    GET_TILING_DATA(u, bytes.data() + 4);
    static_assert(std::is_same<decltype(u), BodyTiling>::value, "the block's default over the namespace's");
    CHECK_EQ(u.c, b);
  }
}

TWIN_TEST(data_format_values_follow_the_documented_order) {
  CHECK_EQ(static_cast<int>(DataFormat::ND), 0);
  CHECK_EQ(static_cast<int>(DataFormat::NZ), 1);
  CHECK_EQ(static_cast<int>(DataFormat::NCHW), 2);
  CHECK_EQ(static_cast<int>(DataFormat::NC1HWC0), 3);
  CHECK_EQ(static_cast<int>(DataFormat::NHWC), 4);
  static_assert(sizeof(DataFormat) == 1, "a uint8_t enum");
}

// Pipe annotations on a function are hints for the NPU compiler: the function is an ordinary one here.
__aicore__ inline __inout_pipe__(MTE2) __in_pipe__(V) __out_pipe__(MTE3) int Twice(int x) { return 2 * x; }

TWIN_TEST(pipe_annotated_functions_are_ordinary_functions) { CHECK_EQ(Twice(21), 42); }

TWIN_TEST(f32_bit_constants_are_the_infinities_and_a_quiet_nan) {
  CHECK(FromBits(F32_INF) == std::numeric_limits<float>::infinity());
  CHECK(FromBits(F32_NEG_INF) == -std::numeric_limits<float>::infinity());
  CHECK(std::isnan(FromBits(F32_NAN)));
  CHECK((F32_NAN & 0x00400000u) != 0);  // quiet: the top fraction bit set
}

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

// Float lists of (score, index) pairs at byte 0 + 256 * list; merged output at byte 1024.
void PutLists(std::vector<uint8_t>* io, const std::vector<std::vector<float>>& lists) {
  for (size_t l = 0; l < lists.size(); ++l) {
    for (size_t k = 0; k < lists[l].size(); ++k) {
      Put<float>(io, 256 * l + 8 * k, lists[l][k]);
      Put<uint32_t>(io, 256 * l + 8 * k + 4, static_cast<uint32_t>(100 * l + k));
    }
  }
}

TWIN_TEST(mrgsort_with_sorted_num_merges_three_lists_descending) {
  const std::vector<std::vector<float>> lists = {{9, 5, 1}, {8, 5, 4, 2}, {7, 6}};
  std::vector<uint8_t> io(2048);
  PutLists(&io, lists);
  uint32_t sorted[4] = {77, 77, 77, 77};
  WithUb(&io, [&](LocalTensor<uint8_t>& ub) {
    LocalTensor<float> f = ub.ReinterpretCast<float>();
    const uint16_t counts[4] = {3, 4, 2, 0};
    MrgSortSrcList<float> list(f[0], f[64], f[128], f[192]);
    MrgSort<float>(f[256], list, counts, sorted, 0b111, 1);
  });
  // By hand: 9(0,0) 8(1,0) 7(2,0) 6(2,1) 5(0,1) 5(1,1: the lower list first on a tie) 4(1,2) 2(1,3) 1(0,2).
  const float want_score[9] = {9, 8, 7, 6, 5, 5, 4, 2, 1};
  const uint32_t want_index[9] = {0, 100, 200, 201, 1, 101, 102, 103, 2};
  int bad = 0;
  for (size_t i = 0; i < 9; ++i) {
    bad += At<float>(io, 1024 + 8 * i) != want_score[i] || At<uint32_t>(io, 1024 + 8 * i + 4) != want_index[i];
  }
  CHECK_EQ(bad, 0);
  CHECK_EQ(sorted[0], 3u);
  CHECK_EQ(sorted[1], 4u);
  CHECK_EQ(sorted[2], 2u);
  CHECK_EQ(sorted[3], 0u);
}

TWIN_TEST(mrgsort_exhausted_suspension_stops_when_a_list_runs_out_and_reports_what_it_took) {
  const std::vector<std::vector<float>> lists = {{9, 3}, {8, 7, 2}, {6, 5, 4, 1}, {10, 0}};
  std::vector<uint8_t> io(2048);
  PutLists(&io, lists);
  uint32_t sorted[4] = {0, 0, 0, 0};
  WithUb(&io, [&](LocalTensor<uint8_t>& ub) {
    LocalTensor<float> f = ub.ReinterpretCast<float>();
    const uint16_t counts[4] = {2, 3, 4, 2};
    MrgSort<float, true>(f[256], MrgSortSrcList<float>(f[0], f[64], f[128], f[192]), counts, sorted, 0b1111, 1);
  });
  // By hand: 10 9 8 7 6 5 4 3 -> list 0 (9, 3) runs out after the 8th pick.
  const float want[8] = {10, 9, 8, 7, 6, 5, 4, 3};
  int bad = 0;
  for (size_t i = 0; i < 8; ++i) bad += At<float>(io, 1024 + 8 * i) != want[i];
  CHECK_EQ(bad, 0);
  CHECK_EQ(sorted[0], 2u);
  CHECK_EQ(sorted[1], 2u);
  CHECK_EQ(sorted[2], 3u);
  CHECK_EQ(sorted[3], 1u);
}

}  // namespace

int main(int argc, char** argv) { return twin_test::Main(argc, argv); }
