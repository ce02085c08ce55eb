// The convolution's img2col load on the twin (sk_twin_conv.h): LoadData with LoadData3DParamsV2 into L0A / L0B,
// read back through Mmad with an identity matrix and Fixpipe, against the img2col matrix built here by walking
// the convolution's windows in their natural order (output pixel, then channel block, filter row, filter column,
// channel) over a plain C x H x W feature map; and the registers (SetFmatrix, SetLoadDataPaddingValue, ...) and
// the rules the twin enforces, named at the call.
#include <functional>
#include <string>
#include <vector>

#include "ascendc_util.h"

using namespace AscendC;
using ascendc_test::AicViolation;
using ascendc_test::H;
using ascendc_test::RunAic;

namespace {

struct Conv {
  int c, h, w;                 // the feature map, channels a multiple of C0
  int fh, fw, sh, sw, dh, dw;  // filter, strides, dilations
  int pad[4];                  // left, right, top, bottom
  int m_start, m_ext, k_start, k_ext;
  double pad_value;
};

// The img2col window of a map x[c][h][w]: rows m_start.. (m_ext of them, rounded up to 16), columns
// k_start.. (k_ext), each row the window of one output pixel listed channel block by channel block.
std::vector<double> Img2col(const Conv& v, const std::vector<double>& x, int c0) {
  const int w_out = (v.w + v.pad[0] + v.pad[1] - ((v.fw - 1) * v.dw + 1)) / v.sw + 1;
  const int rows = (v.m_ext + 15) / 16 * 16;
  std::vector<double> t;
  for (int m = v.m_start; m < v.m_start + rows; ++m) {
    std::vector<double> row;
    const int ho = m / w_out, wo = m % w_out;
    for (int cb = 0; cb < v.c / c0; ++cb) {
      for (int kh = 0; kh < v.fh; ++kh) {
        for (int kw = 0; kw < v.fw; ++kw) {
          for (int ci = 0; ci < c0; ++ci) {
            const int hh = ho * v.sh + kh * v.dh - v.pad[2], ww = wo * v.sw + kw * v.dw - v.pad[0];
            const bool in = hh >= 0 && hh < v.h && ww >= 0 && ww < v.w;
            row.push_back(in ? x[(static_cast<size_t>(cb * c0 + ci) * v.h + hh) * v.w + ww] : v.pad_value);
          }
        }
      }
    }
    t.insert(t.end(), row.begin() + v.k_start, row.begin() + v.k_start + v.k_ext);
  }
  return t;
}

template <typename T>
T Val(double d) {
  return static_cast<T>(d);
}
template <>
half Val<half>(double d) {
  return H(d);
}

// Identity matrices laid out as L0A (Zz: fractal (r/16, c/C0), rows inside) and L0B (Zn: fractal (k/C0, n/16),
// each fractal 16 n-rows of C0 k) hold them, n x n, n a multiple of 16.
template <typename T>
std::vector<T> IdentityZz(int n, int c0) {
  std::vector<T> v(static_cast<size_t>(n) * n, Val<T>(0));
  for (int i = 0; i < n; ++i) v[((i / 16) * (n / c0) + i / c0) * 16 * c0 + (i % 16) * c0 + i % c0] = Val<T>(1);
  return v;
}
template <typename T>
std::vector<T> IdentityZn(int n, int c0) {
  std::vector<T> v(static_cast<size_t>(n) * n, Val<T>(0));
  for (int i = 0; i < n; ++i) v[((i / c0) * (n / 16) + i / 16) * 16 * c0 + (i % 16) * c0 + i % c0] = Val<T>(1);
  return v;
}

enum class Dst { kA, kATransposed, kB };

// Loads the img2col window with LoadData 3D into dst and returns what Mmad with an identity writes: the window
// (rows x k_ext), or its transpose for kATransposed. set_regs: the call leaves Feature Map and pad to
// SetFmatrix / SetLoadDataPaddingValue (IsResetLoad3dConfig {false, false}) and its own fields are nonsense.
constexpr IsResetLoad3dConfig kRegisters = {false, false};

template <typename T>
std::vector<float> ThroughTheCube(const Conv& v, const std::vector<double>& x, Dst dst, bool set_regs,
                                  bool pro = false) {
  const int c0 = 32 / static_cast<int>(sizeof(T));
  const int rows = (v.m_ext + 15) / 16 * 16;
  static std::vector<T> fmap, ident;
  static std::vector<float> out;
  fmap.assign(static_cast<size_t>(v.c) * v.h * v.w, Val<T>(0));  // NC1HWC0
  for (int c = 0; c < v.c; ++c) {
    for (int hh = 0; hh < v.h; ++hh) {
      for (int ww = 0; ww < v.w; ++ww) {
        fmap[((static_cast<size_t>(c / c0) * v.h + hh) * v.w + ww) * c0 + c % c0] =
            Val<T>(x[(static_cast<size_t>(c) * v.h + hh) * v.w + ww]);
      }
    }
  }
  // A x B: M x K times K x N.
  const int m = dst == Dst::kATransposed ? v.k_ext : rows;
  const int n = dst == Dst::kATransposed ? rows : v.k_ext;
  const int k = dst == Dst::kATransposed ? rows : (dst == Dst::kB ? rows : v.k_ext);
  ident = dst == Dst::kB ? IdentityZz<T>(k, c0) : IdentityZn<T>(k, c0);
  out.assign(static_cast<size_t>(m) * n, -7.0f);
  twin_test::Run run;
  RunAic(&run, "img2col", [&v, dst, set_regs, pro, m, n, k, c0] {
    TPipe pipe;
    TQue<TPosition::A1, 1> qf;
    TQue<TPosition::B1, 1> qi;
    TQue<TPosition::A2, 1> qa2;
    TQue<TPosition::B2, 1> qb2;
    TQue<TPosition::CO1, 1> qc;
    pipe.InitBuffer(qf, 1, static_cast<uint32_t>(fmap.size() * sizeof(T)));
    pipe.InitBuffer(qi, 1, static_cast<uint32_t>(ident.size() * sizeof(T)));
    pipe.InitBuffer(qa2, 1, static_cast<uint32_t>(m * k * sizeof(T)));
    pipe.InitBuffer(qb2, 1, static_cast<uint32_t>(k * n * sizeof(T)));
    pipe.InitBuffer(qc, 1, static_cast<uint32_t>(m * n * 4));
    GlobalTensor<T> gf, gi;
    GlobalTensor<float> gc;
    gf.SetGlobalBuffer(fmap.data(), fmap.size());
    gi.SetGlobalBuffer(ident.data(), ident.size());
    gc.SetGlobalBuffer(out.data(), out.size());
    LocalTensor<T> f1 = qf.AllocTensor<T>(), i1 = qi.AllocTensor<T>();
    DataCopy(f1, gf, static_cast<uint32_t>(fmap.size()));
    DataCopy(i1, gi, static_cast<uint32_t>(ident.size()));
    LocalTensor<T> a2 = qa2.AllocTensor<T>(), b2 = qb2.AllocTensor<T>();
    // The identity goes to the other L0 buffer fractal by fractal, as laid out.
    const uint8_t fracs = static_cast<uint8_t>(ident.size() * sizeof(T) / 512);
    LoadData(dst == Dst::kB ? a2 : b2, i1, LoadData2DParams(0, fracs, 1, 0, 0, false, 0));
    LoadData3DParamsV2<T> p;
    p.channelSize = static_cast<uint16_t>(v.c);
    p.kExtension = static_cast<uint16_t>(v.k_ext);
    p.mExtension = static_cast<uint16_t>(v.m_ext);
    p.kStartPt = static_cast<uint16_t>(v.k_start);
    p.mStartPt = static_cast<uint16_t>(v.m_start);
    p.strideH = static_cast<uint8_t>(v.sh);
    p.strideW = static_cast<uint8_t>(v.sw);
    p.filterH = static_cast<uint8_t>(v.fh);
    p.filterW = static_cast<uint8_t>(v.fw);
    p.dilationFilterH = static_cast<uint8_t>(v.dh);
    p.dilationFilterW = static_cast<uint8_t>(v.dw);
    p.enTranspose = dst == Dst::kATransposed;
    LocalTensor<T>& into = dst == Dst::kB ? b2 : a2;
    if (pro) {
      // LoadData3DParamsV2Pro: the map from Load3DSetFMatrixCal, the window and filter packed by hand.
      const uint8_t pads[PAD_SIZE] = {static_cast<uint8_t>(v.pad[0]), static_cast<uint8_t>(v.pad[1]),
                                      static_cast<uint8_t>(v.pad[2]), static_cast<uint8_t>(v.pad[3])};
      Load3DSetFMatrixCal(static_cast<uint16_t>(v.h), static_cast<uint16_t>(v.w), pads);
      SetLoadDataPaddingValue(Val<T>(v.pad_value));
      const uint64_t ext = uint64_t(v.k_ext) + (uint64_t(v.m_ext) << 16) + (uint64_t(v.k_start) << 32) +
                           (uint64_t(v.m_start) << 48);
      const uint64_t filt = uint64_t(v.sw) + (uint64_t(v.sh) << 8) + (uint64_t(v.fw) << 16) +
                            (uint64_t(v.fh) << 24) + (uint64_t(v.dw) << 32) + (uint64_t(v.dh) << 40);
      LoadData(into, f1, LoadData3DParamsV2Pro(static_cast<uint16_t>(v.c), dst == Dst::kATransposed, false, false,
                                               false, false, ext, filt));
    } else if (set_regs) {
      const uint8_t pads[PAD_SIZE] = {static_cast<uint8_t>(v.pad[0]), static_cast<uint8_t>(v.pad[1]),
                                      static_cast<uint8_t>(v.pad[2]), static_cast<uint8_t>(v.pad[3])};
      SetFmatrix(static_cast<uint16_t>(v.h), static_cast<uint16_t>(v.w), pads, FmatrixMode::FMATRIX_LEFT);
      SetLoadDataPaddingValue(Val<T>(v.pad_value));
      SetLoadDataRepeat(LoadDataRepeatParam(0, 1, 0));
      SetLoadDataBoundary(0);
      p.l1H = 1;  // ignored: the registers hold the map
      p.l1W = 9;
      p.padValue = Val<T>(99);
      LoadDataImpl<T, kRegisters>(into, f1, p);  // the implementation name, as conv3d_backprop calls it
    } else {
      p.l1H = static_cast<uint16_t>(v.h);
      p.l1W = static_cast<uint16_t>(v.w);
      for (int i = 0; i < 4; ++i) p.padList[i] = static_cast<uint8_t>(v.pad[i]);
      p.padValue = Val<T>(v.pad_value);
      LoadData(into, f1, p);
    }
    LocalTensor<float> c = qc.AllocTensor<float>();
    Mmad(c, a2, b2, MmadParams(static_cast<uint16_t>(m), static_cast<uint16_t>(n), static_cast<uint16_t>(k), false, 0,
                               false, false, false));
    Fixpipe(gc, c, FixpipeParamsV220(static_cast<uint16_t>(n), static_cast<uint16_t>(m),
                                     static_cast<uint16_t>((m + 15) / 16 * 16), static_cast<uint32_t>(n), false));
    (void)c0;
  });
  CHECK_OK(run);
  return out;
}

std::vector<double> Map(const Conv& v, int seed) {
  std::vector<double> x(static_cast<size_t>(v.c) * v.h * v.w);
  uint32_t s = 1234u + static_cast<uint32_t>(seed);
  for (auto& d : x) {
    s = s * 1103515245u + 12345u;
    d = (static_cast<double>((s >> 8) % 1001) - 500.0) / 64.0;  // exact in half
  }
  return x;
}

int Mismatches(const std::vector<float>& got, const std::vector<double>& want, int rows, int cols, bool transposed) {
  int bad = 0;
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      const double w = want[static_cast<size_t>(r) * cols + c];
      const float g = transposed ? got[static_cast<size_t>(c) * rows + r] : got[static_cast<size_t>(r) * cols + c];
      if (static_cast<double>(g) != w && ++bad <= 5) {
        std::fprintf(stderr, "  T[%d][%d]: got %g, want %g\n", r, c, static_cast<double>(g), w);
      }
    }
  }
  return bad;
}

// 32 channels (two C0 blocks of half), a 5 x 6 map, a 3 x 2 filter with stride 2 x 1, dilation 1 x 2 and uneven
// padding; a window of rows 3.. (20, i.e. two fractals) and columns 32..127 of the 192.
const Conv kHalfConv = {32, 5, 6, 3, 2, 2, 1, 1, 2, {1, 0, 2, 1}, 3, 20, 32, 96, 0.5};

TWIN_TEST(img2col_into_l0a_matches_the_windows_half) {
  const auto x = Map(kHalfConv, 1);
  const auto want = Img2col(kHalfConv, x, 16);
  CHECK_EQ(Mismatches(ThroughTheCube<half>(kHalfConv, x, Dst::kA, false), want, 32, 96, false), 0);
}

TWIN_TEST(img2col_into_l0a_transposed_half) {
  const auto x = Map(kHalfConv, 2);
  CHECK_EQ(Mismatches(ThroughTheCube<half>(kHalfConv, x, Dst::kATransposed, false), Img2col(kHalfConv, x, 16), 32, 96,
                      true),
           0);
}

TWIN_TEST(img2col_into_l0b_is_b_with_the_windows_as_k_half) {
  const auto x = Map(kHalfConv, 3);
  CHECK_EQ(Mismatches(ThroughTheCube<half>(kHalfConv, x, Dst::kB, false), Img2col(kHalfConv, x, 16), 32, 96, false),
           0);
}

// float: C0 = 8; 16 channels, a 4 x 7 map, 2 x 3 filter, stride 1 x 2, pads on every side, padValue -2.25.
const Conv kFloatConv = {16, 4, 7, 2, 3, 1, 2, 1, 1, {2, 1, 1, 1}, 0, 16, 8, 80, -2.25};

TWIN_TEST(img2col_float_into_l0a_and_l0b) {
  const auto x = Map(kFloatConv, 4);
  const auto want = Img2col(kFloatConv, x, 8);
  CHECK_EQ(Mismatches(ThroughTheCube<float>(kFloatConv, x, Dst::kA, false), want, 16, 80, false), 0);
  CHECK_EQ(Mismatches(ThroughTheCube<float>(kFloatConv, x, Dst::kB, false), want, 16, 80, false), 0);
}

TWIN_TEST(registers_set_by_setfmatrix_and_padding_value_are_what_loaddata_reads) {
  const auto x = Map(kHalfConv, 5);
  CHECK_EQ(Mismatches(ThroughTheCube<half>(kHalfConv, x, Dst::kA, true), Img2col(kHalfConv, x, 16), 32, 96, false), 0);
  const auto y = Map(kFloatConv, 6);
  CHECK_EQ(Mismatches(ThroughTheCube<float>(kFloatConv, y, Dst::kB, true), Img2col(kFloatConv, y, 8), 16, 80, false),
           0);
}

// LoadDataWithTranspose's documented element loops, per type, filling an L0 buffer of `fracs` 512-byte fractals
// (elements, not bytes): 16-bit transposes one 16 x 16 fractal per repeat; 32-bit takes two 16 x 8 fractals (a
// 16 x 16 square, left and right) and writes each 8 x 8 quarter transposed; 8-bit two 16 x 32 fractals (a 32 x 32
// square, top and bottom), each destination row a column of the square.
template <typename T>
std::vector<T> TransposeLoops(const std::vector<T>& src, int start, int repeat, int src_stride, int dst_gap,
                              int frac_gap, int fracs) {
  const int frac = 512 / static_cast<int>(sizeof(T));
  std::vector<T> dst(static_cast<size_t>(fracs) * frac, Val<T>(0));
  for (int i = 0; i < repeat; ++i) {
    const int d0 = (dst_gap + 1) * i * frac;
    if (sizeof(T) == 2) {
      const int s0 = (start + src_stride * i) * 256;
      for (int k = 0; k < 16; ++k) {
        for (int c = 0; c < 16; ++c) dst[d0 + k * 16 + c] = src[s0 + k + c * 16];
      }
    } else if (sizeof(T) == 1) {
      const int s0 = (start + src_stride * i) * 1024;
      for (int j = 0; j < 2; ++j) {
        for (int k = 0; k < 16; ++k) {
          for (int c = 0; c < 32; ++c) dst[d0 + frac * (frac_gap + 1) * j + k * 32 + c] = src[s0 + j * 16 + k + c * 32];
        }
      }
    } else {
      const int s0 = (start + src_stride * i) * 256;
      const int quarter[4][2] = {{0, 0}, {64, (frac_gap + 1) * frac}, {frac, 64}, {frac + 64, (frac_gap + 1) * frac + 64}};
      for (const auto& qd : quarter) {
        for (int k = 0; k < 8; ++k) {
          for (int c = 0; c < 8; ++c) dst[d0 + qd[1] + 8 * k + c] = src[s0 + qd[0] + k + 8 * c];
        }
      }
    }
  }
  return dst;
}

// src (in L1) -> LoadDataWithTranspose -> L0B, read through Mmad with an identity A (M = k rows of B) as B
// (k x n, Zn); returns C and, for the check, B as the documented loops leave L0B and Zn reads it.
template <typename T, typename C>
void TransposeCase(int start, int repeat, int src_stride, int dst_gap, int frac_gap, int k, int n) {
  const int c0 = 32 / static_cast<int>(sizeof(T));
  static std::vector<T> src, ident;
  static std::vector<C> out;
  const int src_elems = (start + (repeat - 1) * src_stride + 1) * (sizeof(T) == 1 ? 1024 : 256);
  src.resize(static_cast<size_t>(src_elems));
  for (int i = 0; i < src_elems; ++i) src[i] = Val<T>(static_cast<double>((i * 37 + 11) % 101 - 50));
  ident = IdentityZz<T>(k, c0);
  out.assign(static_cast<size_t>(k) * n, C(-7));
  twin_test::Run run;
  RunAic(&run, "transpose", [=] {
    TPipe pipe;
    TQue<TPosition::B1, 1> qs;
    TQue<TPosition::A1, 1> qi;
    TQue<TPosition::A2, 1> qa2;
    TQue<TPosition::B2, 1> qb2;
    TQue<TPosition::CO1, 1> qc;
    pipe.InitBuffer(qs, 1, static_cast<uint32_t>(src.size() * sizeof(T)));
    pipe.InitBuffer(qi, 1, static_cast<uint32_t>(ident.size() * sizeof(T)));
    pipe.InitBuffer(qa2, 1, static_cast<uint32_t>(ident.size() * sizeof(T)));
    pipe.InitBuffer(qb2, 1, static_cast<uint32_t>(k * n * sizeof(T)));
    pipe.InitBuffer(qc, 1, static_cast<uint32_t>(k * n * 4));
    GlobalTensor<T> gs, gi;
    GlobalTensor<C> gc;
    gs.SetGlobalBuffer(src.data(), src.size());
    gi.SetGlobalBuffer(ident.data(), ident.size());
    gc.SetGlobalBuffer(out.data(), out.size());
    LocalTensor<T> s1 = qs.AllocTensor<T>(), i1 = qi.AllocTensor<T>();
    DataCopy(s1, gs, static_cast<uint32_t>(src.size()));
    DataCopy(i1, gi, static_cast<uint32_t>(ident.size()));
    LocalTensor<T> a2 = qa2.AllocTensor<T>(), b2 = qb2.AllocTensor<T>();
    LoadData(a2, i1, LoadData2DParams(0, static_cast<uint8_t>(ident.size() * sizeof(T) / 512), 1, 0, 0, false, 0));
    LoadDataWithTranspose(b2, s1,
                          LoadData2dTransposeParams(static_cast<uint16_t>(start), static_cast<uint8_t>(repeat),
                                                    static_cast<uint16_t>(src_stride), static_cast<uint16_t>(dst_gap),
                                                    static_cast<uint16_t>(frac_gap)));
    LocalTensor<C> c = qc.AllocTensor<C>();
    MmadImpl(c, a2, b2, MmadParams(static_cast<uint16_t>(k), static_cast<uint16_t>(n), static_cast<uint16_t>(k), false,
                                   0, false, false, false));
    Fixpipe(gc, c, FixpipeParamsV220(static_cast<uint16_t>(n), static_cast<uint16_t>(k), static_cast<uint16_t>(k),
                                     static_cast<uint32_t>(n), false));
  });
  CHECK_OK(run);
  const auto l0b = TransposeLoops(src, start, repeat, src_stride, dst_gap, frac_gap, k * n * static_cast<int>(sizeof(T)) / 512);
  int bad = 0;
  for (int kk = 0; kk < k; ++kk) {
    for (int nn = 0; nn < n; ++nn) {
      const double want = static_cast<double>(l0b[((kk / c0) * (n / 16) + nn / 16) * 16 * c0 + (nn % 16) * c0 + kk % c0]);
      const double got = static_cast<double>(out[static_cast<size_t>(kk) * n + nn]);
      if (got != want && ++bad <= 5) std::fprintf(stderr, "  B[%d][%d]: got %g, want %g\n", kk, nn, got, want);
    }
  }
  CHECK_EQ(bad, 0);
}

TWIN_TEST(load_data_with_transpose_matches_the_documented_loops) {
  TransposeCase<half, float>(1, 2, 2, 0, 0, 16, 32);      // squares 1 and 3 into fractals 0 and 1
  TransposeCase<float, float>(0, 2, 1, 1, 0, 16, 32);     // dstGap 1: iterations at fractals 0 and 2
  TransposeCase<float, float>(0, 2, 1, 0, 1, 16, 32);     // dstFracGap 1: an iteration's halves 2 fractals apart
  TransposeCase<int8_t, int32_t>(0, 2, 1, 1, 0, 32, 64);  // 8-bit: two 32 x 32 squares
}

// LoadData 2D from GM straight into L0B: fractals 1, 3 and 5 of six in GM become B's three (k 16 x n 48, Zn);
// read through Mmad with an identity A.
TWIN_TEST(load_data_2d_from_gm_into_l0b) {
  static std::vector<half> gm, ident;
  static std::vector<float> out;
  gm.resize(6 * 256);
  for (size_t i = 0; i < gm.size(); ++i) gm[i] = H(static_cast<double>(static_cast<int>(i % 97) - 48) / 4.0);
  ident = IdentityZz<half>(16, 16);
  out.assign(16 * 48, -7.0f);
  twin_test::Run run;
  RunAic(&run, "gm_load2d", [] {
    TPipe pipe;
    TQue<TPosition::A1, 1> qi;
    TQue<TPosition::A2, 1> qa2;
    TQue<TPosition::B2, 1> qb2;
    TQue<TPosition::CO1, 1> qc;
    pipe.InitBuffer(qi, 1, 512);
    pipe.InitBuffer(qa2, 1, 512);
    pipe.InitBuffer(qb2, 1, 3 * 512);
    pipe.InitBuffer(qc, 1, 16 * 48 * 4);
    GlobalTensor<half> g, gi;
    GlobalTensor<float> gc;
    g.SetGlobalBuffer(gm.data(), gm.size());
    gi.SetGlobalBuffer(ident.data(), ident.size());
    gc.SetGlobalBuffer(out.data(), out.size());
    LocalTensor<half> i1 = qi.AllocTensor<half>(), a2 = qa2.AllocTensor<half>(), b2 = qb2.AllocTensor<half>();
    DataCopy(i1, gi, 256);
    LoadData(a2, i1, LoadData2DParams(0, 1, 1, 0, 0, false, 0));
    LoadData2dParams from_gm = {1, 3, 2, 0, 0, false, 0};  // the other spelling, braced as stft writes it
    LoadData(b2, g, from_gm);
    LocalTensor<float> c = qc.AllocTensor<float>();
    Mmad(c, a2, b2, MmadParams(16, 48, 16, false, 0, false, false, false));
    Fixpipe(gc, c, FixpipeParamsV220(48, 16, 16, 48, false));
  });
  CHECK_OK(run);
  int bad = 0;
  for (int kk = 0; kk < 16; ++kk) {
    for (int nn = 0; nn < 48; ++nn) {  // B[k][n] in L0B fractal n/16 at (n%16)*16 + k: GM fractal 1 + 2*(n/16)
      const double want = gm[(1 + 2 * (nn / 16)) * 256 + (nn % 16) * 16 + kk].ToDouble();
      bad += static_cast<double>(out[kk * 48 + nn]) != want;
    }
  }
  CHECK_EQ(bad, 0);
  const std::string e = AicViolation("gm_transpose", [] {
    TPipe pipe;
    TQue<TPosition::B2, 1> qb2;
    pipe.InitBuffer(qb2, 1, 512);
    GlobalTensor<half> g;
    g.SetGlobalBuffer(gm.data(), gm.size());
    LocalTensor<half> b2 = qb2.AllocTensor<half>();
    LoadData(b2, g, LoadData2DParams(0, 1, 1, 0, 0, true, 0));
  });
  CHECK_CONTAINS(e, "ifTranspose false (only the L1 -> L0 paths transpose)");
  const std::string o = AicViolation("gm_overrun", [] {
    TPipe pipe;
    TQue<TPosition::B2, 1> qb2;
    pipe.InitBuffer(qb2, 1, 2048);
    GlobalTensor<half> g;
    g.SetGlobalBuffer(gm.data(), gm.size());
    LocalTensor<half> b2 = qb2.AllocTensor<half>();
    LoadData(b2, g, LoadData2DParams(4, 3, 1, 0, 0, false, 0));  // fractals 4..6 of six
  });
  CHECK_CONTAINS(o, "LoadData<half>(GM->L0B");
}

// A kernel with an L1 map of 16 half channels, 4 x 4, and L0A room; body gets the tensors.
std::string Load3dViolation(const char* kernel, std::function<void(LocalTensor<half>&, LocalTensor<half>&)> body) {
  return AicViolation(kernel, [body] {
    TPipe pipe;
    TQue<TPosition::A1, 1> q1;
    TQue<TPosition::A2, 1> q2;
    pipe.InitBuffer(q1, 1, 16 * 16 * 2);
    pipe.InitBuffer(q2, 1, 16 * 16 * 2 * 4);
    LocalTensor<half> l1 = q1.AllocTensor<half>(), l0a = q2.AllocTensor<half>();
    body(l1, l0a);
  });
}

LoadData3DParamsV2<half> Small() {
  LoadData3DParamsV2<half> p;
  p.l1H = 4;
  p.l1W = 4;
  p.channelSize = 16;
  p.kExtension = 16;
  p.mExtension = 16;
  return p;
}

TWIN_TEST(load3d_rules_are_named_at_the_call) {
  std::string e = Load3dViolation("no_fmatrix", [](LocalTensor<half>& l1, LocalTensor<half>& l0a) {
    LoadData<half, kRegisters>(l0a, l1, Small());
  });
  CHECK_CONTAINS(e, "isSetFMatrix is false and no SetFmatrix(..., FmatrixMode::FMATRIX_LEFT) came before it");
  e = Load3dViolation("channels", [](LocalTensor<half>& l1, LocalTensor<half>& l0a) {
    auto p = Small();
    p.channelSize = 8;
    LoadData(l0a, l1, p);
  });
  CHECK_CONTAINS(e, "channelSize 8 is not a multiple of C0 = 16");
  e = Load3dViolation("k_range", [](LocalTensor<half>& l1, LocalTensor<half>& l0a) {
    auto p = Small();
    p.kStartPt = 16;
    LoadData(l0a, l1, p);
  });
  CHECK_CONTAINS(e, "columns [16, 32) of an img2col matrix of 16 (channelSize x filterH x filterW)");
  e = Load3dViolation("swapped", [](LocalTensor<half>& l1, LocalTensor<half>& l0a) { LoadData(l1, l0a, Small()); });
  CHECK_CONTAINS(e, "dst in TPosition::A2 (L0A) or B2 (L0B)");
  e = Load3dViolation("repeat", [](LocalTensor<half>&, LocalTensor<half>&) {
    SetLoadDataRepeat(LoadDataRepeatParam(2, 3, 0));
  });
  CHECK_CONTAINS(e, "SetLoadDataRepeat(LoadDataRepeatParam{repeatStride 2, repeatTime 3, repeatMode 0})");
  CHECK_CONTAINS(e, "repeatTime 1 (the CPU twin does not implement LoadData 3D's repeat mode yet)");
  e = Load3dViolation("hf32", [](LocalTensor<half>&, LocalTensor<half>&) { SetHF32Mode(true); });
  CHECK_CONTAINS(e, "SetHF32Mode(true)");
  e = Load3dViolation("stride", [](LocalTensor<half>& l1, LocalTensor<half>& l0a) {
    auto p = Small();
    p.strideW = 64;
    LoadData(l0a, l1, p);
  });
  CHECK_CONTAINS(e, "strideW in [0, 63]");
}

TWIN_TEST(load3d_with_a_zero_extent_is_a_nop) {
  twin_test::Run run;
  RunAic(&run, "nop", [] {
    TPipe pipe;
    TQue<TPosition::A1, 1> q1;
    TQue<TPosition::A2, 1> q2;
    pipe.InitBuffer(q1, 1, 512);
    pipe.InitBuffer(q2, 1, 512);
    LocalTensor<half> l1 = q1.AllocTensor<half>(), l0a = q2.AllocTensor<half>();
    auto p = Small();
    p.mExtension = 0;
    p.kStartPt = 4096;  // past the matrix's 16 columns: a NOP reads nothing, so nothing to refuse
    LoadData(l0a, l1, p);
  });
  CHECK_OK(run);
}

}  // namespace

// LoadData3DParamsV2Pro (transpose_batch_mat_mul's float B): the same windows from the packed words and registers.
TWIN_TEST(img2col_v2pro_from_packed_words_matches_the_windows) {
  const auto xh = Map(kHalfConv, 7);
  CHECK_EQ(Mismatches(ThroughTheCube<half>(kHalfConv, xh, Dst::kA, false, true), Img2col(kHalfConv, xh, 16), 32, 96,
                      false),
           0);
  const auto xf = Map(kFloatConv, 8);
  CHECK_EQ(Mismatches(ThroughTheCube<float>(kFloatConv, xf, Dst::kB, false, true), Img2col(kFloatConv, xf, 8), 16, 80,
                      false),
           0);
  // The default filterConfig is stride, filter and dilation 1 on both axes.
  CHECK_EQ(LoadData3DParamsV2Pro().filterConfig, 0x010101010101ull);
}

// The positional constructors CANN's conv3d_backprop kernels brace-initialise (pad list from a const uint8_t[4]).
TWIN_TEST(load3d_params_positional_constructors) {
  static constexpr uint8_t kPads[4] = {1, 2, 3, 4};
  const LoadData3DParamsV2<half> a(kPads, 5, 6, 32, 48, 16, 7, 8, 2, 3, 1, 2, 1, 2, true, false, half(1.5f));
  CHECK(a.padList[0] == 1 && a.padList[1] == 2 && a.padList[2] == 3 && a.padList[3] == 4);
  CHECK(a.l1H == 5 && a.l1W == 6 && a.channelSize == 32 && a.kExtension == 48 && a.mExtension == 16);
  CHECK(a.kStartPt == 7 && a.mStartPt == 8 && a.strideW == 2 && a.strideH == 3 && a.filterW == 1 && a.filterH == 2);
  CHECK(a.dilationFilterW == 1 && a.dilationFilterH == 2 && a.enTranspose && !a.enSmallK);
  CHECK(static_cast<float>(a.padValue) == 1.5f);
  CHECK(!a.filterSizeW && !a.filterSizeH && !a.fMatrixCtrl);  // the documented defaults of the 17-value form
  const LoadData3DParamsV2<float> b(kPads, 1, 9, 16, 16, 16, 0, 0, 1, 1, 1, 1, 1, 1, false, true, 0.0f, true, false,
                                    true);
  CHECK(b.l1W == 9 && b.enSmallK && b.filterSizeW && !b.filterSizeH && b.fMatrixCtrl && b.padList[3] == 4);
}

int main(int argc, char** argv) { return twin_test::Main(argc, argv); }
