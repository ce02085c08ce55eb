// TopK (sk_twin_topk.h) against references worked out here by another route:
// repeated selection (take the best element not taken yet, the lowest
// position among equals; NaN is best in both orders) instead of a sort, and
// hand-made rows for ties, NaN, in-place calls, finished rows, the index
// sources and Small mode's packed rows. The argument rules fail the launch.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "ascendc_util.h"
#include "ub_test_util.h"

using namespace AscendC;
using ascendc_test::H;
using ascendc_test::RunAiv;
using ub_test::At;
using ub_test::Put;
using ub_test::Violation;
using ub_test::WithUb;

namespace {

// Positions of the k best of row[0..inner) by repeated selection.
std::vector<int> Select(const std::vector<float>& row, int k, bool largest) {
  std::vector<bool> taken(row.size(), false);
  std::vector<int> out;
  for (int i = 0; i < k; ++i) {
    int best = -1;
    for (size_t j = 0; j < row.size(); ++j) {
      if (taken[j]) continue;
      if (best < 0) { best = static_cast<int>(j); continue; }
      const float a = row[j], b = row[best];
      const bool better = std::isnan(b) ? false : (std::isnan(a) || (largest ? a > b : a < b));
      if (better) best = static_cast<int>(j);
    }
    taken[best] = true;
    out.push_back(best);
  }
  return out;
}

// A deterministic spread of values with repeats (a linear congruential walk).
std::vector<float> Pseudo(int count, uint32_t seed) {
  std::vector<float> v(count);
  for (int i = 0; i < count; ++i) {
    seed = seed * 1103515245u + 12345u;
    v[i] = static_cast<float>(static_cast<int>((seed >> 16) % 200) - 100) * 0.25f;
  }
  return v;
}

TWIN_TEST(normal_mode_float_matches_repeated_selection_both_orders) {
  const int rows = 3, inner = 64, n = 64, k = 5;
  for (bool largest : {true, false}) {
    const std::vector<float> src = Pseudo(rows * inner, largest ? 7u : 11u);
    std::vector<uint8_t> io(4096);
    for (int i = 0; i < rows * inner; ++i) Put<float>(&io, 4 * i, src[i]);
    WithUb(&io, [&](LocalTensor<uint8_t>& ub) {
      LocalTensor<float> f = ub.ReinterpretCast<float>();
      LocalTensor<int32_t> idx = ub.ReinterpretCast<int32_t>();
      LocalTensor<bool> finish;
      TopkTiling tiling;
      TopKInfo info;
      info.outter = rows;
      info.inner = inner;
      info.n = n;
      // values at float 512 (rows of k_pad = 8), indices at int 768 (rows of 8); indices generated
      TopK<float, false, false, false, TopKMode::TOPK_NORMAL>(f[512], idx[768], f, idx[896], finish, k, tiling, info,
                                                              largest);
    });
    for (int r = 0; r < rows; ++r) {
      std::vector<float> row(src.begin() + r * inner, src.begin() + (r + 1) * inner);
      const std::vector<int> want = Select(row, k, largest);
      for (int i = 0; i < k; ++i) {
        CHECK_EQ(At<int32_t>(io, 4 * (768 + r * 8 + i)), want[i]);
        CHECK_EQ(At<float>(io, 4 * (512 + r * 8 + i)), row[want[i]]);
      }
    }
  }
}

TWIN_TEST(ties_keep_input_order_and_nan_comes_first) {
  // Row: 3 at 1 and 4, NaN at 6, 5 at 2, 9 at 30; the rest -1.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<uint8_t> io(4096);
  for (int j = 0; j < 32; ++j) Put<float>(&io, 4 * j, -1.0f);
  Put<float>(&io, 4 * 1, 3.0f);
  Put<float>(&io, 4 * 4, 3.0f);
  Put<float>(&io, 4 * 6, nan);
  Put<float>(&io, 4 * 2, 5.0f);
  Put<float>(&io, 4 * 30, 9.0f);
  WithUb(&io, [](LocalTensor<uint8_t>& ub) {
    LocalTensor<float> f = ub.ReinterpretCast<float>();
    LocalTensor<int32_t> idx = ub.ReinterpretCast<int32_t>();
    LocalTensor<bool> finish;
    TopkTiling tiling;
    TopKInfo info{1, 32, 32};
    TopK<float>(f[64], idx[128], f, idx[256], finish, 5, tiling, info, true);
    TopK<float>(f[192], idx[160], f, idx[256], finish, 4, tiling, info, false);
  });
  const int32_t want_large[5] = {6, 30, 2, 1, 4};
  for (int i = 0; i < 5; ++i) CHECK_EQ(At<int32_t>(io, 4 * (128 + i)), want_large[i]);
  CHECK(std::isnan(At<float>(io, 4 * 64)));
  CHECK_EQ(At<float>(io, 4 * 65), 9.0f);
  CHECK_EQ(At<float>(io, 4 * 68), 3.0f);
  // Smallest: NaN still first, then the -1s in position order (0, 3, 5).
  const int32_t want_small[4] = {6, 0, 3, 5};
  for (int i = 0; i < 4; ++i) CHECK_EQ(At<int32_t>(io, 4 * (160 + i)), want_small[i]);
  CHECK_EQ(At<float>(io, 4 * 193), -1.0f);
}

TWIN_TEST(in_place_half_with_given_indices_and_a_finished_row) {
  // Two half rows of inner 32 (n 20: the padding holds -inf), the values sorted back into the source tensor
  // (k_pad 16 for half), indices 100 + j from srcIndexLocal (one row for both), row 1 finished.
  std::vector<uint8_t> io(4096);
  for (int r = 0; r < 2; ++r) {
    for (int j = 0; j < 32; ++j) {
      const double v = j < 20 ? static_cast<double>((j * 7 + r * 3) % 20) : -INFINITY;
      Put<half>(&io, 2 * (r * 32 + j), H(v));
    }
  }
  for (int j = 0; j < 32; ++j) Put<int32_t>(&io, 1024 + 4 * j, 100 + j);
  Put<uint8_t>(&io, 2048, 0);
  Put<uint8_t>(&io, 2049, 1);
  WithUb(&io, [](LocalTensor<uint8_t>& ub) {
    LocalTensor<half> h = ub.ReinterpretCast<half>();
    LocalTensor<int32_t> idx = ub.ReinterpretCast<int32_t>();
    LocalTensor<bool> finish = ub[2048].ReinterpretCast<bool>();
    TopkTiling tiling;
    TopKInfo info{2, 32, 20};
    TopK<half, true, true, false, TopKMode::TOPK_NORMAL>(h, idx[384], h, idx[256], finish, 3, tiling, info, true);
  });
  // Row 0 holds (7j) % 20: 19 at j=17, 18 at j=14, 17 at j=11. Row 1 holds (7j+3) % 20: 19 at 8, 18 at 5, 17 at 2.
  CHECK_EQ(At<half>(io, 0).bits_, H(19).bits_);
  CHECK_EQ(At<half>(io, 2).bits_, H(18).bits_);
  CHECK_EQ(At<half>(io, 4).bits_, H(17).bits_);
  CHECK_EQ(At<half>(io, 32).bits_, H(19).bits_);  // row 1 at k_pad 16
  CHECK_EQ(At<int32_t>(io, 4 * 384 + 0), 117);
  CHECK_EQ(At<int32_t>(io, 4 * 384 + 4), 114);
  CHECK_EQ(At<int32_t>(io, 4 * 384 + 8), 111);
  for (int i = 0; i < 3; ++i) CHECK_EQ(At<int32_t>(io, 4 * (392 + i)), 20);  // finished: n
}

TWIN_TEST(small_mode_packs_rows_at_k) {
  // Four rows of 32 floats, k 3: rows packed at 3, indices per row from srcIndexLocal (row r: 32 r + j).
  const std::vector<float> src = Pseudo(128, 5u);
  std::vector<uint8_t> io(4096);
  for (int i = 0; i < 128; ++i) {
    Put<float>(&io, 4 * i, src[i]);
    Put<int32_t>(&io, 512 + 4 * i, i);
  }
  WithUb(&io, [](LocalTensor<uint8_t>& ub) {
    LocalTensor<float> f = ub.ReinterpretCast<float>();
    LocalTensor<int32_t> idx = ub.ReinterpretCast<int32_t>();
    LocalTensor<bool> finish;
    TopkTiling tiling;
    TopKInfo info{4, 32, 32};
    TopK<float, true, false, false, TopKMode::TOPK_NSMALL>(f[512], idx[640], f, idx[128], finish, 3, tiling, info);
  });
  for (int r = 0; r < 4; ++r) {
    std::vector<float> row(src.begin() + r * 32, src.begin() + (r + 1) * 32);
    const std::vector<int> want = Select(row, 3, true);
    for (int i = 0; i < 3; ++i) {
      CHECK_EQ(At<float>(io, 4 * (512 + r * 3 + i)), row[want[i]]);
      CHECK_EQ(At<int32_t>(io, 4 * (640 + r * 3 + i)), r * 32 + want[i]);
    }
  }
}

TWIN_TEST(bad_shapes_fail_naming_the_rule) {
  std::string e = Violation("topk_k", [](LocalTensor<uint8_t>& ub) {
    LocalTensor<float> f = ub.ReinterpretCast<float>();
    LocalTensor<int32_t> idx = ub.ReinterpretCast<int32_t>();
    LocalTensor<bool> finish;
    TopkTiling tiling;
    TopKInfo info{1, 32, 10};
    TopK<float>(f[64], idx[128], f, idx[256], finish, 11, tiling, info);
  });
  CHECK_CONTAINS(e, "AscendC::TopK (Normal mode): k 11, topKInfo outter 1, inner 32, n 10");
  e = Violation("topk_small", [](LocalTensor<uint8_t>& ub) {
    LocalTensor<float> f = ub.ReinterpretCast<float>();
    LocalTensor<int32_t> idx = ub.ReinterpretCast<int32_t>();
    LocalTensor<bool> finish;
    TopkTiling tiling;
    TopKInfo info{1, 64, 64};
    TopK<float, false, false, false, TopKMode::TOPK_NSMALL>(f[64], idx[128], f, idx[256], finish, 2, tiling, info);
  });
  CHECK_CONTAINS(e, "inner == 32");
  e = Violation("topk_bounds", [](LocalTensor<uint8_t>& ub) {
    LocalTensor<float> f = ub.ReinterpretCast<float>();
    LocalTensor<int32_t> idx = ub.ReinterpretCast<int32_t>();
    LocalTensor<bool> finish;
    TopkTiling tiling;
    TopKInfo info{2, 1024, 1024};  // 8 KiB of float rows in a 4 KiB buffer
    TopK<float>(f[64], idx[128], f, idx[256], finish, 2, tiling, info);
  });
  CHECK_CONTAINS(e, "topk_bounds");
}

TWIN_TEST(topk_constants_are_those_of_the_toolkit_header) {
  static_assert(SIXTEEN == 16 && EIGHT == 8 && TWO == 2 && THIRTY_TWO == 32, "small counts");
  static_assert(TOPK_NORMAL_INNER_MAX_LEN == 4096 && TOPK_NSMALL_INNER_LEN == 32, "TopK limits");
  CHECK_EQ(sizeof(TopkTiling), 112u);
}

}  // namespace

int main(int argc, char** argv) { return twin_test::Main(argc, argv); }
