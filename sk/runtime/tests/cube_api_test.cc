// The cube's basic data path on the twin: a matmul done the way CANN's matmul kernels do it by hand
// (DataCopy GM->L1 with ND2NZ, LoadData L1->L0A/L0B, Mmad into L0C, Fixpipe L0C->GM with NZ2ND), checked
// against a plain loop, and the hardware rules the twin enforces on these calls.
#include <functional>
#include <string>
#include <vector>

#include "ascendc_util.h"

using namespace AscendC;
using ascendc_test::AicViolation;
using ascendc_test::H;
using ascendc_test::RunAic;
using ascendc_test::RefHalf;

namespace {

std::vector<half> Values(size_t n, int seed) {
  std::vector<half> v(n);
  uint32_t x = 777u + static_cast<uint32_t>(seed);
  for (auto& h : v) {
    x = x * 1103515245u + 12345u;
    h = H((static_cast<double>((x >> 8) % 2001) - 1000.0) / 128.0);
  }
  return v;
}

constexpr int kFrac = 256;  // half elements in a 512-byte fractal (16 x 16)

int Up16(int v) { return (v + 15) / 16 * 16; }

// C (m x n, row stride ldc) = A (m x k) B (k x n), all ND in GM, A and B half, C float or half. The k fractals
// [0, kSplit/16) and the rest go through L0 in two steps, the second accumulating in L0C (cmatrixInitVal false).
template <typename CT>
void CubeMatmul(half* a, half* b, CT* c, int m, int n, int k, int kSplit, int ldc, QuantMode_t quant) {
  const int m16 = Up16(m), n16 = Up16(n), k16 = Up16(k);
  const int m1 = m16 / 16, n1 = n16 / 16, k1 = k16 / 16;
  TPipe pipe;
  TQue<TPosition::A1, 1> qa1;
  TQue<TPosition::B1, 1> qb1;
  TQue<TPosition::A2, 1> qa2;
  TQue<TPosition::B2, 1> qb2;
  TQue<TPosition::CO1, 1> qc;
  pipe.InitBuffer(qa1, 1, m16 * k16 * 2);
  pipe.InitBuffer(qb1, 1, k16 * n16 * 2);
  pipe.InitBuffer(qa2, 1, m16 * k16 * 2);
  pipe.InitBuffer(qb2, 1, k16 * n16 * 2);
  pipe.InitBuffer(qc, 1, m16 * n16 * 4);
  GlobalTensor<half> ga, gb;
  GlobalTensor<CT> gc;
  ga.SetGlobalBuffer(a, static_cast<uint64_t>(m) * k);
  gb.SetGlobalBuffer(b, static_cast<uint64_t>(k) * n);
  gc.SetGlobalBuffer(c, static_cast<uint64_t>(m) * ldc);

  LocalTensor<half> a1 = qa1.AllocTensor<half>(), b1 = qb1.AllocTensor<half>();
  Nd2NzParams pa;  // A: m rows of k, column blocks m16 rows apart
  pa.ndNum = 1;
  pa.nValue = m;
  pa.dValue = k;
  pa.srcDValue = k;
  pa.dstNzC0Stride = m16;
  pa.dstNzNStride = 1;
  DataCopy(a1, ga, pa);
  DataCopy(b1, gb, Nd2NzParams(1, k, n, 0, n, k16, 1, 0));  // B: k rows of n
  LocalTensor<float> l0c = qc.AllocTensor<float>();
  LocalTensor<half> a2 = qa2.AllocTensor<half>(), b2 = qb2.AllocTensor<half>();
  const int steps[2][2] = {{0, kSplit / 16}, {kSplit / 16, k1}};
  for (int s = 0; s < 2; ++s) {
    const int kb0 = steps[s][0], kc = steps[s][1] - kb0;
    // L1 A (NZ: fractal (mb, kb) at kb*m1+mb) -> L0A (Zz: (mb, kb-kb0) at mb*kc + kb-kb0).
    for (int mb = 0; mb < m1; ++mb) {
      LoadData2DParams p;
      p.startIndex = kb0 * m1 + mb;
      p.repeatTimes = kc;
      p.srcStride = m1;
      LoadData(a2[mb * kc * kFrac], a1, p);
    }
    // L1 B (NZ: fractal (kb, nb) at nb*k1+kb, rows inside) -> L0B (Zn: (kb-kb0, nb) at (kb-kb0)*n1+nb,
    // columns inside): each fractal transposed.
    for (int kb = kb0; kb < kb0 + kc; ++kb) {
      LoadData(b2[(kb - kb0) * n1 * kFrac], b1, LoadData2DParams(kb, n1, k1, 0, 0, true, 0));
    }
    MmadParams mp;
    mp.m = m;
    mp.n = n;
    mp.k = (s == 0 ? kSplit : k - kSplit);
    mp.cmatrixInitVal = s == 0;
    Mmad(l0c, a2, b2, mp);
  }
  FixpipeParamsV220 fp(n, m, m16, ldc, false);
  fp.quantPre = quant;
  Fixpipe(gc, l0c, fp);
  qa1.FreeTensor(a1);
  qb1.FreeTensor(b1);
  qa2.FreeTensor(a2);
  qb2.FreeTensor(b2);
  qc.FreeTensor(l0c);
}

// Products of two binary16 values are exact in float; one float rounding per add, in k order.
std::vector<float> Reference(const std::vector<half>& a, const std::vector<half>& b, int m, int n, int k) {
  std::vector<float> c(static_cast<size_t>(m) * n);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int p = 0; p < k; ++p) {
        acc += static_cast<float>(a[i * k + p].ToDouble()) * static_cast<float>(b[p * n + j].ToDouble());
      }
      c[static_cast<size_t>(i) * n + j] = acc;
    }
  }
  return c;
}

TWIN_TEST(nd2nz_loaddata_mmad_fixpipe_float_matches_plain_loops) {
  const int m = 20, n = 24, k = 40, ldc = 30;  // none a multiple of 16; C rows wider than n
  std::vector<half> a = Values(m * k, 1), b = Values(k * n, 2);
  std::vector<float> c(m * ldc, -7.0f);
  twin_test::Run run;
  RunAic(&run, "cube_f32", [&] { CubeMatmul<float>(a.data(), b.data(), c.data(), m, n, k, 32, ldc, NoQuant); });
  CHECK_OK(run);
  const std::vector<float> want = Reference(a, b, m, n, k);
  int bad = 0, untouched = 0;
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < ldc; ++j) {
      if (j < n) bad += !ascendc_test::SameFloat(c[i * ldc + j], want[i * n + j]);
      else untouched += c[i * ldc + j] == -7.0f;
    }
  }
  CHECK_EQ(bad, 0);
  CHECK_EQ(untouched, m * (ldc - n));  // Fixpipe writes nSize of each dstStride-long row
}

TWIN_TEST(fixpipe_f322f16_rounds_to_nearest_even) {
  const int m = 16, n = 16, k = 48;
  std::vector<half> a = Values(m * k, 3), b = Values(k * n, 4), c(m * n, H(0.0));
  twin_test::Run run;
  RunAic(&run, "cube_f16", [&] { CubeMatmul<half>(a.data(), b.data(), c.data(), m, n, k, 16, n, F322F16); });
  CHECK_OK(run);
  const std::vector<float> want = Reference(a, b, m, n, k);
  int bad = 0;
  for (int i = 0; i < m * n; ++i) bad += c[i].bits_ != RefHalf(want[i]);
  CHECK_EQ(bad, 0);
}

// int8_t: fractals of 16 x 32; B given transposed (n x k) in GM, so its NZ image in L1 already is the Zn layout
// of L0B and one LoadData moves it whole. Products summed exactly in int32_t.
TWIN_TEST(int8_matmul_accumulates_in_int32) {
  const int m = 17, n = 16, k = 64;
  std::vector<int8_t> a(m * k), bt(n * k);
  for (int i = 0; i < m * k; ++i) a[i] = static_cast<int8_t>((i * 37) % 255 - 127);
  for (int i = 0; i < n * k; ++i) bt[i] = static_cast<int8_t>((i * 91 + 5) % 255 - 127);
  std::vector<int32_t> c(m * n, -1);
  twin_test::Run run;
  RunAic(&run, "cube_i8", [&] {
    const int m1 = 2, k1 = 2, n1 = 1;
    TPipe pipe;
    TBuf<TPosition::A1> la1;
    TBuf<TPosition::B1> lb1;
    TBuf<TPosition::A2> la2;
    TBuf<TPosition::B2> lb2;
    TBuf<TPosition::CO1> lc;
    pipe.InitBuffer(la1, m1 * k1 * 512);
    pipe.InitBuffer(lb1, k1 * n1 * 512);
    pipe.InitBuffer(la2, m1 * k1 * 512);
    pipe.InitBuffer(lb2, k1 * n1 * 512);
    pipe.InitBuffer(lc, m1 * n1 * 1024);
    GlobalTensor<int8_t> ga, gb;
    GlobalTensor<int32_t> gc;
    ga.SetGlobalBuffer(a.data(), a.size());
    gb.SetGlobalBuffer(bt.data(), bt.size());
    gc.SetGlobalBuffer(c.data(), c.size());
    LocalTensor<int8_t> a1 = la1.Get<int8_t>(), b1 = lb1.Get<int8_t>(), a2 = la2.Get<int8_t>(), b2 = lb2.Get<int8_t>();
    DataCopy(a1, ga, Nd2NzParams(1, m, k, 0, k, m1 * 16, 1, 0));
    DataCopy(b1, gb, Nd2NzParams(1, n, k, 0, k, n1 * 16, 1, 0));
    for (int mb = 0; mb < m1; ++mb) LoadData(a2[mb * k1 * 512], a1, LoadData2DParams(mb, k1, m1, 0, 0, false, 0));
    LoadData(b2, b1, LoadData2DParams(0, k1 * n1, 1, 0, 0, false, 0));
    LocalTensor<int32_t> l0c = lc.Get<int32_t>();
    Mmad(l0c, a2, b2, MmadParams(m, n, k, false, 0, false, false, false));
    Fixpipe(gc, l0c, FixpipeParamsV220(n, m, m1 * 16, n, false));
  });
  CHECK_OK(run);
  int bad = 0;
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      int32_t want = 0;
      for (int p = 0; p < k; ++p) want += int32_t{a[i * k + p]} * int32_t{bt[j * k + p]};
      bad += c[i * n + j] != want;
    }
  }
  CHECK_EQ(bad, 0);
}

// Two ND matrices in one DataCopy (srcNdMatrixStride, dstNzMatrixStride), rows dstNzNStride blocks apart, and the
// zeros that pad a row's last column block; read back on the AIC.
TWIN_TEST(nd2nz_places_each_element_by_the_documented_strides) {
  const int rows = 3, cols = 20, src_d = 24, nd_stride = 80;  // two 3 x 20 matrices inside 24-wide GM rows
  std::vector<half> gm(2 * nd_stride);
  for (int i = 0; i < 2 * nd_stride; ++i) gm[i] = H(i);
  const int c0_stride = 8, n_stride = 2, dst_nd = 512;  // in 32-byte blocks, blocks, elements
  std::vector<double> l1(2 * dst_nd, -1.0);
  twin_test::Run run;
  RunAic(&run, "nd2nz_strides", [&] {
    TPipe pipe;
    TBuf<TPosition::B1> buf;
    pipe.InitBuffer(buf, 2 * dst_nd * 2);
    GlobalTensor<half> g;
    g.SetGlobalBuffer(gm.data(), gm.size());
    LocalTensor<half> t = buf.Get<half>();
    for (int i = 0; i < 2 * dst_nd; ++i) t.SetValue(i, H(-1.0));
    DataCopy(t, g, Nd2NzParams(2, rows, cols, nd_stride, src_d, c0_stride, n_stride, dst_nd));
    for (int i = 0; i < 2 * dst_nd; ++i) l1[i] = t.GetValue(i).ToDouble();
  });
  CHECK_OK(run);
  std::vector<double> want(2 * dst_nd, -1.0);
  for (int i = 0; i < 2; ++i) {
    for (int r = 0; r < rows; ++r) {
      for (int c = 0; c < 32; ++c) {  // two column blocks of 16; columns 20..31 are the zero padding
        want[i * dst_nd + (c / 16) * c0_stride * 16 + r * n_stride * 16 + c % 16] =
            c < cols ? static_cast<double>(i * nd_stride + r * src_d + c) : 0.0;
      }
    }
  }
  int bad = 0;
  for (int i = 0; i < 2 * dst_nd; ++i) bad += l1[i] != want[i];
  CHECK_EQ(bad, 0);
}

// Fill: in L1 blocks of 32 bytes, in L0A of 512 bytes; runs dstGap blocks apart; InitConstValue is the same call.
TWIN_TEST(fill_sets_runs_of_blocks_in_l1_and_l0a) {
  std::vector<float> l1(64), l0a(3 * 128);
  twin_test::Run run;
  RunAic(&run, "fill", [&] {
    TPipe pipe;
    TBuf<TPosition::A1> b1;
    TBuf<TPosition::A2> b2;
    pipe.InitBuffer(b1, 64 * 4);
    pipe.InitBuffer(b2, 3 * 512);
    LocalTensor<float> t1 = b1.Get<float>(), t2 = b2.Get<float>();
    for (int i = 0; i < 64; ++i) t1.SetValue(i, -1.0f);
    for (int i = 0; i < 3 * 128; ++i) t2.SetValue(i, -1.0f);
    Fill(t1, InitConstValueParams<float>(3, 1, 1, 2.5f));  // blocks 0, 2, 4 of 8 floats
    InitConstValue(t2, {1, 2, 0, 0.5f});                  // fractals 0 and 1
    for (int i = 0; i < 64; ++i) l1[i] = t1.GetValue(i);
    for (int i = 0; i < 3 * 128; ++i) l0a[i] = t2.GetValue(i);
  });
  CHECK_OK(run);
  int bad = 0;
  for (int i = 0; i < 64; ++i) bad += l1[i] != ((i / 8) % 2 == 0 && i < 40 ? 2.5f : -1.0f);
  for (int i = 0; i < 3 * 128; ++i) bad += l0a[i] != (i < 256 ? 0.5f : -1.0f);
  CHECK_EQ(bad, 0);
}

TWIN_TEST(loaddata_past_l0a_buffer_is_named) {
  static std::vector<half> gm(16 * 64, H(1.0));
  const std::string e = AicViolation("l0a_oob", [] {
    TPipe pipe;
    TQue<TPosition::A1, 1> qa1;
    TQue<TPosition::A2, 1> qa2;
    pipe.InitBuffer(qa1, 1, 4 * 512);
    pipe.InitBuffer(qa2, 1, 2 * 512);
    LocalTensor<half> a1 = qa1.AllocTensor<half>(), a2 = qa2.AllocTensor<half>();
    LoadData(a2, a1, LoadData2DParams(0, 4, 1, 0, 0, false, 0));  // 4 fractals into a 2-fractal buffer
  });
  CHECK_CONTAINS(e, "LoadData<half>(L1->L0, LoadData2DParams{startIndex 0, repeatTimes 4");
  CHECK_CONTAINS(e, "dst is accessed at L0A [0, 2048), outside its buffer [0, 1024)");
}

TWIN_TEST(init_buffer_past_l0a_size_is_named) {
  const std::string e = AicViolation("l0a_full", [] {
    TPipe pipe;
    TQue<TPosition::A2, 2> qa2;
    pipe.InitBuffer(qa2, 2, 40 * 1024);
  });
  CHECK_CONTAINS(e, "needs 81920 bytes in TPosition::A2 at L0A offset 0, but the L0A is 65536 bytes");
}

TWIN_TEST(loaddata_dst_not_512_byte_aligned_is_named) {
  const std::string e = AicViolation("l0a_align", [] {
    TPipe pipe;
    TQue<TPosition::A1, 1> qa1;
    TQue<TPosition::A2, 1> qa2;
    pipe.InitBuffer(qa1, 1, 2048);
    pipe.InitBuffer(qa2, 1, 2048);
    LocalTensor<half> a1 = qa1.AllocTensor<half>(), a2 = qa2.AllocTensor<half>();
    LoadData(a2[16], a1, LoadData2DParams(0, 1, 1, 0, 0, false, 0));
  });
  CHECK_CONTAINS(e, "dst starts at L0A address 32, not a multiple of 512");
}

TWIN_TEST(mmad_operands_in_the_wrong_buffers_are_named) {
  const std::string e = AicViolation("mmad_pos", [] {
    TPipe pipe;
    TQue<TPosition::A2, 1> qa2;
    TQue<TPosition::B2, 1> qb2;
    TQue<TPosition::CO1, 1> qc;
    pipe.InitBuffer(qa2, 1, 512);
    pipe.InitBuffer(qb2, 1, 512);
    pipe.InitBuffer(qc, 1, 1024);
    LocalTensor<half> a2 = qa2.AllocTensor<half>(), b2 = qb2.AllocTensor<half>();
    LocalTensor<float> c = qc.AllocTensor<float>();
    Mmad(c, b2, a2, MmadParams(16, 16, 16, false, 0, false, false, false));  // A and B swapped
  });
  CHECK_CONTAINS(e, "Mmad<float, half>(MmadParams{m 16, n 16, k 16, C = A*B})");
  CHECK_CONTAINS(e, "fm is in L0B");
  CHECK_CONTAINS(e, "fm in TPosition::A2 (L0A)");
}

TWIN_TEST(nd2nz_into_l0a_and_bad_ranges_are_named) {
  static std::vector<half> gm(256, H(1.0));
  const std::string e = AicViolation("nd2nz_pos", [] {
    TPipe pipe;
    TQue<TPosition::A2, 1> qa2;
    pipe.InitBuffer(qa2, 1, 512);
    GlobalTensor<half> g;
    g.SetGlobalBuffer(gm.data(), gm.size());
    LocalTensor<half> a2 = qa2.AllocTensor<half>();
    DataCopy(a2, g, Nd2NzParams(1, 16, 16, 0, 16, 16, 1, 0));
  });
  CHECK_CONTAINS(e, "dst is in L0A");
  CHECK_CONTAINS(e, "dst in TPosition::A1/B1 (L1)");
  const std::string r = AicViolation("nd2nz_range", [] {
    TPipe pipe;
    TQue<TPosition::A1, 1> qa1;
    pipe.InitBuffer(qa1, 1, 512);
    GlobalTensor<half> g;
    g.SetGlobalBuffer(gm.data(), gm.size());
    LocalTensor<half> a1 = qa1.AllocTensor<half>();
    DataCopy(a1, g, Nd2NzParams(1, 16, 16, 0, 16, 0, 1, 0));  // dstNzC0Stride 0
  });
  CHECK_CONTAINS(r, "dstNzC0Stride is 0");
  CHECK_CONTAINS(r, "dstNzC0Stride in [1, 16384]");
}

TWIN_TEST(fixpipe_src_stride_below_m_and_gm_overrun_are_named) {
  static std::vector<float> out(16 * 16);
  const std::string e = AicViolation("fixpipe_stride", [] {
    TPipe pipe;
    TQue<TPosition::CO1, 1> qc;
    pipe.InitBuffer(qc, 1, 32 * 16 * 4);
    GlobalTensor<float> g;
    g.SetGlobalBuffer(out.data(), out.size());
    LocalTensor<float> c = qc.AllocTensor<float>();
    Fixpipe(g, c, FixpipeParamsV220(16, 32, 16, 16, false));  // mSize 32 but Z columns 16 rows apart
  });
  CHECK_CONTAINS(e, "srcStride 16 is less than mSize rounded up to 16");
  const std::string o = AicViolation("fixpipe_gm", [] {
    TPipe pipe;
    TQue<TPosition::CO1, 1> qc;
    pipe.InitBuffer(qc, 1, 32 * 16 * 4);
    GlobalTensor<float> g;
    g.SetGlobalBuffer(out.data(), out.size());
    LocalTensor<float> c = qc.AllocTensor<float>();
    Fixpipe(g, c, FixpipeParamsV220(16, 32, 32, 16, false));  // 32 rows into a 16-row C
  });
  CHECK_CONTAINS(o, "Fixpipe<float, float, CFG_ROW_MAJOR>");
}

TWIN_TEST(cube_buffers_are_not_reachable_from_an_aiv) {
  twin_test::Run run;
  ascendc_test::RunAiv(&run, "aiv_l0c", [] {
    TPipe pipe;
    TQue<TPosition::CO1, 1> qc;
    pipe.InitBuffer(qc, 1, 1024);
    LocalTensor<float> c = qc.AllocTensor<float>();
    c.SetValue(0, 1.0f);
  });
  CHECK_EQ(run.status, SK_TWIN_KERNEL_ERROR);
  CHECK_CONTAINS(run.error(), "lives in the cube's L0C, which an AIV does not have");
}

}  // namespace

int main(int argc, char** argv) { return twin_test::Main(argc, argv); }
