// sk_twin_vector_ext2.h against references worked out here from the
// documented semantics: ReduceSum's ACC_VAL register (GetAccVal), the
// whole-tensor math forms, integer Power, TransDataTo5HD's 8- and 32-bit
// layouts (NC1HWC0 with C0 = 32 / 16), Transpose, FusedMulAdd/MulAddDst,
// the pointer forms of DataCopyPad and TransDataTo5HD, ScalarCast, TQueSync,
// Trap, and a kernel's own CeilDiv beside AscendC's. The rules (a negative
// integer exponent, a UB address outside every live buffer, a mask beyond a
// repeat) fail with their message.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "ascendc_util.h"
#include "ub_test_util.h"

using namespace AscendC;
using ascendc_test::H;
using ascendc_test::RefHalf;
using ascendc_test::RunAiv;
using ub_test::At;
using ub_test::Put;
using ub_test::Violation;
using ub_test::WithUb;

// A kernel's own CeilDiv at global scope, as ops-nn's avg_pool3_d_grad has it:
// with `using namespace AscendC` a call with (int64_t, int) must pick this one.
static uint64_t CeilDiv(uint64_t x, uint64_t y) { return y == 0 ? x : (x + y - 1) / y; }

namespace {

TWIN_TEST(reduce_sum_leaves_its_sum_in_acc_val) {
  float got_f = 0;
  int64_t raw = 0;
  half got_h;
  std::vector<uint8_t> io(4096);
  for (size_t k = 0; k < 100; ++k) Put<float>(&io, 4 * k, static_cast<float>(k));         // sum 4950
  for (size_t k = 0; k < 40; ++k) Put<half>(&io, 1024 + 2 * k, H(0.5 * static_cast<double>(k)));  // sum 390
  WithUb(&io, [&](LocalTensor<uint8_t>& ub) {
    LocalTensor<float> f = ub.ReinterpretCast<float>();
    ReduceSum<float>(f[512], f, f[768], 100);
    got_f = GetAccVal<float>();
    raw = GetAccVal();
    LocalTensor<half> h = ub.ReinterpretCast<half>();
    ReduceSum<half>(h[1536], h[512], h[1600], 40);
    got_h = GetReduceRepeatSumSpr<half>();
  });
  CHECK_EQ(got_f, 4950.0f);
  CHECK_EQ(At<float>(io, 2048), 4950.0f);  // dst[0] holds the same sum
  uint32_t bits;
  const float want = 4950.0f;
  std::memcpy(&bits, &want, 4);
  CHECK_EQ(static_cast<uint32_t>(raw), bits);
  CHECK_EQ(got_h.bits_, RefHalf(390.0));
}

TWIN_TEST(whole_tensor_math_forms_take_the_source_size) {
  // Log2 of powers of two and Log10 of powers of ten are exact; the 9th element (outside the sized view) stays.
  std::vector<uint8_t> io(4096);
  const float p2[8] = {1, 2, 4, 8, 1024, 0.5f, 0.25f, 1.0f / 1024};
  const float p10[8] = {1, 10, 100, 1000, 1e4f, 1e5f, 1e6f, 1e7f};
  for (size_t k = 0; k < 8; ++k) {
    Put<float>(&io, 4 * k, p2[k]);
    Put<float>(&io, 64 + 4 * k, p10[k]);
    Put<float>(&io, 128 + 4 * k, static_cast<float>(std::exp(static_cast<double>(k))));
  }
  for (size_t k = 0; k < 64; ++k) Put<float>(&io, 1024 + 4 * k, -9.0f);
  WithUb(&io, [](LocalTensor<uint8_t>& ub) {
    LocalTensor<float> f = ub.ReinterpretCast<float>();
    LocalTensor<float> a = f[0], b = f[16], c = f[32];
    a.SetSize(8);
    b.SetSize(8);
    c.SetSize(8);
    Log2<float>(f[256], a);
    Log10<float>(f[272], b, ub[3072]);  // the sharedTmpBuffer form
    Log<float>(f[288], c);
  });
  const float want2[8] = {0, 1, 2, 3, 10, -1, -2, -10};
  int bad = 0;
  for (size_t k = 0; k < 8; ++k) {
    bad += At<float>(io, 1024 + 4 * k) != want2[k];
    bad += At<float>(io, 1088 + 4 * k) != static_cast<float>(k);
    bad += std::fabs(At<float>(io, 1152 + 4 * k) - static_cast<float>(k)) > 1e-5f;
  }
  bad += At<float>(io, 1024 + 32) != -9.0f;  // element 8 is not written
  CHECK_EQ(bad, 0);
}

TWIN_TEST(integer_power_is_exact_and_wraps_like_int32) {
  std::vector<uint8_t> io(4096);
  const int32_t base[8] = {3, -2, 2, 0, 7, -1, 5, 1};
  const int32_t expo[8] = {4, 3, 31, 0, 1, 5, 0, 30};
  for (size_t k = 0; k < 8; ++k) {
    Put<int32_t>(&io, 4 * k, base[k]);
    Put<int32_t>(&io, 64 + 4 * k, expo[k]);
  }
  WithUb(&io, [](LocalTensor<uint8_t>& ub) {
    LocalTensor<int32_t> t = ub.ReinterpretCast<int32_t>();
    Power<int32_t>(t[256], t, t[16], 8);  // tensor ^ tensor
    LocalTensor<int32_t> first4 = t[0];
    first4.SetSize(4);
    Power<int32_t, false>(t[272], first4, 3);        // tensor ^ scalar, whole tensor
    LocalTensor<int32_t> e4 = t[16];
    e4.SetSize(4);
    Power<int32_t, false>(t[288], 2, e4);            // scalar ^ tensor, whole tensor
  });
  // 2^31 does not fit: the repeated multiply wraps to INT32_MIN.
  const int32_t want[8] = {81, -8, INT32_MIN, 1, 7, -1, 1, 1};
  const int32_t cubes[4] = {27, -8, 8, 0};
  const int32_t twos[4] = {16, 8, INT32_MIN, 1};
  int bad = 0;
  for (size_t k = 0; k < 8; ++k) bad += At<int32_t>(io, 1024 + 4 * k) != want[k];
  for (size_t k = 0; k < 4; ++k) {
    bad += At<int32_t>(io, 1088 + 4 * k) != cubes[k];
    bad += At<int32_t>(io, 1152 + 4 * k) != twos[k];
  }
  CHECK_EQ(bad, 0);
}

TWIN_TEST(integer_power_with_a_negative_exponent_is_named) {
  const std::string err = Violation("pow_neg", [](LocalTensor<uint8_t>& ub) {
    LocalTensor<int32_t> t = ub.ReinterpretCast<int32_t>();
    t.SetValue(0, 5);
    Power<int32_t, false>(t[64], t, -2, 8);
  });
  CHECK_CONTAINS(err, "Power<int32_t>");
  CHECK_CONTAINS(err, "exponent -2 is negative");
}

TWIN_TEST(trans_data_to_5hd_8_bit_moves_half_blocks) {
  // b8: 16 source blocks of 32 bytes; column (srcHighHalf ? 16 : 0) + j goes to half (dstHighHalf) of block j.
  std::vector<uint8_t> io(4096);
  for (size_t i = 0; i < 512; ++i) io[i] = static_cast<uint8_t>((i * 7 + 3) & 0xff);
  for (size_t i = 1024; i < 1536; ++i) io[i] = 0xEE;
  const std::vector<uint8_t> b = io;
  WithUb(&io, [](LocalTensor<uint8_t>& ub) {
    LocalTensor<uint8_t> src[16], dst[16];
    for (uint32_t i = 0; i < 16; ++i) {
      src[i] = ub[32 * i];
      dst[i] = ub[1024 + 32 * i];
    }
    TransDataTo5HD<uint8_t>(dst, src, TransDataTo5HDParams(true, false, 1, 0, 0));  // low columns -> high halves
  });
  int bad = 0;
  for (size_t j = 0; j < 16; ++j) {
    for (size_t i = 0; i < 16; ++i) {
      bad += io[1024 + 32 * j + 16 + i] != b[32 * i + j];
      bad += io[1024 + 32 * j + i] != 0xEE;  // the low half is kept
    }
  }
  CHECK_EQ(bad, 0);
  // srcHighHalf: columns 16..31 into the low halves.
  WithUb(&io, [](LocalTensor<uint8_t>& ub) {
    LocalTensor<int8_t> s = ub.ReinterpretCast<int8_t>();
    LocalTensor<int8_t> src[16], dst[16];
    for (uint32_t i = 0; i < 16; ++i) {
      src[i] = s[32 * i];
      dst[i] = s[2048 + 32 * i];
    }
    TransDataTo5HD<int8_t>(dst, src, TransDataTo5HDParams(false, true, 1, 0, 0));
  });
  for (size_t j = 0; j < 16; ++j) {
    for (size_t i = 0; i < 16; ++i) bad += io[2048 + 32 * j + i] != b[32 * i + 16 + j];
  }
  CHECK_EQ(bad, 0);
}

TWIN_TEST(trans_data_to_5hd_32_bit_is_nc1hwc0_with_c0_16) {
  // 16 channel planes of 8 floats each (src block c); NC1HWC0 with C0 = 16: position p's 16 channels are the
  // 16 consecutive floats at 16 * p of the destination (two DataBlocks per position). Two repeats, src stride 1
  // block, dst stride 16 blocks.
  std::vector<uint8_t> io(8192);
  for (size_t c = 0; c < 16; ++c) {
    for (size_t p = 0; p < 16; ++p) Put<float>(&io, 4 * (c * 16 + p), static_cast<float>(c * 100 + p));
  }
  WithUb(&io, [](LocalTensor<uint8_t>& ub) {
    LocalTensor<float> f = ub.ReinterpretCast<float>();
    LocalTensor<float> src[16], dst[16];
    for (uint32_t i = 0; i < 16; ++i) {
      src[i] = f[16 * i];          // plane c: 16 positions, two blocks
      dst[i] = f[512 + 8 * i];     // consecutive blocks
    }
    TransDataTo5HD<float>(dst, src, TransDataTo5HDParams(false, false, 2, 16, 1));
  });
  int bad = 0;
  for (size_t p = 0; p < 16; ++p) {
    for (size_t c = 0; c < 16; ++c) bad += At<float>(io, 4 * (512 + 16 * p + c)) != static_cast<float>(c * 100 + p);
  }
  CHECK_EQ(bad, 0);
}

TWIN_TEST(transpose_and_the_pointer_list_form_transpose_16_by_16) {
  std::vector<uint8_t> io(4096);
  for (size_t k = 0; k < 256; ++k) Put<uint16_t>(&io, 2 * k, static_cast<uint16_t>(k * 13 + 1));
  WithUb(&io, [](LocalTensor<uint8_t>& ub) {
    LocalTensor<uint16_t> u = ub.ReinterpretCast<uint16_t>();
    Transpose(u[256], u);
    int16_t* d[16];
    int16_t* s[16];
    for (int i = 0; i < 16; ++i) {
      s[i] = reinterpret_cast<int16_t*>(u.GetPhyAddr()) + 16 * i;
      d[i] = reinterpret_cast<int16_t*>(u.GetPhyAddr()) + 512 + 16 * i;
    }
    TransDataTo5HDImpl(d, s, TransDataTo5HDParams(false, false, 1, 0, 0));
  });
  int bad = 0;
  for (size_t i = 0; i < 16; ++i) {
    for (size_t j = 0; j < 16; ++j) {
      const uint16_t want = static_cast<uint16_t>((i * 16 + j) * 13 + 1);
      bad += At<uint16_t>(io, 512 + 2 * (j * 16 + i)) != want;
      bad += At<uint16_t>(io, 1024 + 2 * (j * 16 + i)) != want;
    }
  }
  CHECK_EQ(bad, 0);
}

TWIN_TEST(fused_mul_add_and_mul_add_dst) {
  // FusedMulAdd: dst = src0 * dst + src1; MulAddDst: dst += src0 * src1 (float += half * half). Exact values.
  std::vector<uint8_t> io(8192);
  for (size_t k = 0; k < 64; ++k) {
    Put<float>(&io, 4 * k, 0.5f * static_cast<float>(k));        // src0
    Put<float>(&io, 256 + 4 * k, 1.0f);                           // src1
    Put<float>(&io, 512 + 4 * k, 2.0f);                           // dst
    Put<half>(&io, 1024 + 2 * k, H(0.25 * static_cast<double>(k)));
    Put<half>(&io, 1280 + 2 * k, H(2.0));
    Put<float>(&io, 1536 + 4 * k, 10.0f);
  }
  for (size_t k = 0; k < 128; ++k) {
    Put<half>(&io, 2048 + 2 * k, H(static_cast<double>(k % 16)));
    Put<half>(&io, 2304 + 2 * k, H(-1.0));
    Put<half>(&io, 2560 + 2 * k, H(3.0));
  }
  WithUb(&io, [](LocalTensor<uint8_t>& ub) {
    LocalTensor<float> f = ub.ReinterpretCast<float>();
    FusedMulAdd(f[128], f, f[64], 64);
    LocalTensor<half> h = ub.ReinterpretCast<half>();
    MulAddDst(f[384], h[512], h[640], 64);
    // mask 100 of 128 half lanes, one repeat: lanes 100..127 keep 3.0.
    FusedMulAdd(h[1280], h[1024], h[1152], 100, 1, BinaryRepeatParams{1, 1, 1, 8, 8, 8});
  });
  int bad = 0;
  for (size_t k = 0; k < 64; ++k) {
    bad += At<float>(io, 512 + 4 * k) != 0.5f * static_cast<float>(k) * 2.0f + 1.0f;
    bad += At<float>(io, 1536 + 4 * k) != 0.25f * static_cast<float>(k) * 2.0f + 10.0f;
  }
  for (size_t k = 0; k < 128; ++k) {
    const double want = k < 100 ? static_cast<double>(k % 16) * 3.0 - 1.0 : 3.0;
    bad += At<uint16_t>(io, 2560 + 2 * k) != RefHalf(want);
  }
  CHECK_EQ(bad, 0);
}

TWIN_TEST(sub_relu_clamps_the_difference_at_zero) {
  std::vector<uint8_t> io(4096);
  for (size_t k = 0; k < 64; ++k) {
    Put<float>(&io, 4 * k, static_cast<float>(k % 9));
    Put<float>(&io, 256 + 4 * k, 4.0f);
  }
  WithUb(&io, [](LocalTensor<uint8_t>& ub) {
    LocalTensor<float> f = ub.ReinterpretCast<float>();
    SubRelu(f, f, f[64], 64);  // in place over src0
  });
  int bad = 0;
  for (size_t k = 0; k < 64; ++k) bad += At<float>(io, 4 * k) != std::max(static_cast<float>(k % 9) - 4.0f, 0.0f);
  CHECK_EQ(bad, 0);
}

TWIN_TEST(fused_mul_add_mask_beyond_a_repeat_is_named) {
  const std::string err = Violation("fma_mask", [](LocalTensor<uint8_t>& ub) {
    LocalTensor<float> f = ub.ReinterpretCast<float>();
    FusedMulAdd(f[128], f, f[64], 65, 1, BinaryRepeatParams{1, 1, 1, 8, 8, 8});
  });
  CHECK_CONTAINS(err, "FusedMulAdd");
  CHECK_CONTAINS(err, "mask");
}

TWIN_TEST(compare_into_a_uint16_mask_feeds_select) {
  std::vector<uint8_t> io(4096);
  for (size_t k = 0; k < 64; ++k) {
    Put<float>(&io, 4 * k, static_cast<float>(k % 7));
    Put<float>(&io, 256 + 4 * k, 3.0f);
  }
  WithUb(&io, [](LocalTensor<uint8_t>& ub) {
    LocalTensor<float> f = ub.ReinterpretCast<float>();
    LocalTensor<uint16_t> mask = ub.ReinterpretCast<uint16_t>()[512];
    Compare(mask, f, f[64], CMPMODE::LT, 64);
    Select(f[384], mask, f, f[64], SELMODE::VSEL_TENSOR_TENSOR_MODE, 64);  // min(a, 3)
  });
  int bad = 0;
  for (size_t k = 0; k < 64; ++k) {
    const bool lt = static_cast<float>(k % 7) < 3.0f;
    bad += ((io[1024 + k / 8] >> (k % 8)) & 1) != (lt ? 1 : 0);
    bad += At<float>(io, 1536 + 4 * k) != std::fmin(static_cast<float>(k % 7), 3.0f);
  }
  CHECK_EQ(bad, 0);
}

TWIN_TEST(sum_adds_the_n_elements_of_each_padded_row) {
  // outter 3 rows of n = 3 halves stored 16 apart (inner 16); the padding holds 100s that must not count.
  std::vector<uint8_t> io(4096);
  for (size_t r = 0; r < 3; ++r) {
    for (size_t j = 0; j < 16; ++j) Put<half>(&io, 2 * (r * 16 + j), H(j < 3 ? static_cast<double>(r * 3 + j + 1) : 100.0));
  }
  WithUb(&io, [](LocalTensor<uint8_t>& ub) {
    LocalTensor<half> h = ub.ReinterpretCast<half>();
    SumParams p;
    p.outter = 3;
    p.inner = 16;
    p.n = 3;
    Sum(h[512], h, p);
  });
  CHECK_EQ(At<uint16_t>(io, 1024), RefHalf(6.0));
  CHECK_EQ(At<uint16_t>(io, 1026), RefHalf(15.0));
  CHECK_EQ(At<uint16_t>(io, 1028), RefHalf(24.0));
}

TWIN_TEST(sum_with_an_unpadded_inner_is_named) {
  const std::string err = Violation("sum_inner", [](LocalTensor<uint8_t>& ub) {
    LocalTensor<float> f = ub.ReinterpretCast<float>();
    SumParams p;
    p.outter = 2;
    p.inner = 3;  // 12 bytes: not a 32-byte multiple
    p.n = 3;
    Sum(f[256], f, ub[2048], p);
  });
  CHECK_CONTAINS(err, "AscendC::Sum: SumParams.inner must be SumParams.n");
}

constexpr CumSumConfig kRows{false, false, true};  // down the rows, with the last row
constexpr CumSumConfig kCols{true, false, false};  // along each row

TWIN_TEST(cum_sum_along_either_axis) {
  // src [3, 8] floats k; rows: out[i][j] = sum over i' <= i; cols: sum over j' <= j; half along rows of 16.
  std::vector<uint8_t> io(8192);
  for (size_t k = 0; k < 24; ++k) Put<float>(&io, 4 * k, static_cast<float>(k));
  for (size_t k = 0; k < 32; ++k) Put<half>(&io, 4096 + 2 * k, H(0.5 * static_cast<double>(k % 16)));
  WithUb(&io, [](LocalTensor<uint8_t>& ub) {
    LocalTensor<float> f = ub.ReinterpretCast<float>();
    LocalTensor<float> down = f[64], last = f[128], along = f[192], unused = f[256];
    CumSum<float, kRows>(down, last, f, CumSumInfo{3, 8});
    LocalTensor<uint8_t> tmp = ub[3072];
    CumSum<float, kCols>(along, unused, f, tmp, CumSumInfo{3, 8});
    LocalTensor<half> h = ub.ReinterpretCast<half>();
    LocalTensor<half> hd = h[2560], hl = h[2600];
    CumSum<half>(hd, hl, h[2048], CumSumInfo{2, 16});
  });
  int bad = 0;
  for (size_t i = 0; i < 3; ++i) {
    for (size_t j = 0; j < 8; ++j) {
      float rows = 0, cols = 0;
      for (size_t r = 0; r <= i; ++r) rows += static_cast<float>(r * 8 + j);
      for (size_t c = 0; c <= j; ++c) cols += static_cast<float>(i * 8 + c);
      bad += At<float>(io, 256 + 4 * (i * 8 + j)) != rows;
      bad += At<float>(io, 768 + 4 * (i * 8 + j)) != cols;
      if (i == 2) bad += At<float>(io, 512 + 4 * j) != rows;
    }
  }
  for (size_t i = 0; i < 2; ++i) {
    for (size_t j = 0; j < 16; ++j) bad += At<uint16_t>(io, 5120 + 2 * (i * 16 + j)) != RefHalf(0.25 * j * (j + 1));
  }
  CHECK_EQ(bad, 0);
}

TWIN_TEST(cum_sum_with_an_unaligned_inner_is_named) {
  const std::string err = Violation("cumsum_inner", [](LocalTensor<uint8_t>& ub) {
    LocalTensor<float> f = ub.ReinterpretCast<float>();
    LocalTensor<float> d = f[256], l = f[512];
    CumSum<float>(d, l, f, CumSumInfo{2, 5});
  });
  CHECK_CONTAINS(err, "inner * sizeof(T) a multiple of 32 bytes");
}

TWIN_TEST(get_mrg_sort_result_counts_the_pairs_taken) {
  // Two descending lists of 4 (score, index) pairs: A = 9 8 7 6, B = 5 4 3 2. With ifExhaustedSuspension the merge
  // stops once A runs out (4 from A, 0 from B); without it, it takes all 8.
  std::vector<uint8_t> io(4096);
  for (size_t k = 0; k < 4; ++k) {
    Put<float>(&io, 8 * k, static_cast<float>(9 - k));
    Put<uint32_t>(&io, 8 * k + 4, static_cast<uint32_t>(k));
    Put<float>(&io, 256 + 8 * k, static_cast<float>(5 - k));
    Put<uint32_t>(&io, 256 + 8 * k + 4, static_cast<uint32_t>(10 + k));
  }
  uint16_t stop[4] = {9, 9, 9, 9}, all[4] = {9, 9, 9, 9};
  WithUb(&io, [&](LocalTensor<uint8_t>& ub) {
    LocalTensor<float> f = ub.ReinterpretCast<float>();
    const uint16_t lens[4] = {4, 4, 0, 0};
    MrgSortSrcList<float> lists(f, f[64], f[128], f[128]);
    MrgSort(f[256], lists, MrgSort4Info(lens, true, 3, 1));
    GetMrgSortResult(stop[0], stop[1], stop[2], stop[3]);
    MrgSort(f[512], lists, MrgSort4Info(lens, false, 3, 1));
    GetMrgSortResult(all[0], all[1], all[2], all[3]);
  });
  CHECK_EQ(stop[0], 4);
  CHECK_EQ(stop[1] + stop[2] + stop[3], 0);
  CHECK_EQ(all[0], 4);
  CHECK_EQ(all[1], 4);
  CHECK_EQ(all[2] + all[3], 0);
  CHECK_EQ(At<float>(io, 2048 + 8 * 7), 2.0f);  // the full merge ends with B's last
}

TWIN_TEST(softmax_rows_with_sum_and_max_and_its_grad) {
  // [2, 8] floats; references in double: max, sum of exp, exp / sum; grad: s = sum g*y, dst = (g - s) * y.
  std::vector<uint8_t> io(8192);
  std::vector<double> x(16), g(16);
  for (size_t k = 0; k < 16; ++k) {
    x[k] = 0.25 * static_cast<double>(k % 8) - (k < 8 ? 1.0 : -2.0);
    g[k] = 0.125 * static_cast<double>((k * 5) % 7) - 0.3;
    Put<float>(&io, 4 * k, static_cast<float>(x[k]));
    Put<float>(&io, 256 + 4 * k, static_cast<float>(g[k]));
  }
  WithUb(&io, [](LocalTensor<uint8_t>& ub) {
    LocalTensor<float> f = ub.ReinterpretCast<float>();
    SoftMaxTiling tiling;  // the shape comes from softmaxShapeInfo
    const SoftMaxShapeInfo shape{2, 8, 2, 8};
    SoftMax<float>(f[128], f[192], f[256], f, tiling, shape);           // dst, sum, max
    SoftmaxGrad<float>(f[320], f[64], f[128], tiling, false, shape);     // grad g, y = softmax
    SoftmaxGrad<float>(f[384], f[64], f[128], ub[3072], tiling, true, shape);  // isFront: the row sums
  });
  int bad = 0;
  for (size_t i = 0; i < 2; ++i) {
    double mx = x[8 * i], sum = 0, s = 0;
    for (size_t j = 0; j < 8; ++j) mx = std::max(mx, x[8 * i + j]);
    for (size_t j = 0; j < 8; ++j) sum += std::exp(x[8 * i + j] - mx);
    std::vector<double> y(8);
    for (size_t j = 0; j < 8; ++j) {
      y[j] = std::exp(x[8 * i + j] - mx) / sum;
      s += g[8 * i + j] * y[j];
      bad += std::fabs(At<float>(io, 512 + 4 * (8 * i + j)) - y[j]) > 1e-6 * (1 + y[j]);
    }
    for (size_t j = 0; j < 8; ++j) {
      bad += std::fabs(At<float>(io, 768 + 4 * (8 * i + j)) - sum) > 1e-5 * sum;  // sum, the whole DataBlock
      bad += At<float>(io, 1024 + 4 * (8 * i + j)) != static_cast<float>(mx);
      bad += std::fabs(At<float>(io, 1280 + 4 * (8 * i + j)) - (g[8 * i + j] - s) * y[j]) > 1e-6;
      bad += std::fabs(At<float>(io, 1536 + 4 * (8 * i + j)) - s) > 1e-6;
    }
  }
  CHECK_EQ(bad, 0);
}

TWIN_TEST(select_with_a_byte_mask_picks_by_value) {
  // 2 rows of 8 floats, mask rows of 32 uint8 (the last 24 unused). Tensor first: 0 keeps src, else the scalar;
  // scalar first: 0 takes the scalar, else src. SelectWithBytesMask is the same call.
  std::vector<uint8_t> io(4096);
  for (size_t k = 0; k < 16; ++k) Put<float>(&io, 4 * k, static_cast<float>(k));
  for (size_t r = 0; r < 2; ++r) {
    for (size_t j = 0; j < 32; ++j) io[1024 + 32 * r + j] = static_cast<uint8_t>(j < 8 ? (j + r) % 3 : 7);
  }
  WithUb(&io, [](LocalTensor<uint8_t>& ub) {
    LocalTensor<float> f = ub.ReinterpretCast<float>();
    SelectWithBytesMaskShapeInfo info;
    info.firstAxis = 2;
    info.srcLastAxis = 8;
    info.maskLastAxis = 32;
    Select(f[64], f, -1.0f, ub[1024], ub[2048], info);
    SelectWithBytesMask(f[96], -1.0f, f, ub[1024], ub[2048], info);
  });
  int bad = 0;
  for (size_t r = 0; r < 2; ++r) {
    for (size_t j = 0; j < 8; ++j) {
      const bool set = (j + r) % 3 != 0;
      const float v = static_cast<float>(8 * r + j);
      bad += At<float>(io, 256 + 4 * (8 * r + j)) != (set ? -1.0f : v);
      bad += At<float>(io, 384 + 4 * (8 * r + j)) != (set ? v : -1.0f);
    }
  }
  CHECK_EQ(bad, 0);
}

TWIN_TEST(softmax_with_an_unaligned_last_axis_is_named) {
  const std::string err = Violation("softmax_k", [](LocalTensor<uint8_t>& ub) {
    LocalTensor<float> f = ub.ReinterpretCast<float>();
    SoftMax<float>(f[256], f, SoftMaxTiling(), SoftMaxShapeInfo{2, 5, 2, 5});
  });
  CHECK_CONTAINS(err, "AscendC::SoftMax: the last axis (srcK) must be above 0 and 32-byte aligned");
}

TWIN_TEST(static_tensors_address_the_unified_buffer_directly) {
  // Static-tensor programming: tensors at fixed UB addresses, no TPipe; GM -> UB -> Adds -> GM.
  std::vector<float> in(16), out(16, 0.0f);
  for (size_t k = 0; k < 16; ++k) in[k] = static_cast<float>(k);
  twin_test::Run run;
  RunAiv(&run, "static_tensors", [&] {
    LocalTensor<float> a(TPosition::VECCALC, 0, 16), b(TPosition::VECCALC, 1024, 16);
    GlobalTensor<float> gi, go;
    gi.SetGlobalBuffer(in.data(), 16);
    go.SetGlobalBuffer(out.data(), 16);
    DataCopy(a, gi, 16);
    Adds(b, a, 0.5f, 16);
    DataCopy(go, b, 16);
  });
  CHECK_OK(run);
  int bad = 0;
  for (size_t k = 0; k < 16; ++k) bad += out[k] != static_cast<float>(k) + 0.5f;
  CHECK_EQ(bad, 0);
  twin_test::Run past;
  RunAiv(&past, "static_past", [] {
    LocalTensor<float> a(TPosition::VECCALC, 0, 16);
    a.SetValue(16, 1.0f);  // one past its 16 elements
  });
  CHECK_EQ(past.status, SK_TWIN_KERNEL_ERROR);
  twin_test::Run misaligned;
  RunAiv(&misaligned, "static_misaligned", [] { LocalTensor<float> a(TPosition::VECCALC, 16, 8); });
  CHECK_CONTAINS(misaligned.error(), "the address is not 32-byte aligned");
  twin_test::Run beyond;
  RunAiv(&beyond, "static_beyond", [] { LocalTensor<float> a(TPosition::VECIN, 196608 - 32, 16); });
  CHECK_CONTAINS(beyond.error(), "past the Unified Buffer");
}

TWIN_TEST(software_sync_all_waits_for_every_block) {
  // 4 blocks: each writes its mark, syncs, then sums every block's mark; all must see 1 + 2 + 3 + 4.
  std::vector<int32_t> marks(4, 0), sums(4, 0), flags(64, 0);
  twin_test::Run run;
  RunAiv(&run, "soft_sync", [&] {
    const int64_t b = GetBlockIdx();
    GlobalTensor<int32_t> m, gw;
    m.SetGlobalBuffer(marks.data(), 4);
    gw.SetGlobalBuffer(flags.data(), 64);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 128);
    m.SetValue(b, static_cast<int32_t>(b + 1));
    SyncAll(gw, buf.Get<int32_t>());
    int32_t total = 0;
    for (int i = 0; i < 4; ++i) total += m.GetValue(i);
    sums[b] = total;
  }, 4);
  CHECK_OK(run);
  for (int i = 0; i < 4; ++i) CHECK_EQ(sums[i], 10);
  twin_test::Run part;
  RunAiv(&part, "soft_sync_part", [&] {
    GlobalTensor<int32_t> gw;
    gw.SetGlobalBuffer(flags.data(), 64);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 128);
    SyncAll(gw, buf.Get<int32_t>(), 2);
  }, 4);
  CHECK_CONTAINS(part.error(), "the CPU twin syncs all cores only");
}

constexpr TQueConfig kQueConf = {false, false, false, 0, 1, 0, {}, false, false};

TWIN_TEST(a_queue_configured_by_tque_config_moves_tensors) {
  std::vector<float> in(8, 2.0f), out(8, 0.0f);
  twin_test::Run run;
  RunAiv(&run, "tque_config", [&] {
    TPipe pipe;
    TQue<TPosition::VECIN, 1, &kQueConf> q;
    pipe.InitBuffer(q, 1, 32);
    GlobalTensor<float> gi, go;
    gi.SetGlobalBuffer(in.data(), 8);
    go.SetGlobalBuffer(out.data(), 8);
    LocalTensor<float> t = q.AllocTensor<float>();
    DataCopy(t, gi, 8);
    q.EnQue(t);
    LocalTensor<float> u = q.DeQue<float>();
    DataCopy(go, u, 8);
    q.FreeTensor(u);
  });
  CHECK_OK(run);
  CHECK_EQ(out[7], 2.0f);
}

TWIN_TEST(untyped_deque_returns_the_buffer_handle) {
  uint64_t phy = 1, handle = 2;
  int64_t left = -1;
  twin_test::Run run;
  RunAiv(&run, "untyped_deque", [&] {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> q;
    pipe.InitBuffer(q, 1, 64);
    LocalTensor<float> t = q.AllocTensor<float>();
    phy = t.GetPhyAddr();
    q.EnQue(t);
    handle = reinterpret_cast<uintptr_t>(q.DeQue());
    left = q.HasTensorInQue() ? 1 : 0;
    q.FreeTensor(t);
  });
  CHECK_OK(run);
  CHECK_EQ(handle, phy);
  CHECK_EQ(left, 0);
}

TWIN_TEST(data_copy_pad_pointer_forms_move_and_pad) {
  // 10 floats from GM into UB, padded on the right with 6 x -1 to the 64-byte block end, then 10 back out.
  std::vector<float> gm(16, 0.0f), out(16, 7.0f);
  for (size_t k = 0; k < 10; ++k) gm[k] = static_cast<float>(k) + 0.5f;
  std::vector<uint8_t> io(4096, 0);
  WithUb(&io, [&](LocalTensor<uint8_t>& ub) {
    float* u = reinterpret_cast<float*>(ub.GetPhyAddr()) + 64;
    DataCopyPadGm2UBImpl(u, gm.data(), DataCopyExtParams(1, 40, 0, 0, 0),
                         DataCopyPadExtParams<float>(true, 0, 6, -1.0f));
    DataCopyPadUB2GMImpl(out.data(), u, DataCopyExtParams(1, 40, 0, 0, 0));
  });
  int bad = 0;
  for (size_t k = 0; k < 16; ++k) {
    bad += At<float>(io, 256 + 4 * k) != (k < 10 ? gm[k] : -1.0f);
    bad += out[k] != (k < 10 ? gm[k] : 7.0f);
  }
  CHECK_EQ(bad, 0);
}

TWIN_TEST(data_copy_pad_pointer_outside_every_buffer_is_named) {
  std::vector<float> gm(8, 1.0f);
  const std::string err = Violation("pad_ptr", [&](LocalTensor<uint8_t>& ub) {
    float* u = reinterpret_cast<float*>(ub.GetPhyAddr()) + 4096 / sizeof(float);  // just past the 4 KiB buffer
    DataCopyPadGm2UBImpl(u, gm.data(), DataCopyExtParams(1, 32, 0, 0, 0), DataCopyPadExtParams<float>());
  });
  CHECK_CONTAINS(err, "DataCopyPadGm2UBImpl");
  CHECK_CONTAINS(err, "is not inside a live buffer");
}

TWIN_TEST(scalar_cast_rounds_by_its_mode) {
  CHECK_EQ((ScalarCast<float, int32_t, RoundMode::CAST_ROUND>(2.5f)), 3);
  CHECK_EQ((ScalarCast<float, int32_t, RoundMode::CAST_ROUND>(-2.5f)), -3);
  CHECK_EQ((ScalarCast<float, int32_t, RoundMode::CAST_RINT>(2.5f)), 2);
  CHECK_EQ((ScalarCast<float, int32_t, RoundMode::CAST_FLOOR>(-1.5f)), -2);
  CHECK_EQ((ScalarCast<float, half, RoundMode::CAST_RINT>(1.0f / 3.0f)).bits_, RefHalf(1.0 / 3.0));
}

TWIN_TEST(tque_sync_counts_its_flags_and_trap_stops_the_launch) {
  twin_test::Run run;
  RunAiv(&run, "sync", [] {
    TQueSync<PIPE_MTE2, PIPE_V> sync;
    sync.SetFlag(0);
    sync.WaitFlag(0);
  });
  CHECK_OK(run);
  CHECK_EQ(run.counter(SK_TWIN_COUNTER_PIPE_FLAG), 2u);
  twin_test::Run pre;
  RunAiv(&pre, "preload", [] { PRELOAD(2); });
  CHECK_OK(pre);
  CHECK_EQ(pre.counter(SK_TWIN_COUNTER_PRELOAD_UNITS), 2u);
  twin_test::Run trapped;
  RunAiv(&trapped, "trapper", [] { Trap(); });
  CHECK_EQ(trapped.status, SK_TWIN_KERNEL_ERROR);
  CHECK_CONTAINS(trapped.error(), "AscendC::Trap() was called");
}

TWIN_TEST(a_kernels_own_ceil_div_wins_over_ascendc_s) {
  const int64_t n = 1000000;
  CHECK_EQ(CeilDiv(n, 3), 333334u);  // AscendC's 16-bit form would truncate
  CHECK_EQ(BRCB_BROADCAST_NUMBER, 8u);
  CHECK_EQ(ONE_BLK_FLOAT_NUM, 8u);
  static_assert(AscendC::CeilAlign(33, 32) == 64 && AscendC::CeilAlign(65535, 2) == 0, "16-bit, wraps like the device");
}

}  // namespace

int main(int argc, char** argv) { return twin_test::Main(argc, argv); }
