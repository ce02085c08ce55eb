// AscendDequant (sk_twin_quant.h) against references worked out here: the documentation's own example (its
// printed values, and each element as a double product rounded once to float), bfloat16_t and half outputs
// rounded by a search over neighbouring encodings, the DEQUANT_WITH_SINGLE_ROW / MULTI_ROW readings of
// {1, n, calCount}, the scalar and calCount forms; and the documented rules failing with their message.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "ascendc_util.h"
#include "ub_test_util.h"

using namespace AscendC;
using ascendc_test::RefHalf;
using ub_test::At;
using ub_test::Put;
using ub_test::Violation;
using ub_test::WithUb;

namespace {

// The float nearest to the exact product of x and s (a double holds it exactly: 31 + 24 significant bits fit
// in 53 only for |x| < 2^29, which these tests keep to).
float RefProduct(int32_t x, float s) { return static_cast<float>(static_cast<double>(x) * static_cast<double>(s)); }

// The bfloat16_t encoding nearest to v (ties to even), from the two truncations around it.
uint16_t RefBf16(float v) {
  uint32_t b;
  std::memcpy(&b, &v, 4);
  const uint32_t lo = b & 0xffff0000u, hi = lo + 0x10000u;
  float flo, fhi;
  std::memcpy(&flo, &lo, 4);
  std::memcpy(&fhi, &hi, 4);
  const double dl = std::fabs(static_cast<double>(v) - flo), dh = std::fabs(static_cast<double>(fhi) - v);
  if (dl < dh || (dl == dh && ((lo >> 16) & 1) == 0)) return static_cast<uint16_t>(lo >> 16);
  return static_cast<uint16_t>(hi >> 16);
}

uint16_t Bf16Of(float exact) {  // a bfloat16_t value given exactly as a float
  uint32_t b;
  std::memcpy(&b, &exact, 4);
  CHECK_EQ(b & 0xffffu, 0u);
  return static_cast<uint16_t>(b >> 16);
}

constexpr float kSentinel = -777.0f;

TWIN_TEST(dequant_matches_the_documented_example) {
  // The documentation's example: src 4 x 8 = -16..15, deqScale float {2.2, -2.2, 2.2, -2.2, 2.2, -2.2, 0, 0},
  // {m 4, n 8, calCount 6}; it prints row 0 as -35.2 33. -30.8 28.6 -26.4 24.2 and leaves columns 6, 7.
  std::vector<uint8_t> io(4096);
  const float s[8] = {2.2f, -2.2f, 2.2f, -2.2f, 2.2f, -2.2f, 0.0f, 0.0f};
  for (int i = 0; i < 32; ++i) Put<int32_t>(&io, 4 * i, i - 16);
  for (int i = 0; i < 8; ++i) Put<float>(&io, 256 + 4 * i, s[i]);
  for (int i = 0; i < 32; ++i) Put<float>(&io, 512 + 4 * i, kSentinel);
  WithUb(&io, [&](LocalTensor<uint8_t>& ub) {
    LocalTensor<int32_t> src = ub.ReinterpretCast<int32_t>();
    src.SetSize(32);
    LocalTensor<float> f = ub.ReinterpretCast<float>();
    LocalTensor<float> scale = f[64];
    scale.SetSize(8);
    LocalTensor<float> dst = f[128];
    dst.SetSize(32);
    AscendDequant(dst, src, scale, ub[1024], {4, 8, 6});
  });
  const float printed[6] = {-35.2f, 33.0f, -30.8f, 28.6f, -26.4f, 24.2f};
  for (int c = 0; c < 6; ++c) CHECK(std::fabs(At<float>(io, 512 + 4 * c) - printed[c]) < 1e-4f);
  for (int r = 0; r < 4; ++r) {
    for (int c = 0; c < 8; ++c) {
      const float got = At<float>(io, 512 + 4 * (r * 8 + c));
      if (c < 6) CHECK(ascendc_test::SameFloat(got, RefProduct(r * 8 + c - 16, s[c])));
      else CHECK_EQ(got, kSentinel);  // beyond calCount: untouched
    }
  }
}

TWIN_TEST(dequant_to_bfloat16_rows_rounded_up_to_32_bytes) {
  // {m 3, n 8, calCount 5}, dst bfloat16_t: rows of 16 (8 * 2 bytes rounded up to 32), scale bfloat16_t.
  std::vector<uint8_t> io(4096);
  const float s[8] = {0.375f, -1.5f, 2.25f, 0.0078125f, -3.0f, 1.0f, 1.0f, 1.0f};
  const int32_t vals[24] = {1000001, -7, 123457, 99, -65537, 0, 1, 2, 3, 5, -1234567, 77777, 4095, 0, 0, 0,
                            -8388609, 8388609, 3, 17, 255, 0, 0, 0};
  for (int i = 0; i < 24; ++i) Put<int32_t>(&io, 4 * i, vals[i]);
  for (int i = 0; i < 8; ++i) Put<uint16_t>(&io, 256 + 2 * i, Bf16Of(s[i]));
  for (int i = 0; i < 48; ++i) Put<uint16_t>(&io, 512 + 2 * i, 0xabcd);
  WithUb(&io, [&](LocalTensor<uint8_t>& ub) {
    LocalTensor<int32_t> src = ub.ReinterpretCast<int32_t>();
    src.SetSize(24);
    LocalTensor<bfloat16_t> b = ub.ReinterpretCast<bfloat16_t>();
    LocalTensor<bfloat16_t> scale = b[128];
    scale.SetSize(8);
    LocalTensor<bfloat16_t> dst = b[256];
    dst.SetSize(48);
    AscendDequant(dst, src, scale, DequantParams{3, 8, 5});
  });
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 16; ++c) {
      const uint16_t got = At<uint16_t>(io, 512 + 2 * (r * 16 + c));
      if (c < 5) CHECK_EQ(got, RefBf16(RefProduct(vals[r * 8 + c], s[c])));
      else CHECK_EQ(got, 0xabcd);
    }
  }
}

TWIN_TEST(dequant_to_half_takes_the_float_in_a_uint64_scale) {
  // uint64_t scale: the float in the low 32 bits, control bits above it that the API ignores.
  std::vector<uint8_t> io(4096);
  const float s[8] = {0.001f, -0.5f, 1.0f / 3.0f, 10.0f, 0.1f, 2.0f, 7.0f, -0.25f};
  for (int i = 0; i < 16; ++i) Put<int32_t>(&io, 4 * i, (i * 37 - 250) * (i % 3 == 0 ? 100 : 1));
  for (int i = 0; i < 8; ++i) {
    uint32_t fb;
    std::memcpy(&fb, &s[i], 4);
    Put<uint64_t>(&io, 256 + 8 * i, (uint64_t{0x5a5a0000u + static_cast<uint32_t>(i)} << 32) | fb);
  }
  WithUb(&io, [&](LocalTensor<uint8_t>& ub) {
    LocalTensor<int32_t> src = ub.ReinterpretCast<int32_t>();
    src.SetSize(16);
    LocalTensor<uint64_t> scale = ub.ReinterpretCast<uint64_t>()[32];
    scale.SetSize(8);
    LocalTensor<half> dst = ub.ReinterpretCast<half>()[512];
    dst.SetSize(32);
    AscendDequant(dst, src, scale, ub[2048], DequantParams{2, 8, 8});
  });
  for (int r = 0; r < 2; ++r) {
    for (int c = 0; c < 8; ++c) {
      const int i = r * 8 + c;
      const int32_t x = (i * 37 - 250) * (i % 3 == 0 ? 100 : 1);
      CHECK_EQ(At<uint16_t>(io, 1024 + 2 * (r * 16 + c)), RefHalf(RefProduct(x, s[c])));
    }
  }
}

TWIN_TEST(dequant_single_row_mode_splits_one_row_into_rows_of_calcount) {
  // {1, 32, 8} with float dst: SINGLE_ROW (the default) reads it as {4, 8, 8}, every 8 elements scaled by
  // scale[0..8); MULTI_ROW keeps one row and dequantises only its first 8 elements.
  for (int multi = 0; multi < 2; ++multi) {
    std::vector<uint8_t> io(4096);
    for (int i = 0; i < 32; ++i) Put<int32_t>(&io, 4 * i, 3 * i - 40);
    for (int i = 0; i < 8; ++i) Put<float>(&io, 256 + 4 * i, 0.5f + static_cast<float>(i));
    for (int i = 0; i < 32; ++i) Put<float>(&io, 512 + 4 * i, kSentinel);
    WithUb(&io, [&](LocalTensor<uint8_t>& ub) {
      LocalTensor<int32_t> src = ub.ReinterpretCast<int32_t>();
      src.SetSize(32);
      LocalTensor<float> scale = ub.ReinterpretCast<float>()[64];
      scale.SetSize(8);
      LocalTensor<float> dst = ub.ReinterpretCast<float>()[128];
      dst.SetSize(32);
      if (multi) AscendDequant<float, float, DeQuantMode::DEQUANT_WITH_MULTI_ROW>(dst, src, scale, {1, 32, 8});
      else AscendDequant(dst, src, scale, {1, 32, 8});
    });
    for (int i = 0; i < 32; ++i) {
      const float got = At<float>(io, 512 + 4 * i);
      if (multi && i >= 8) CHECK_EQ(got, kSentinel);
      else CHECK_EQ(got, RefProduct(3 * i - 40, 0.5f + static_cast<float>(i % 8)));
    }
  }
}

TWIN_TEST(dequant_scalar_and_calcount_forms) {
  std::vector<uint8_t> io(4096);
  for (int i = 0; i < 32; ++i) Put<int32_t>(&io, 4 * i, 1000 * i - 12345);
  for (int i = 0; i < 8; ++i) Put<float>(&io, 256 + 4 * i, -0.125f * static_cast<float>(i + 1));
  for (int i = 0; i < 64; ++i) Put<float>(&io, 512 + 4 * i, kSentinel);
  WithUb(&io, [&](LocalTensor<uint8_t>& ub) {
    LocalTensor<int32_t> src = ub.ReinterpretCast<int32_t>();
    src.SetSize(32);
    LocalTensor<float> f = ub.ReinterpretCast<float>();
    LocalTensor<float> scale = f[64];
    scale.SetSize(8);
    LocalTensor<float> d1 = f[128];
    d1.SetSize(32);
    LocalTensor<float> d2 = f[160];
    d2.SetSize(32);
    // A scalar bfloat16_t scale 1.5 over {4, 8, 3}.
    AscendDequant(d1, src, ToBfloat16(1.5f), DequantParams{4, 8, 3});
    // calCount 20 without DequantParams: rows of scale.GetSize() = 8, the first 20 elements row after row.
    AscendDequant(d2, src, scale, static_cast<uint32_t>(20));
  });
  for (int i = 0; i < 32; ++i) {
    const float got1 = At<float>(io, 512 + 4 * i), got2 = At<float>(io, 640 + 4 * i);
    if (i % 8 < 3) CHECK_EQ(got1, RefProduct(1000 * i - 12345, 1.5f));
    else CHECK_EQ(got1, kSentinel);
    if (i < 20) CHECK_EQ(got2, RefProduct(1000 * i - 12345, -0.125f * static_cast<float>(i % 8 + 1)));
    else CHECK_EQ(got2, kSentinel);
  }
}

TWIN_TEST(dequant_rules_fail_naming_the_value) {
  auto run = [](const char* name, DequantParams p, int dst_off, uint32_t dst_size) {
    return Violation(name, [=](LocalTensor<uint8_t>& ub) {
      LocalTensor<int32_t> src = ub.ReinterpretCast<int32_t>();
      src.SetSize(64);
      LocalTensor<float> scale = ub.ReinterpretCast<float>()[64];
      scale.SetSize(16);
      LocalTensor<float> dst = ub.ReinterpretCast<float>()[dst_off];
      dst.SetSize(dst_size);
      AscendDequant(dst, src, scale, p);
    });
  };
  CHECK_CONTAINS(run("n_not_blocks", {2, 12, 8}, 256, 64), "n is 12");
  CHECK_CONTAINS(run("cal_past_n", {2, 8, 9}, 256, 64), "calCount is 9");
  CHECK_CONTAINS(run("cal_past_scale", {1, 24, 24}, 256, 64), "deqScale has 16 elements");
  CHECK_CONTAINS(run("past_src", {9, 8, 8}, 256, 128), "srcTensor has 64 elements");
  CHECK_CONTAINS(run("dst_small", {4, 8, 8}, 256, 16), "dstTensor has 16 elements");
  CHECK_CONTAINS(run("in_place", {2, 8, 8}, 8, 16), "overlap");
}

}  // namespace

int main(int argc, char** argv) { return twin_test::Main(argc, argv); }
