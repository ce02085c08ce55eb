// The ways out of L0C (sk_twin_fixpipe.h), and the Matmul API's SetQuantScalar/SetQuantVector, on an int8_t matmul done by hand (DataCopy ND2NZ, LoadData, Mmad),
// against references worked out here: C by plain integer loops (B given transposed, rows of k), DEQF16 and
// VDEQF16 results as the exact product with the 19-bit scale rounded once to half by a search over encodings
// (ascendc_util.h RefHalf), the NZ destination layout (Z columns dstStride 32-byte blocks apart) and the ND
// layout of SetFixpipeNz2ndFlag (ndNum matrices) computed from their documented formulas; and the rules named.
#include <cmath>
#include <algorithm>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "ascendc_util.h"
#include "lib/matmul_intf.h"
#include "matmul_test_util.h"

using namespace AscendC;
using ascendc_test::RefHalf;

namespace {

constexpr int kM = 20, kN = 32, kK = 64;  // m not a multiple of 16; two Z columns; two 32-byte k blocks
constexpr int kM16 = 32, kM1 = 2, kN1 = 2, kK1 = 2;

std::vector<int8_t> A() {
  std::vector<int8_t> a(kM * kK);
  for (int i = 0; i < kM * kK; ++i) a[i] = static_cast<int8_t>((i * 37 + 11) % 255 - 127);
  return a;
}
std::vector<int8_t> Bt() {  // B transposed: n rows of k
  std::vector<int8_t> b(kN * kK);
  for (int i = 0; i < kN * kK; ++i) b[i] = static_cast<int8_t>((i * 53 + 5) % 251 - 125);
  return b;
}
// C = A * B by dot products, summed from the last k down (integers: any order is exact).
std::vector<int64_t> RefC() {
  const std::vector<int8_t> a = A(), b = Bt();
  std::vector<int64_t> c(kM * kN);
  for (int i = 0; i < kM; ++i) {
    for (int j = 0; j < kN; ++j) {
      int64_t s = 0;
      for (int q = kK - 1; q >= 0; --q) s += int64_t{a[i * kK + q]} * b[j * kK + q];
      c[i * kN + j] = s;
    }
  }
  return c;
}

void RunAic(twin_test::Run* run, const char* name, std::function<void()> body) {
  ascendc_test::Body() = std::move(body);
  twin_test::Launch(run, name, ascendc_test::BodyEntry, {1, 1, 0}, {0}, 3000);
}

// Runs `out(l0c, pipe)` after C = A * B (int32_t) is in L0C.
void WithC(const char* name, const std::function<void(LocalTensor<int32_t>&, TPipe&)>& out, bool expect_ok = true,
           std::string* error = nullptr) {
  static std::vector<int8_t> a, b;
  a = A();
  b = Bt();
  twin_test::Run run;
  RunAic(&run, name, [&] {
    TPipe pipe;
    TBuf<TPosition::A1> la1;
    TBuf<TPosition::B1> lb1;
    TBuf<TPosition::A2> la2;
    TBuf<TPosition::B2> lb2;
    TBuf<TPosition::CO1> lc;
    pipe.InitBuffer(la1, kM16 * kK);
    pipe.InitBuffer(lb1, kN * kK);
    pipe.InitBuffer(la2, kM16 * kK);
    pipe.InitBuffer(lb2, kN * kK);
    pipe.InitBuffer(lc, kM16 * kN * 4);
    GlobalTensor<int8_t> ga, gb;
    ga.SetGlobalBuffer(a.data(), a.size());
    gb.SetGlobalBuffer(b.data(), b.size());
    LocalTensor<int8_t> a1 = la1.Get<int8_t>(), b1 = lb1.Get<int8_t>(), a2 = la2.Get<int8_t>(), b2 = lb2.Get<int8_t>();
    DataCopy(a1, ga, Nd2NzParams(1, kM, kK, 0, kK, kM16, 1, 0));  // fractal (mb, kb) at kb * kM1 + mb
    DataCopy(b1, gb, Nd2NzParams(1, kN, kK, 0, kK, kN, 1, 0));    // fractal (nb, kb) at kb * kN1 + nb: L0B's order
    for (int mb = 0; mb < kM1; ++mb) LoadData(a2[mb * kK1 * 512], a1, LoadData2DParams(mb, kK1, kM1, 0, 0, false, 0));
    LoadData(b2, b1, LoadData2DParams(0, kK1 * kN1, 1, 0, 0, false, 0));
    LocalTensor<int32_t> c = lc.Get<int32_t>();
    MmadParams mp;
    mp.m = kM;
    mp.n = kN;
    mp.k = kK;
    Mmad(c, a2, b2, mp);
    out(c, pipe);
  });
  if (expect_ok) {
    CHECK_OK(run);
  } else {
    CHECK_EQ(run.status, SK_TWIN_KERNEL_ERROR);
    *error = run.error();
  }
}

// The fixpipe multiplies in float: the exact product of the (exactly converted) value and the scale, rounded
// once to float, then to the destination.
double F32(double exact) { return static_cast<double>(static_cast<float>(exact)); }

float Masked19(uint64_t word) {  // the scale the fixpipe uses: the low word's upper 19 bits
  const uint32_t bits = static_cast<uint32_t>(word) & 0xFFFFE000u;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint64_t DeqWord(float scale, uint32_t low_noise) {  // as SetQuantScalar's documentation builds it, plus noise
  uint32_t bits;
  std::memcpy(&bits, &scale, 4);
  return (uint64_t{1} << 46) | bits | low_noise;
}

TWIN_TEST(fixpipe_deqf16_scales_int32_to_half_by_the_19_bit_scalar) {
  static std::vector<uint16_t> out(kM * kN, 0xffff);
  const float scale = 0.0234375f;  // 1.5 * 2^-6: exact in 19 bits
  WithC("deqf16", [&](LocalTensor<int32_t>& c, TPipe&) {
    GlobalTensor<half> g;
    g.SetGlobalBuffer(reinterpret_cast<half*>(out.data()), out.size());
    FixpipeParamsV220 fp(kN, kM, kM16, kN, false);
    fp.quantPre = QuantMode_t::DEQF16;
    fp.deqScalar = DeqWord(scale, 0x1fffu);  // the low 13 bits are not part of the scale
    Fixpipe(g, c, fp);
  });
  const std::vector<int64_t> c = RefC();
  for (int i = 0; i < kM * kN; ++i) CHECK_EQ(out[i], RefHalf(F32(static_cast<double>(c[i]) * 0.0234375)));
}

TWIN_TEST(fixpipe_vdeqf16_to_nz_takes_each_columns_scale_from_l1) {
  static std::vector<uint64_t> scales(kN);
  for (int j = 0; j < kN; ++j) scales[j] = DeqWord(0.001f * static_cast<float>(j + 1) - 0.013f, 0);
  constexpr int kDstStride = kM16 + 2;  // 32-byte blocks between Z columns: two blocks of gap
  static std::vector<uint16_t> out(kN1 * kDstStride * 16, 0xffff);
  WithC("vdeqf16_nz", [&](LocalTensor<int32_t>& c, TPipe& pipe) {
    TBuf<TPosition::C1> lq;
    pipe.InitBuffer(lq, kN * 8);
    GlobalTensor<uint64_t> gq;
    gq.SetGlobalBuffer(scales.data(), scales.size());
    LocalTensor<uint64_t> q = lq.Get<uint64_t>();
    DataCopy(q, gq, kN);
    GlobalTensor<half> g;
    g.SetGlobalBuffer(reinterpret_cast<half*>(out.data()), out.size());
    FixpipeParamsV220 fp(kN, kM, kM16, kDstStride, false);
    fp.quantPre = QuantMode_t::VDEQF16;
    Fixpipe<half, int32_t, CFG_NZ>(g, c, q, fp);
  });
  const std::vector<int64_t> c = RefC();
  std::vector<bool> written(out.size(), false);
  for (int i = 0; i < kM; ++i) {
    for (int j = 0; j < kN; ++j) {
      const size_t at = (j / 16) * kDstStride * 16 + i * 16 + j % 16;  // in half elements (32 bytes = 16)
      CHECK_EQ(out[at], RefHalf(F32(static_cast<double>(c[i * kN + j]) * Masked19(scales[j]))));
      written[at] = true;
    }
  }
  for (size_t k = 0; k < out.size(); ++k) {
    if (!written[k]) CHECK_EQ(out[k], 0xffff);  // rows past mSize and the gap stay
  }
}

TWIN_TEST(datacopy_from_l0c_reads_the_nz2nd_registers) {
  // Each Z column (16 columns of C) as one of ndNum = 2 ND matrices: srcNdStride = kM16 * 16 * 4 / 1024 = 2,
  // matrix i at i * dstNdStride elements.
  constexpr int kDstNd = kM * 16 + 8;
  static std::vector<int32_t> out(2 * kDstNd, -1);
  WithC("nz2nd_flag", [&](LocalTensor<int32_t>& c, TPipe&) {
    GlobalTensor<int32_t> g;
    g.SetGlobalBuffer(out.data(), out.size());
    SetFixpipeNz2ndFlag(2, 2, kDstNd);
    DataCopyCO12DstParams p(16, kM, 16, kM16, QuantMode_t::NoQuant, 0, false, true);
    p.unitFlag = UFMode3;
    DataCopy(g, c, p);
  });
  const std::vector<int64_t> c = RefC();
  for (int i = 0; i < 2; ++i) {
    for (int r = 0; r < kM; ++r) {
      for (int col = 0; col < 16; ++col) CHECK_EQ(int64_t{out[i * kDstNd + r * 16 + col]}, c[r * kN + i * 16 + col]);
    }
    for (int gap = kM * 16; gap < kDstNd; ++gap) CHECK_EQ(out[i * kDstNd + gap], -1);
  }
}

TWIN_TEST(datacopy_from_l0c_to_l1_writes_nz_with_the_pre_quant_scalar) {
  // DEQF16 through SetFixpipePreQuantFlag, NZ into L1, then L1 back to GM as plain bytes.
  static std::vector<uint16_t> out(kN1 * kM16 * 16, 0xffff);
  const float scale = -0.375f;
  WithC("l0c_to_l1", [&](LocalTensor<int32_t>& c, TPipe& pipe) {
    TBuf<TPosition::A1> l1;
    pipe.InitBuffer(l1, static_cast<uint32_t>(out.size() * 2));
    LocalTensor<half> y = l1.Get<half>();
    GlobalTensor<half> g;
    g.SetGlobalBuffer(reinterpret_cast<half*>(out.data()), out.size());
    DataCopy(y, g, static_cast<uint32_t>(out.size()));  // start from the 0xffff pattern
    SetFixpipePreQuantFlag(DeqWord(scale, 0));
    DataCopy(y, c, DataCopyCO12DstParams(kN, kM, kM16, kM16, QuantMode_t::DEQF16, 0, false, false));
    DataCopy(g, y, static_cast<uint32_t>(out.size()));
  });
  const std::vector<int64_t> c = RefC();
  for (int i = 0; i < kM; ++i) {
    for (int j = 0; j < kN; ++j) {
      CHECK_EQ(out[(j / 16) * kM16 * 16 + i * 16 + j % 16], RefHalf(F32(static_cast<double>(c[i * kN + j]) * -0.375)));
    }
  }
  CHECK_EQ(out[kM * 16], 0xffff);  // row kM of the first Z column: past mSize
}

TWIN_TEST(fixpipe_rules_are_named) {
  std::string e;
  static std::vector<int8_t> small(64);
  WithC("int8_nz", [](LocalTensor<int32_t>& c, TPipe&) {
    GlobalTensor<int8_t> g;
    g.SetGlobalBuffer(small.data(), small.size());
    FixpipeParamsV220 fp(kN, kM, kM16, kM16, false);
    fp.quantPre = QuantMode_t::REQ8;
    Fixpipe<int8_t, int32_t, CFG_NZ>(g, c, fp);
  }, false, &e);
  CHECK_CONTAINS(e, "an 8-bit NZ destination");
  WithC("vdeq_without_tensor", [](LocalTensor<int32_t>& c, TPipe&) {
    GlobalTensor<half> g;
    g.SetGlobalBuffer(reinterpret_cast<half*>(small.data()), small.size() / 2);
    FixpipeParamsV220 fp(kN, kM, kM16, kN, false);
    fp.quantPre = QuantMode_t::VDEQF16;
    Fixpipe(g, c, fp);
  }, false, &e);
  CHECK_CONTAINS(e, "(a vector mode) without a quantisation tensor");
  WithC("mcb", [](LocalTensor<int32_t>& c, TPipe&) {
    GlobalTensor<half> g;
    g.SetGlobalBuffer(reinterpret_cast<half*>(small.data()), small.size() / 2);
    FixpipeParamsV220 fp(16, 1, kM16, 16, false);
    fp.quantPre = QuantMode_t::DEQF16;
    fp.deqScalar = DeqWord(1.0f, 0) | (uint64_t{1} << 36);
    Fixpipe(g, c, fp);
  }, false, &e);
  CHECK_CONTAINS(e, "sets bit 36");
  WithC("nd_flag_range", [](LocalTensor<int32_t>&, TPipe&) { SetFixpipeNz2ndFlag(2, 0, 16); }, false, &e);
  CHECK_CONTAINS(e, "srcNdStride is 0");
  WithC("nz_stride", [](LocalTensor<int32_t>& c, TPipe&) {
    GlobalTensor<int32_t> g;
    g.SetGlobalBuffer(reinterpret_cast<int32_t*>(small.data()), small.size() / 4);
    DataCopy(g, c, DataCopyCO12DstParams(kN, kM, 8, kM16, QuantMode_t::NoQuant, 0, false, false));
  }, false, &e);
  CHECK_CONTAINS(e, "dstStride 8 blocks is less than mSize rows of a Z column");
}

using QA = MatmulType<TPosition::GM, CubeFormat::ND, int8_t>;
using QB = MatmulType<TPosition::GM, CubeFormat::ND, int8_t, true>;
using QC = MatmulType<TPosition::GM, CubeFormat::ND, half>;
using QBias = MatmulType<TPosition::GM, CubeFormat::ND, int32_t>;

TWIN_TEST(matmul_set_quant_scalar_and_vector_give_half_c) {
  static std::vector<int8_t> a, b;
  a = A();
  b = Bt();
  static std::vector<int32_t> bias(kN);
  for (int j = 0; j < kN; ++j) bias[j] = 1000 * j - 7777;
  static std::vector<uint64_t> scales(kN);
  for (int j = 0; j < kN; ++j) scales[j] = DeqWord(0.5f / static_cast<float>(j + 3), 0);
  static std::vector<uint16_t> c1(kM * kN, 0xffff), c2(kM * kN, 0xffff);
  twin_test::Run run;
  RunAic(&run, "mm_quant", [&] {
    TCubeTiling t = matmul_test::Tiling(kM, kN, kK, 16, 16);  // Iterate over 16 x 16 blocks for the vector case
    GlobalTensor<int8_t> ga, gb;
    ga.SetGlobalBuffer(a.data(), a.size());
    gb.SetGlobalBuffer(b.data(), b.size());
    GlobalTensor<half> g1, g2;
    g1.SetGlobalBuffer(reinterpret_cast<half*>(c1.data()), c1.size());
    g2.SetGlobalBuffer(reinterpret_cast<half*>(c2.data()), c2.size());
    GlobalTensor<int32_t> gbias;
    gbias.SetGlobalBuffer(bias.data(), bias.size());
    GlobalTensor<uint64_t> gq;
    gq.SetGlobalBuffer(scales.data(), scales.size());
    Matmul<QA, QB, QC, QBias> mm;
    mm.Init(&t);
    mm.SetTensorA(ga);
    mm.SetTensorB(gb, true);
    mm.SetQuantScalar(DeqWord(0.0234375f, 0x1234u));
    mm.IterateAll(g1);
    mm.SetBias(gbias);
    mm.SetQuantVector(gq);
    while (mm.Iterate()) mm.GetTensorC(g2);
    mm.End();
  });
  CHECK_OK(run);
  const std::vector<int64_t> c = RefC();
  for (int i = 0; i < kM; ++i) {
    for (int j = 0; j < kN; ++j) {
      CHECK_EQ(c1[i * kN + j], RefHalf(F32(static_cast<double>(c[i * kN + j]) * 0.0234375)));
      CHECK_EQ(c2[i * kN + j], RefHalf(F32(static_cast<double>(c[i * kN + j] + bias[j]) * Masked19(scales[j]))));
    }
  }
}

TWIN_TEST(matmul_int8_to_half_without_a_scale_is_named) {
  static std::vector<int8_t> a(kM * kK), b(kN * kK);
  static std::vector<uint16_t> c(kM * kN);
  std::string e;
  twin_test::Run run;
  RunAic(&run, "mm_no_scale", [&] {
    TCubeTiling t = matmul_test::Tiling(kM, kN, kK);
    GlobalTensor<int8_t> ga, gb;
    ga.SetGlobalBuffer(a.data(), a.size());
    gb.SetGlobalBuffer(b.data(), b.size());
    GlobalTensor<half> gc;
    gc.SetGlobalBuffer(reinterpret_cast<half*>(c.data()), c.size());
    Matmul<QA, QB, QC> mm;
    mm.Init(&t);
    mm.SetTensorA(ga);
    mm.SetTensorB(gb, true);
    mm.IterateAll(gc);
  });
  CHECK_EQ(run.status, SK_TWIN_KERNEL_ERROR);
  CHECK_CONTAINS(run.error(), "call SetQuantScalar or SetQuantVector");
}

TWIN_TEST(legacy_fixpipe_params_map_bursts_onto_the_move) {
  // FixpipeParams<int32_t>: 2 bursts of 16 columns, burstLen 40 blocks (20 rows of 16 int32_t), no source gap.
  // NZ2ND with originalNSize 32 into rows of 35 half elements, DEQF16; then NZ (no NZ2ND) with a 3-block gap.
  constexpr int kRow = 35, kGap = 3;
  static std::vector<uint16_t> nd(kM * kRow, 0xffff);
  static std::vector<int32_t> nz(2 * (kM * 16 + kGap * 8), -1);
  const float scale = 0.0625f;
  WithC("legacy_fixpipe", [&](LocalTensor<int32_t>& c, TPipe&) {
    GlobalTensor<half> g;
    g.SetGlobalBuffer(reinterpret_cast<half*>(nd.data()), nd.size());
    FixpipeParams<int32_t> p(2, kM * 2, 0, kRow);
    p.quantParams = QuantParams(QuantMode_t::DEQF16, DeqWord(scale, 0));
    p.nz2ndParams = Nz2NdParams(true, 1, 0, 0, kN);
    Fixpipe(g, c, p);
    GlobalTensor<int32_t> gz;
    gz.SetGlobalBuffer(nz.data(), nz.size());
    Fixpipe(gz, c, FixpipeParams<int32_t>(2, kM * 2, 0, kGap));
  });
  const std::vector<int64_t> c = RefC();
  for (int i = 0; i < kM; ++i) {
    for (int j = 0; j < kN; ++j) {
      CHECK_EQ(nd[i * kRow + j], RefHalf(F32(static_cast<double>(c[i * kN + j]) * 0.0625)));
      // Z column j / 16 starts (burst 40 blocks + gap 3 blocks) * 8 int32_t after the previous one.
      CHECK_EQ(int64_t{nz[(j / 16) * (kM * 16 + kGap * 8) + i * 16 + j % 16]}, c[i * kN + j]);
    }
    for (int j = kN; j < kRow; ++j) CHECK_EQ(nd[i * kRow + j], 0xffff);
  }
  CHECK_EQ(nz[kM * 16], -1);  // the gap after the first Z column
}

// int4b_t A (20 x 64) and B (given transposed, 32 x 64): values -8..7 packed two a byte, element 2k low.
std::vector<uint8_t> Pack4(const std::vector<int>& v) {
  std::vector<uint8_t> out(v.size() / 2);
  for (size_t i = 0; i < v.size(); ++i) out[i / 2] |= static_cast<uint8_t>((v[i] & 0xf) << (i % 2 ? 4 : 0));
  return out;
}

TWIN_TEST(matmul_int4_operands_to_int32_and_dequantised_half) {
  using A4 = MatmulType<TPosition::GM, CubeFormat::ND, int4b_t>;
  using B4 = MatmulType<TPosition::GM, CubeFormat::ND, int4b_t, true>;
  using CI = MatmulType<TPosition::GM, CubeFormat::ND, int32_t>;
  std::vector<int> av(kM * kK), bv(kN * kK);
  for (int i = 0; i < kM * kK; ++i) av[i] = (i * 7 + 3) % 16 - 8;
  for (int i = 0; i < kN * kK; ++i) bv[i] = (i * 11 + 5) % 16 - 8;
  static std::vector<uint8_t> a, b;
  a = Pack4(av);
  b = Pack4(bv);
  static std::vector<int32_t> ci(kM * kN, -1);
  static std::vector<uint16_t> ch(kM * kN, 0xffff);
  twin_test::Run run;
  RunAic(&run, "mm_int4", [&] {
    TCubeTiling t = matmul_test::Tiling(kM, kN, kK);
    GlobalTensor<int4b_t> ga, gb;
    ga.SetGlobalBuffer(reinterpret_cast<__gm__ int4b_t*>(a.data()), kM * kK);
    gb.SetGlobalBuffer(reinterpret_cast<__gm__ int4b_t*>(b.data()), kN * kK);
    GlobalTensor<int32_t> gi;
    gi.SetGlobalBuffer(ci.data(), ci.size());
    GlobalTensor<half> gh;
    gh.SetGlobalBuffer(reinterpret_cast<half*>(ch.data()), ch.size());
    Matmul<A4, B4, CI> mi;
    mi.Init(&t);
    mi.SetTensorA(ga);
    mi.SetTensorB(gb, true);
    mi.IterateAll(gi);
    Matmul<A4, B4, QC> mh;
    mh.Init(&t);
    mh.SetTensorA(ga);
    mh.SetTensorB(gb, true);
    mh.SetQuantScalar(DeqWord(-0.75f, 0));
    mh.IterateAll(gh);
  });
  CHECK_OK(run);
  for (int i = 0; i < kM; ++i) {
    for (int j = 0; j < kN; ++j) {
      int64_t s = 0;
      for (int q = 0; q < kK; ++q) s += int64_t{av[i * kK + q]} * bv[j * kK + q];
      CHECK_EQ(int64_t{ci[i * kN + j]}, s);
      CHECK_EQ(ch[i * kN + j], RefHalf(F32(static_cast<double>(s) * -0.75)));
    }
  }
}

// int4b_t A in L1 (TSCM, NZ): a fractal row holds C0 = 64 elements (32 bytes), so A (20 x 128) is two column
// blocks of 32 rows x 64; the image is written here block by block from the ND values, then packed.
TWIN_TEST(matmul_int4_a_in_tscm_nz) {
  constexpr int m = 20, n = 32, k = 128, height = 32;
  using A4 = MatmulType<TPosition::TSCM, CubeFormat::NZ, int4b_t>;
  using B4 = MatmulType<TPosition::GM, CubeFormat::ND, int4b_t, true>;
  using CI = MatmulType<TPosition::GM, CubeFormat::ND, int32_t>;
  std::vector<int> av(m * k), bv(n * k), image;
  for (int i = 0; i < m * k; ++i) av[i] = (i * 5 + 1) % 16 - 8;
  for (int i = 0; i < n * k; ++i) bv[i] = (i * 3 + 7) % 16 - 8;
  for (int block = 0; block < k / 64; ++block) {
    for (int r = 0; r < height; ++r) {
      for (int c = block * 64; c < block * 64 + 64; ++c) image.push_back(r < m ? av[r * k + c] : 0);
    }
  }
  static std::vector<uint8_t> a, b;
  a = Pack4(image);
  b = Pack4(bv);
  static std::vector<int32_t> ci(m * n, -1);
  twin_test::Run run;
  RunAic(&run, "mm_int4_tscm", [&] {
    TPipe pipe;
    TBuf<TPosition::TSCM> l1;
    pipe.InitBuffer(l1, static_cast<uint32_t>(a.size()));
    TCubeTiling t = matmul_test::Tiling(m, n, k);
    GlobalTensor<int4b_t> ga, gb;
    ga.SetGlobalBuffer(reinterpret_cast<__gm__ int4b_t*>(a.data()), image.size());
    gb.SetGlobalBuffer(reinterpret_cast<__gm__ int4b_t*>(b.data()), n * k);
    GlobalTensor<int32_t> gi;
    gi.SetGlobalBuffer(ci.data(), ci.size());
    LocalTensor<int4b_t> al1 = l1.Get<int4b_t>();
    DataCopy(al1, ga, static_cast<uint32_t>(image.size()));
    Matmul<A4, B4, CI> mm;
    mm.Init(&t, &pipe);
    mm.SetTensorA(al1);
    mm.SetTensorB(gb, true);
    mm.IterateAll(gi);
    mm.End();
  });
  CHECK_OK(run);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      int64_t s = 0;
      for (int q = 0; q < k; ++q) s += int64_t{av[i * k + q]} * bv[j * k + q];
      CHECK_EQ(int64_t{ci[i * n + j]}, s);
    }
  }
}

// (V)REQ8 by the documented QUANT_PRE fields: M1 x value in float, clamped to [-256, 255], rounded to the nearest
// integer (ties to even), plus the 9-bit offset, saturated to int8_t (bit 46) or uint8_t; here with std::rint.
uint8_t RefReq8(int64_t c, uint64_t word) {
  double v = F32(static_cast<double>(c) * Masked19(word));
  v = std::rint(v < -256.0 ? -256.0 : v > 255.0 ? 255.0 : v);
  const int off9 = static_cast<int>((word >> 37) & 0x1FF);
  const int64_t r = static_cast<int64_t>(v) + (off9 >= 256 ? off9 - 512 : off9);
  if ((word >> 46) & 1) return static_cast<uint8_t>(static_cast<int8_t>(r < -128 ? -128 : r > 127 ? 127 : r));
  return static_cast<uint8_t>(r < 0 ? 0 : r > 255 ? 255 : r);
}

TWIN_TEST(fixpipe_and_matmul_requantise_int32_to_8_bits) {
  // Fixpipe REQ8 to int8_t (signed, offset -5) and Matmul SetQuantVector to int8_t (unsigned bit, offset +3,
  // per-column scales around the values' range so that both saturations happen).
  const uint64_t word = DeqWord(0.0078125f, 0x0abcu) | (uint64_t{0x1FB} << 37);  // DeqWord sets bit 46
  static std::vector<uint8_t> fx(kM * kN, 0x5a), mm(kM * kN, 0x5a);
  static std::vector<uint64_t> vec(kN);
  for (int j = 0; j < kN; ++j) vec[j] = (DeqWord(0.002f * static_cast<float>(j % 7 + 1), 0) & ~(uint64_t{1} << 46)) |
                                        (uint64_t{3} << 37);
  WithC("req8", [&](LocalTensor<int32_t>& c, TPipe&) {
    GlobalTensor<int8_t> g;
    g.SetGlobalBuffer(reinterpret_cast<int8_t*>(fx.data()), fx.size());
    FixpipeParamsV220 fp(kN, kM, kM16, kN, false);
    fp.quantPre = QuantMode_t::REQ8;
    fp.deqScalar = word;
    Fixpipe(g, c, fp);
  });
  static std::vector<int8_t> a, b;
  a = A();
  b = Bt();
  twin_test::Run run;
  RunAic(&run, "mm_req8", [&] {
    TCubeTiling t = matmul_test::Tiling(kM, kN, kK);
    GlobalTensor<int8_t> ga, gb, gc;
    ga.SetGlobalBuffer(a.data(), a.size());
    gb.SetGlobalBuffer(b.data(), b.size());
    gc.SetGlobalBuffer(reinterpret_cast<int8_t*>(mm.data()), mm.size());
    GlobalTensor<uint64_t> gq;
    gq.SetGlobalBuffer(vec.data(), vec.size());
    Matmul<QA, QB, MatmulType<TPosition::GM, CubeFormat::ND, int8_t>> q;
    q.Init(&t);
    q.SetTensorA(ga);
    q.SetTensorB(gb, true);
    q.SetQuantVector(gq);
    q.IterateAll(gc);
  });
  CHECK_OK(run);
  const std::vector<int64_t> c = RefC();
  int low = 0, high = 0;
  for (int i = 0; i < kM * kN; ++i) {
    CHECK_EQ(fx[i], RefReq8(c[i], word));
    CHECK_EQ(mm[i], RefReq8(c[i], vec[i % kN]));
    low += mm[i] == 0;
    high += mm[i] == 255;
  }
  CHECK(low > 0 && high > 0);  // both ends of uint8_t saturate somewhere
}

TWIN_TEST(matmul_async_get_tensor_c_returns_blocks_in_the_workspace) {
  // C in VECIN, int32_t: Iterate<false>() once, then GetTensorC() per 16 x 16 block (M first: (0,0), (1,0),
  // (0,1), (1,1); the M tail is 4 rows). The workspace holds two blocks, so the third reuses the first slot: each
  // block is checked when it is returned.
  using CV = MatmulType<TPosition::VECIN, CubeFormat::ND, int32_t>;
  static std::vector<int8_t> a, b;
  a = A();
  b = Bt();
  static std::vector<int32_t> ws(2 * 16 * 16, -1);
  static std::vector<std::vector<int32_t>> got;
  got.clear();
  twin_test::Run run;
  RunAic(&run, "mm_async", [&] {
    TCubeTiling t = matmul_test::Tiling(kM, kN, kK, 16, 16);
    GlobalTensor<int8_t> ga, gb;
    ga.SetGlobalBuffer(a.data(), a.size());
    gb.SetGlobalBuffer(b.data(), b.size());
    Matmul<QA, QB, CV> mm;
    mm.Init(&t);
    mm.SetWorkspace(reinterpret_cast<GM_ADDR>(ws.data()), static_cast<int>(ws.size() * 4));
    mm.SetTensorA(ga);
    mm.SetTensorB(gb, true);
    mm.template Iterate<false>();
    for (int k = 0; k < 4; ++k) {
      GlobalTensor<int32_t> blk = mm.GetTensorC();
      const int rows = (k % 2 == 0) ? 16 : kM - 16;
      std::vector<int32_t> v(rows * 16);
      for (int e = 0; e < rows * 16; ++e) v[e] = blk.GetValue(e);
      got.push_back(v);
    }
    mm.End();
  });
  CHECK_OK(run);
  const std::vector<int64_t> c = RefC();
  CHECK_EQ(got.size(), size_t{4});
  for (int k = 0; k < 4 && k < static_cast<int>(got.size()); ++k) {
    const int r0 = (k % 2) * 16, c0 = (k / 2) * 16, rows = (k % 2 == 0) ? 16 : kM - 16;
    for (int i = 0; i < rows; ++i) {
      for (int j = 0; j < 16; ++j) CHECK_EQ(int64_t{got[k][i * 16 + j]}, c[(r0 + i) * kN + c0 + j]);
    }
  }
}

TWIN_TEST(matmul_get_tensor_c_sequential_write_puts_the_block_alone) {
  using CI = MatmulType<TPosition::GM, CubeFormat::ND, int32_t>;
  static std::vector<int8_t> a, b;
  a = A();
  b = Bt();
  static std::vector<std::vector<int32_t>> got;
  got.clear();
  static std::vector<int32_t> blk(16 * 16 + 4, -1);
  twin_test::Run run;
  RunAic(&run, "mm_seq", [&] {
    TCubeTiling t = matmul_test::Tiling(kM, kN, kK, 16, 16);
    GlobalTensor<int8_t> ga, gb;
    ga.SetGlobalBuffer(a.data(), a.size());
    gb.SetGlobalBuffer(b.data(), b.size());
    GlobalTensor<int32_t> gc;
    gc.SetGlobalBuffer(blk.data(), blk.size());
    Matmul<QA, QB, CI> mm;
    mm.Init(&t);
    mm.SetTensorA(ga);
    mm.SetTensorB(gb, true);
    while (mm.Iterate()) {
      std::fill(blk.begin(), blk.end(), -1);
      mm.GetTensorC(gc, 0, true);
      got.push_back(blk);
    }
  });
  CHECK_OK(run);
  const std::vector<int64_t> c = RefC();
  CHECK_EQ(got.size(), size_t{4});
  for (int k = 0; k < 4 && k < static_cast<int>(got.size()); ++k) {
    const int r0 = (k % 2) * 16, c0 = (k / 2) * 16, rows = (k % 2 == 0) ? 16 : kM - 16;
    for (int i = 0; i < rows; ++i) {
      for (int j = 0; j < 16; ++j) CHECK_EQ(int64_t{got[k][i * 16 + j]}, c[(r0 + i) * kN + c0 + j]);
    }
    CHECK_EQ(got[k][rows * 16], -1);  // nothing past the block
  }
}

}  // namespace

int main(int argc, char** argv) { return twin_test::Main(argc, argv); }
