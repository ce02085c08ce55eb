// SoftmaxFlashV2 and BlockReduce*IntrinsicsImpl (sk_twin_softmax_flash.h)
// against references computed here in double from the documented formulas
// (the FlashAttention-2 update: m = max(inmax, max x), dst = exp(x - m),
// expmax = exp(inmax - m), sum = expmax * insum + sum dst), and block
// maxima/sums picked by hand. The rules (srcK not 32-byte aligned, an address
// in no live buffer) fail the launch.
#include <cmath>
#include <string>
#include <vector>

#include "ascendc_util.h"
#include "ub_test_util.h"

using namespace AscendC;
using ascendc_test::H;
using ub_test::At;
using ub_test::Put;
using ub_test::Violation;
using ub_test::WithUb;

namespace {

bool Near(double got, double want) { return std::fabs(got - want) <= 2e-6 * std::fabs(want) + 1e-30; }

// Two rows of 8 floats.
const float kX[2][8] = {{0.5f, -1.0f, 2.0f, 0.0f, 1.5f, -3.0f, 2.0f, 0.25f},
                        {-2.0f, -2.5f, -1.0f, -4.0f, -0.5f, -3.0f, -1.5f, -2.25f}};

TWIN_TEST(first_step_without_update) {
  std::vector<uint8_t> io(4096);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 8; ++j) Put<float>(&io, 4 * (i * 8 + j), kX[i][j]);
  WithUb(&io, [](LocalTensor<uint8_t>& ub) {
    LocalTensor<float> f = ub.ReinterpretCast<float>();
    SoftMaxTiling tiling;
    SoftMaxShapeInfo shape{2, 8, 2, 8};
    LocalTensor<float> unused;
    // dst at 64, sum at 128 (a DataBlock a row), max at 192; expMax and the inputs are not read or written
    SoftmaxFlashV2<float, false>(f[64], f[128], f[192], f, unused, unused, unused, tiling, shape);
  });
  for (int i = 0; i < 2; ++i) {
    double m = kX[i][0], sum = 0;
    for (int j = 0; j < 8; ++j) m = std::max(m, static_cast<double>(kX[i][j]));
    for (int j = 0; j < 8; ++j) sum += std::exp(kX[i][j] - m);
    for (int j = 0; j < 8; ++j) CHECK(Near(At<float>(io, 4 * (64 + i * 8 + j)), std::exp(kX[i][j] - m)));
    for (int j = 0; j < 8; ++j) {
      CHECK(Near(At<float>(io, 4 * (128 + i * 8 + j)), sum));
      CHECK_EQ(At<float>(io, 4 * (192 + i * 8 + j)), static_cast<float>(m));
    }
  }
}

TWIN_TEST(update_step_in_place_on_the_running_max_and_sum) {
  // Row 0's previous max (1.0) is below its new one (2.0), row 1's (0.0) above (-0.5); sums 3 and 5.
  const double in_max[2] = {1.0, 0.0}, in_sum[2] = {3.0, 5.0};
  std::vector<uint8_t> io(4096);
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 8; ++j) {
      Put<float>(&io, 4 * (i * 8 + j), kX[i][j]);
      Put<float>(&io, 4 * (128 + i * 8 + j), static_cast<float>(in_sum[i]));
      Put<float>(&io, 4 * (192 + i * 8 + j), static_cast<float>(in_max[i]));
    }
  }
  WithUb(&io, [](LocalTensor<uint8_t>& ub) {
    LocalTensor<float> f = ub.ReinterpretCast<float>();
    SoftMaxTiling tiling;
    tiling.srcM = 2;  // the tiling's shape, as the shape info is left empty
    tiling.srcK = 8;
    // dst over src; sum and max updated where they are read (the documented reuse)
    SoftmaxFlashV2<float, true>(f, f[128], f[192], f, f[256], f[128], f[192], tiling);
  });
  for (int i = 0; i < 2; ++i) {
    double rowmax = kX[i][0];
    for (int j = 0; j < 8; ++j) rowmax = std::max(rowmax, static_cast<double>(kX[i][j]));
    const double m = std::max(in_max[i], rowmax), e = std::exp(in_max[i] - m);
    double sum = 0;
    for (int j = 0; j < 8; ++j) sum += std::exp(kX[i][j] - m);
    for (int j = 0; j < 8; ++j) CHECK(Near(At<float>(io, 4 * (i * 8 + j)), std::exp(kX[i][j] - m)));
    for (int j = 0; j < 8; ++j) {
      CHECK(Near(At<float>(io, 4 * (128 + i * 8 + j)), e * in_sum[i] + sum));
      CHECK_EQ(At<float>(io, 4 * (192 + i * 8 + j)), static_cast<float>(m));
      CHECK(Near(At<float>(io, 4 * (256 + i * 8 + j)), e));
    }
  }
}

constexpr SoftmaxConfig kNoBrc = {true, 0, 0, SoftmaxMode::SOFTMAX_OUTPUT_WITHOUT_BRC};

TWIN_TEST(half_data_with_float_statistics_without_broadcast) {
  // One row of 16 halves (0, 0.5, ..., 7.5); previous max 8 and sum 2 at element 0 of float tensors.
  std::vector<uint8_t> io(4096);
  for (int j = 0; j < 16; ++j) Put<half>(&io, 2 * j, H(0.5 * j));
  Put<float>(&io, 1024, 2.0f);   // inExpSum
  Put<float>(&io, 1088, 8.0f);   // inMax
  WithUb(&io, [](LocalTensor<uint8_t>& ub) {
    LocalTensor<half> h = ub.ReinterpretCast<half>();
    LocalTensor<float> f = ub.ReinterpretCast<float>();
    SoftMaxTiling tiling;
    SoftMaxShapeInfo shape{1, 16, 1, 16};
    SoftmaxFlashV2<half, true, false, false, false, kNoBrc>(h[64], f[384], f[400], h, h[256], f[256], f[272], tiling,
                                                            shape);
  });
  double sum = 0;
  for (int j = 0; j < 16; ++j) sum += std::exp(0.5 * j - 8.0);
  for (int j = 0; j < 16; ++j) CHECK_EQ(At<half>(io, 128 + 2 * j).bits_, H(std::exp(0.5 * j - 8.0)).bits_);
  CHECK(Near(At<float>(io, 4 * 384), 1.0 * 2.0 + sum));  // expmax = exp(8 - 8) = 1
  CHECK_EQ(At<float>(io, 4 * 400), 8.0f);
  CHECK_EQ(At<half>(io, 512).bits_, H(1.0).bits_);
  CHECK_EQ(At<float>(io, 4 * 385), 0.0f);  // one value a row: the next element untouched
}

TWIN_TEST(srck_must_be_32_byte_aligned) {
  std::string e = Violation("flash_k", [](LocalTensor<uint8_t>& ub) {
    LocalTensor<float> f = ub.ReinterpretCast<float>();
    SoftMaxTiling tiling;
    SoftMaxShapeInfo shape{1, 6, 1, 6};
    SoftmaxFlashV2<float>(f[64], f[128], f[192], f, f, f, f, tiling, shape);
  });
  CHECK_CONTAINS(e, "AscendC::SoftmaxFlashV2: the last axis (srcK) must be above 0 and 32-byte aligned");
}

TWIN_TEST(block_reduce_intrinsics_read_the_mask_register) {
  // 16 floats in counter mode: two 8-lane blocks, so two results; then 8 lanes in normal mode (bits 0-7).
  std::vector<uint8_t> io(4096);
  const float v[16] = {1, 9, -2, 3, 0, 4, 4, 2, -7, -1, -3, -9, -5, -8, -6, -4};
  for (int j = 0; j < 16; ++j) Put<float>(&io, 4 * j, v[j]);
  WithUb(&io, [](LocalTensor<uint8_t>& ub) {
    LocalTensor<float> f = ub.ReinterpretCast<float>();
    auto* base = reinterpret_cast<__ubuf__ float*>(f.GetPhyAddr());
    SetMaskCount();
    SetVectorMask<float, MaskMode::COUNTER>(0, 16);
    BlockReduceMaxIntrinsicsImpl(base + 64, base, 1, 1, 1, 8);
    BlockReduceSumIntrinsicsImpl(base + 72, base, 1, 1, 1, 8);
    SetMaskNorm();
    SetVectorMask<float, MaskMode::NORMAL>(0, 0xff);
    BlockReduceMinIntrinsicsImpl(base + 80, base, 1, 1, 1, 8);
    ResetMask();
  });
  CHECK_EQ(At<float>(io, 4 * 64), 9.0f);
  CHECK_EQ(At<float>(io, 4 * 65), -1.0f);
  CHECK_EQ(At<float>(io, 4 * 72), 21.0f);
  CHECK_EQ(At<float>(io, 4 * 73), -43.0f);
  CHECK_EQ(At<float>(io, 4 * 80), -2.0f);
}

TWIN_TEST(block_reduce_intrinsics_need_a_live_buffer) {
  std::string e = Violation("blk_addr", [](LocalTensor<uint8_t>& ub) {
    auto* far = reinterpret_cast<__ubuf__ float*>(ub.GetPhyAddr() + 100000);
    BlockReduceMaxIntrinsicsImpl(far, far, 1, 1, 1, 8);
  });
  CHECK_CONTAINS(e, "BlockReduceMaxIntrinsicsImpl");
}

}  // namespace

int main(int argc, char** argv) { return twin_test::Main(argc, argv); }
