// The Ascend C surface: every vector instruction against a straightforward
// reference (half results against a nearest-even search over all binary16
// encodings, float results against host float arithmetic), data movement,
// and the TPipe/TQue/TBuf memory model.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "ascendc_util.h"

using namespace AscendC;
using ascendc_test::H;
using ascendc_test::HalfValue;
using ascendc_test::RefHalf;
using ascendc_test::RunAiv;

namespace {

const double kInf = std::numeric_limits<double>::infinity();
const double kNan = std::numeric_limits<double>::quiet_NaN();

// Operands that exercise rounding: ties, overflow, subnormals, specials.
std::vector<double> HalfOperands() {
  return {0.0,     -0.0,       1.0,          -1.0,         1.5,          3.0,     0.1,     -2.75,
          65504.0, -65504.0,   60000.0,      1024.5,       2049.0,       0.000061, 5.96e-8, -5.96e-8,
          kInf,    -kInf,      kNan,         7.0,          0.333,        1e-3,    255.0,   -0.5};
}

template <typename T>
std::vector<T> Padded(std::vector<T> v, size_t multiple) {
  while (v.size() % multiple != 0) v.push_back(T(0));
  return v;
}

// z = op(x, y) on the twin: x, y through GM -> UB, z back to GM.
template <typename T>
std::vector<T> OnTwin(std::vector<T> x, std::vector<T> y,
                      const std::function<void(LocalTensor<T>&, LocalTensor<T>&, LocalTensor<T>&, int32_t)>& op) {
  const size_t n = x.size();
  x = Padded(x, 64);
  y = Padded(y, 64);
  std::vector<T> z(x.size(), T(0));
  twin_test::Run run;
  RunAiv(&run, "vec", [&] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> bx, by, bz;
    const uint32_t bytes = static_cast<uint32_t>(x.size() * sizeof(T));
    pipe.InitBuffer(bx, bytes);
    pipe.InitBuffer(by, bytes);
    pipe.InitBuffer(bz, bytes);
    GlobalTensor<T> gx, gy, gz;
    gx.SetGlobalBuffer(x.data(), x.size());
    gy.SetGlobalBuffer(y.data(), y.size());
    gz.SetGlobalBuffer(z.data(), z.size());
    LocalTensor<T> lx = bx.Get<T>(), ly = by.Get<T>(), lz = bz.Get<T>();
    DataCopy(lx, gx, x.size());
    DataCopy(ly, gy, y.size());
    op(lz, lx, ly, static_cast<int32_t>(n));
    DataCopy(gz, lz, z.size());
  });
  CHECK_OK(run);
  z.resize(n);
  return z;
}

std::vector<half> Halves(const std::vector<double>& v) {
  std::vector<half> out;
  for (double d : v) out.push_back(H(d));
  return out;
}

// Checks a half result against reference(x[i], y[i]) rounded by RefHalf.
void CheckHalf(const char* what, const std::vector<half>& x, const std::vector<half>& y, const std::vector<half>& z,
               const std::function<double(double, double)>& ref) {
  for (size_t i = 0; i < z.size(); ++i) {
    const uint16_t want = RefHalf(ref(x[i].ToDouble(), y[i].ToDouble()));
    if (!ascendc_test::SameHalf(z[i].bits_, want)) {
      twin_test::Fail(__FILE__, __LINE__,
                      std::string(what) + " element " + std::to_string(i) + ": x=" + std::to_string(HalfValue(x[i].bits_)) +
                          " y=" + std::to_string(HalfValue(y[i].bits_)) + " got bits " + std::to_string(z[i].bits_) +
                          " want " + std::to_string(want));
    }
  }
}

void CheckFloat(const char* what, const std::vector<float>& x, const std::vector<float>& y,
                const std::vector<float>& z, const std::function<float(float, float)>& ref) {
  for (size_t i = 0; i < z.size(); ++i) {
    const float want = ref(x[i], y[i]);
    if (!ascendc_test::SameFloat(z[i], want)) {
      twin_test::Fail(__FILE__, __LINE__,
                      std::string(what) + " element " + std::to_string(i) + ": x=" + std::to_string(x[i]) +
                          " y=" + std::to_string(y[i]) + " got " + std::to_string(z[i]) + " want " +
                          std::to_string(want));
    }
  }
}

// Every operand paired with every other one.
void Pairs(const std::vector<double>& ops, std::vector<double>* xs, std::vector<double>* ys) {
  for (double a : ops) {
    for (double b : ops) {
      xs->push_back(a);
      ys->push_back(b);
    }
  }
}

double RefMax(double a, double b) { return std::isnan(a) || std::isnan(b) ? kNan : std::max(a, b); }
double RefMin(double a, double b) { return std::isnan(a) || std::isnan(b) ? kNan : std::min(a, b); }

TWIN_TEST(half_rounding_of_the_conversions) {
  // Ties go to the even encoding; past 65520 is inf; below 2^-25 is zero.
  CHECK_EQ(half(1.0 + std::ldexp(1, -11)).bits_, 0x3c00);  // tie: 1.0 (even)
  CHECK_EQ(half(1.0 + 3 * std::ldexp(1, -11)).bits_, 0x3c02);  // tie: up to even
  CHECK_EQ(half(65519.0).bits_, 0x7bff);
  CHECK_EQ(half(65520.0).bits_, 0x7c00);
  CHECK_EQ(half(std::ldexp(1, -25)).bits_, 0x0000);  // tie with zero
  CHECK_EQ(half(3 * std::ldexp(1, -26)).bits_, 0x0001);
  CHECK_EQ(half(-kInf).bits_, 0xfc00);
  CHECK(half(kNan).IsNan());
  CHECK_EQ(bfloat16_t(1.00390625f).bits_, 0x3f80);  // tie: even
  CHECK_EQ(bfloat16_t(1.01171875f).bits_, 0x3f82);
  // Every encoding converts to float and back unchanged.
  int bad = 0;
  for (uint32_t b = 0; b < 65536; ++b) {
    half h = half::FromBits(static_cast<uint16_t>(b));
    if (!h.IsNan() && half(static_cast<float>(h)).bits_ != b) ++bad;
    if (!h.IsNan() && RefHalf(static_cast<float>(h)) != b) ++bad;
  }
  CHECK_EQ(bad, 0);
  // Scalar arithmetic rounds its result to half.
  half a = 2049.0f;  // 2048 (tie, even)
  CHECK_EQ(static_cast<float>(a), 2048.0f);
  half b = half(2048.0f) + half(1.0f);
  CHECK_EQ(static_cast<float>(b), 2048.0f);
  CHECK(a < 3000 && a * 0.5f == 1024.0f);
}

TWIN_TEST(half_binary_instructions_round_each_result_to_nearest_even) {
  std::vector<double> xs, ys;
  Pairs(HalfOperands(), &xs, &ys);
  const auto x = Halves(xs), y = Halves(ys);
  CheckHalf("Add", x, y, OnTwin<half>(x, y, [](auto& z, auto& a, auto& b, int32_t n) { Add(z, a, b, n); }),
            [](double a, double b) { return a + b; });
  CheckHalf("Sub", x, y, OnTwin<half>(x, y, [](auto& z, auto& a, auto& b, int32_t n) { Sub(z, a, b, n); }),
            [](double a, double b) { return a - b; });
  CheckHalf("Mul", x, y, OnTwin<half>(x, y, [](auto& z, auto& a, auto& b, int32_t n) { Mul(z, a, b, n); }),
            [](double a, double b) { return a * b; });
  CheckHalf("Div", x, y, OnTwin<half>(x, y, [](auto& z, auto& a, auto& b, int32_t n) { Div(z, a, b, n); }),
            [](double a, double b) { return a / b; });
  CheckHalf("Max", x, y, OnTwin<half>(x, y, [](auto& z, auto& a, auto& b, int32_t n) { Max(z, a, b, n); }), RefMax);
  CheckHalf("Min", x, y, OnTwin<half>(x, y, [](auto& z, auto& a, auto& b, int32_t n) { Min(z, a, b, n); }), RefMin);
  // A few results spelled out: 1024.5 + 1024.5 = 2049 -> 2048; 65504 + 65504 -> inf; inf - inf -> NaN.
  auto z = OnTwin<half>(Halves({1024.5, 65504, kInf, 1.0}), Halves({1024.5, 65504, kInf, 0.0}),
                        [](auto& z, auto& a, auto& b, int32_t n) { Add(z, a, b, n); });
  CHECK_EQ(static_cast<float>(z[0]), 2048.0f);
  CHECK_EQ(z[1].bits_, 0x7c00);
  CHECK_EQ(z[2].bits_, 0x7c00);
  auto d = OnTwin<half>(Halves({kInf, 1.0, -1.0, 0.0}), Halves({kInf, 0.0, 0.0, 0.0}),
                        [](auto& z, auto& a, auto& b, int32_t n) { Div(z, a, b, n); });
  CHECK(d[0].IsNan());
  CHECK_EQ(d[1].bits_, 0x7c00);
  CHECK_EQ(d[2].bits_, 0xfc00);
  CHECK(d[3].IsNan());
}

TWIN_TEST(half_scalar_and_unary_instructions) {
  const auto ops = HalfOperands();
  const auto x = Halves(ops);
  for (double s : {0.1, -3.0, 65504.0, 0.0}) {
    const half hs = H(s);
    const double sv = hs.ToDouble();
    CheckHalf("Adds", x, x, OnTwin<half>(x, x, [&](auto& z, auto& a, auto&, int32_t n) { Adds(z, a, hs, n); }),
              [&](double a, double) { return a + sv; });
    CheckHalf("Muls", x, x, OnTwin<half>(x, x, [&](auto& z, auto& a, auto&, int32_t n) { Muls(z, a, hs, n); }),
              [&](double a, double) { return a * sv; });
    CheckHalf("Maxs", x, x, OnTwin<half>(x, x, [&](auto& z, auto& a, auto&, int32_t n) { Maxs(z, a, hs, n); }),
              [&](double a, double) { return RefMax(a, sv); });
    CheckHalf("Mins", x, x, OnTwin<half>(x, x, [&](auto& z, auto& a, auto&, int32_t n) { Mins(z, a, hs, n); }),
              [&](double a, double) { return RefMin(a, sv); });
    CheckHalf("LeakyRelu", x, x,
              OnTwin<half>(x, x, [&](auto& z, auto& a, auto&, int32_t n) { LeakyRelu(z, a, hs, n); }),
              [&](double a, double) { return a >= 0 ? a : a * sv; });
  }
  // The scalar converts from float like any half (a float literal works).
  auto m = OnTwin<half>(Halves({3.0}), Halves({0}), [](auto& z, auto& a, auto&, int32_t n) { Muls(z, a, 0.1f, n); });
  CHECK_EQ(m[0].bits_, RefHalf(3.0 * HalfValue(RefHalf(0.1))));
  auto unary = [&](const char* name, void (*fn)(const LocalTensor<half>&, const LocalTensor<half>&, const int32_t&),
                   double (*ref)(double)) {
    CheckHalf(name, x, x, OnTwin<half>(x, x, [&](auto& z, auto& a, auto&, int32_t n) { fn(z, a, n); }),
              [&](double a, double) { return ref(a); });
  };
  unary("Exp", Exp<half>, [](double a) { return std::exp(a); });
  unary("Ln", Ln<half>, [](double a) { return std::log(a); });
  unary("Abs", Abs<half>, [](double a) { return std::fabs(a); });
  unary("Sqrt", Sqrt<half>, [](double a) { return std::sqrt(a); });
  unary("Rsqrt", Rsqrt<half>, [](double a) { return 1.0 / std::sqrt(a); });
  unary("Reciprocal", Reciprocal<half>, [](double a) { return 1.0 / a; });
  unary("Relu", Relu<half>, [](double a) { return std::isnan(a) ? a : (a > 0 ? a : 0.0); });
  // Spelled out: Exp(12) overflows half; Ln(0) = -inf; Ln(-1) = NaN; Relu(-0) = +0.
  auto e = OnTwin<half>(Halves({12.0, 0.0}), Halves({0, 0}), [](auto& z, auto& a, auto&, int32_t n) { Exp(z, a, n); });
  CHECK_EQ(e[0].bits_, 0x7c00);
  CHECK_EQ(e[1].bits_, 0x3c00);
  auto l = OnTwin<half>(Halves({0.0, -1.0}), Halves({0, 0}), [](auto& z, auto& a, auto&, int32_t n) { Ln(z, a, n); });
  CHECK_EQ(l[0].bits_, 0xfc00);
  CHECK(l[1].IsNan());
  auto r = OnTwin<half>(Halves({-0.0}), Halves({0}), [](auto& z, auto& a, auto&, int32_t n) { Relu(z, a, n); });
  CHECK_EQ(r[0].bits_, 0x0000);
}

TWIN_TEST(float_instructions_match_host_float_arithmetic) {
  std::vector<double> base = HalfOperands();
  base.push_back(3.4e38);
  base.push_back(1e-40);  // subnormal float
  base.push_back(16777217.0);
  std::vector<double> xd, yd;
  Pairs(base, &xd, &yd);
  std::vector<float> x(xd.begin(), xd.end()), y(yd.begin(), yd.end());
  auto fmax = [](float a, float b) { return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b); };
  auto fmin = [](float a, float b) { return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b); };
  CheckFloat("Add", x, y, OnTwin<float>(x, y, [](auto& z, auto& a, auto& b, int32_t n) { Add(z, a, b, n); }),
             [](float a, float b) { return a + b; });
  CheckFloat("Sub", x, y, OnTwin<float>(x, y, [](auto& z, auto& a, auto& b, int32_t n) { Sub(z, a, b, n); }),
             [](float a, float b) { return a - b; });
  CheckFloat("Mul", x, y, OnTwin<float>(x, y, [](auto& z, auto& a, auto& b, int32_t n) { Mul(z, a, b, n); }),
             [](float a, float b) { return a * b; });
  CheckFloat("Div", x, y, OnTwin<float>(x, y, [](auto& z, auto& a, auto& b, int32_t n) { Div(z, a, b, n); }),
             [](float a, float b) { return a / b; });
  CheckFloat("Max", x, y, OnTwin<float>(x, y, [](auto& z, auto& a, auto& b, int32_t n) { Max(z, a, b, n); }), fmax);
  CheckFloat("Min", x, y, OnTwin<float>(x, y, [](auto& z, auto& a, auto& b, int32_t n) { Min(z, a, b, n); }), fmin);
  std::vector<float> u(base.begin(), base.end());
  CheckFloat("Adds", u, u, OnTwin<float>(u, u, [](auto& z, auto& a, auto&, int32_t n) { Adds(z, a, 0.1f, n); }),
             [](float a, float) { return a + 0.1f; });
  CheckFloat("Muls", u, u, OnTwin<float>(u, u, [](auto& z, auto& a, auto&, int32_t n) { Muls(z, a, -3.0f, n); }),
             [](float a, float) { return a * -3.0f; });
  CheckFloat("Maxs", u, u, OnTwin<float>(u, u, [](auto& z, auto& a, auto&, int32_t n) { Maxs(z, a, 1.0f, n); }),
             [&](float a, float) { return fmax(a, 1.0f); });
  CheckFloat("Mins", u, u, OnTwin<float>(u, u, [](auto& z, auto& a, auto&, int32_t n) { Mins(z, a, 1.0f, n); }),
             [&](float a, float) { return fmin(a, 1.0f); });
  CheckFloat("LeakyRelu", u, u,
             OnTwin<float>(u, u, [](auto& z, auto& a, auto&, int32_t n) { LeakyRelu(z, a, 0.01f, n); }),
             [](float a, float) { return a >= 0 ? a : a * 0.01f; });
  CheckFloat("Sqrt", u, u, OnTwin<float>(u, u, [](auto& z, auto& a, auto&, int32_t n) { Sqrt(z, a, n); }),
             [](float a, float) { return std::sqrt(a); });
  CheckFloat("Abs", u, u, OnTwin<float>(u, u, [](auto& z, auto& a, auto&, int32_t n) { Abs(z, a, n); }),
             [](float a, float) { return std::fabs(a); });
  CheckFloat("Reciprocal", u, u, OnTwin<float>(u, u, [](auto& z, auto& a, auto&, int32_t n) { Reciprocal(z, a, n); }),
             [](float a, float) { return 1.0f / a; });
  CheckFloat("Exp", u, u, OnTwin<float>(u, u, [](auto& z, auto& a, auto&, int32_t n) { Exp(z, a, n); }),
             [](float a, float) { return static_cast<float>(std::exp(static_cast<double>(a))); });
  CheckFloat("Ln", u, u, OnTwin<float>(u, u, [](auto& z, auto& a, auto&, int32_t n) { Ln(z, a, n); }),
             [](float a, float) { return static_cast<float>(std::log(static_cast<double>(a))); });
  CheckFloat("Rsqrt", u, u, OnTwin<float>(u, u, [](auto& z, auto& a, auto&, int32_t n) { Rsqrt(z, a, n); }),
             [](float a, float) { return static_cast<float>(1.0 / std::sqrt(static_cast<double>(a))); });
  CheckFloat("Relu", u, u, OnTwin<float>(u, u, [](auto& z, auto& a, auto&, int32_t n) { Relu(z, a, n); }),
             [](float a, float) { return std::isnan(a) ? a : (a > 0 ? a : 0.0f); });
}

TWIN_TEST(int32_instructions_wrap) {
  std::vector<int32_t> x = {0, 1, -1, 7, INT32_MAX, INT32_MIN, 100, -100};
  std::vector<int32_t> y = {5, INT32_MAX, -3, 7, 1, -1, -100, 3};
  auto add = OnTwin<int32_t>(x, y, [](auto& z, auto& a, auto& b, int32_t n) { Add(z, a, b, n); });
  auto mul = OnTwin<int32_t>(x, y, [](auto& z, auto& a, auto& b, int32_t n) { Mul(z, a, b, n); });
  auto mx = OnTwin<int32_t>(x, y, [](auto& z, auto& a, auto& b, int32_t n) { Max(z, a, b, n); });
  auto adds = OnTwin<int32_t>(x, y, [](auto& z, auto& a, auto&, int32_t n) { Adds(z, a, 10, n); });
  auto mins = OnTwin<int32_t>(x, y, [](auto& z, auto& a, auto&, int32_t n) { Mins(z, a, 7, n); });
  auto relu = OnTwin<int32_t>(x, y, [](auto& z, auto& a, auto&, int32_t n) { Relu(z, a, n); });
  auto abs = OnTwin<int32_t>(x, y, [](auto& z, auto& a, auto&, int32_t n) { Abs(z, a, n); });
  for (size_t i = 0; i < x.size(); ++i) {
    const uint32_t ux = static_cast<uint32_t>(x[i]), uy = static_cast<uint32_t>(y[i]);
    CHECK_EQ(add[i], static_cast<int32_t>(ux + uy));
    CHECK_EQ(mul[i], static_cast<int32_t>(ux * uy));
    CHECK_EQ(mx[i], std::max(x[i], y[i]));
    CHECK_EQ(adds[i], static_cast<int32_t>(ux + 10u));
    CHECK_EQ(mins[i], std::min(x[i], 7));
    CHECK_EQ(relu[i], std::max(x[i], 0));
    CHECK_EQ(abs[i], static_cast<int32_t>(x[i] < 0 ? 0u - ux : ux));
  }
}

TWIN_TEST(duplicate_fills_count_elements) {
  std::vector<half> x(64, H(1.0));
  auto z = OnTwin<half>(x, x, [](auto& z, auto&, auto&, int32_t) {
    Duplicate(z, half(2.5f), 64);
    Duplicate(z, 0.1f, 10);  // converts to half
  });
  CHECK_EQ(z[0].bits_, RefHalf(0.1));
  CHECK_EQ(z[9].bits_, RefHalf(0.1));
  CHECK_EQ(static_cast<float>(z[10]), 2.5f);
  std::vector<int16_t> s(64, 0);
  auto zs = OnTwin<int16_t>(s, s, [](auto& z, auto&, auto&, int32_t) {
    Duplicate(z, int16_t(0), 64);
    Duplicate(z, int16_t(-7), 33);
  });
  CHECK_EQ(zs[32], -7);
  CHECK_EQ(zs[33], 0);
}

// Runs Cast<D, S> on the twin.
template <typename D, typename S>
std::vector<D> CastOnTwin(std::vector<S> src, RoundMode mode) {
  const size_t n = src.size();
  src = Padded(src, 64);
  std::vector<D> out(src.size(), D(0));
  twin_test::Run run;
  RunAiv(&run, "cast", [&] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> bs, bd;
    pipe.InitBuffer(bs, src.size() * sizeof(S));
    pipe.InitBuffer(bd, out.size() * sizeof(D));
    GlobalTensor<S> gs;
    GlobalTensor<D> gd;
    gs.SetGlobalBuffer(src.data(), src.size());
    gd.SetGlobalBuffer(out.data(), out.size());
    LocalTensor<S> ls = bs.Get<S>();
    LocalTensor<D> ld = bd.Get<D>();
    DataCopy(ls, gs, src.size());
    Cast(ld, ls, mode, static_cast<uint32_t>(n));
    DataCopy(gd, ld, out.size());
  });
  CHECK_OK(run);
  out.resize(n);
  return out;
}

TWIN_TEST(cast_round_modes) {
  // float -> half: 1 + 2^-11 is a tie; 1 + 2^-11 + 2^-20 is just above it; negative values mirror.
  const float tie = 1.0f + std::ldexp(1.0f, -11);
  const float above = tie + std::ldexp(1.0f, -20);
  std::vector<float> src = {tie, above, -tie, -above, 65520.0f, 1e-8f, NAN, -INFINITY, 2.5f, 3.5f};
  auto rint = CastOnTwin<half, float>(src, RoundMode::CAST_RINT);
  auto none = CastOnTwin<half, float>(src, RoundMode::CAST_NONE);
  auto floor = CastOnTwin<half, float>(src, RoundMode::CAST_FLOOR);
  auto ceil = CastOnTwin<half, float>(src, RoundMode::CAST_CEIL);
  auto trunc = CastOnTwin<half, float>(src, RoundMode::CAST_TRUNC);
  auto away = CastOnTwin<half, float>(src, RoundMode::CAST_ROUND);
  auto odd = CastOnTwin<half, float>(src, RoundMode::CAST_ODD);
  for (size_t i = 0; i < src.size(); ++i) {
    CHECK(ascendc_test::SameHalf(rint[i].bits_, RefHalf(src[i])));
    CHECK(ascendc_test::SameHalf(none[i].bits_, RefHalf(src[i])));
  }
  CHECK_EQ(rint[0].bits_, 0x3c00);
  CHECK_EQ(rint[1].bits_, 0x3c01);
  CHECK_EQ(floor[0].bits_, 0x3c00);
  CHECK_EQ(floor[2].bits_, 0xbc01);  // -tie rounds down, away from zero
  CHECK_EQ(ceil[0].bits_, 0x3c01);
  CHECK_EQ(ceil[2].bits_, 0xbc00);
  CHECK_EQ(trunc[1].bits_, 0x3c00);
  CHECK_EQ(trunc[4].bits_, 0x7bff);  // 65520 truncates to the largest half
  CHECK_EQ(away[0].bits_, 0x3c01);
  CHECK_EQ(odd[0].bits_, 0x3c01);  // inexact: the odd neighbour
  CHECK_EQ(rint[4].bits_, 0x7c00);
  CHECK_EQ(rint[5].bits_, 0x0000);
  CHECK(rint[6].IsNan());
  CHECK_EQ(rint[7].bits_, 0xfc00);
  // float -> int32: mode, saturation, NaN -> 0.
  std::vector<float> f = {2.5f, 3.5f, -2.5f, -0.7f, 3e9f, -3e9f, NAN, 1.4f};
  auto ir = CastOnTwin<int32_t, float>(f, RoundMode::CAST_RINT);
  auto ia = CastOnTwin<int32_t, float>(f, RoundMode::CAST_ROUND);
  auto ifl = CastOnTwin<int32_t, float>(f, RoundMode::CAST_FLOOR);
  auto ic = CastOnTwin<int32_t, float>(f, RoundMode::CAST_CEIL);
  auto it = CastOnTwin<int32_t, float>(f, RoundMode::CAST_TRUNC);
  const std::vector<int32_t> want_r = {2, 4, -2, -1, INT32_MAX, INT32_MIN, 0, 1};
  const std::vector<int32_t> want_a = {3, 4, -3, -1, INT32_MAX, INT32_MIN, 0, 1};
  const std::vector<int32_t> want_f = {2, 3, -3, -1, INT32_MAX, INT32_MIN, 0, 1};
  const std::vector<int32_t> want_c = {3, 4, -2, 0, INT32_MAX, INT32_MIN, 0, 2};
  const std::vector<int32_t> want_t = {2, 3, -2, 0, INT32_MAX, INT32_MIN, 0, 1};
  for (size_t i = 0; i < f.size(); ++i) {
    CHECK_EQ(ir[i], want_r[i]);
    CHECK_EQ(ia[i], want_a[i]);
    CHECK_EQ(ifl[i], want_f[i]);
    CHECK_EQ(ic[i], want_c[i]);
    CHECK_EQ(it[i], want_t[i]);
  }
  // int32 -> float rounds (2^24 + 1 is a tie); half -> float is exact; half -> int8 saturates.
  auto fi = CastOnTwin<float, int32_t>({16777217, 16777219, -7}, RoundMode::CAST_RINT);
  CHECK_EQ(fi[0], 16777216.0f);
  CHECK_EQ(fi[1], 16777220.0f);
  CHECK_EQ(fi[2], -7.0f);
  auto hf = CastOnTwin<float, half>(Halves({0.1, 65504, -kInf, 5.96e-8}), RoundMode::CAST_NONE);
  CHECK_EQ(hf[0], static_cast<float>(HalfValue(RefHalf(0.1))));
  CHECK_EQ(hf[1], 65504.0f);
  CHECK(std::isinf(hf[2]) && hf[2] < 0);
  CHECK_EQ(hf[3], static_cast<float>(std::ldexp(1.0, -24)));
  auto i8 = CastOnTwin<int8_t, half>(Halves({300.0, -300.0, 5.5, kNan}), RoundMode::CAST_RINT);
  CHECK_EQ(int{i8[0]}, 127);
  CHECK_EQ(int{i8[1]}, -128);
  CHECK_EQ(int{i8[2]}, 6);
  CHECK_EQ(int{i8[3]}, 0);
  auto bf = CastOnTwin<bfloat16_t, float>({1.00390625f, 3.0f}, RoundMode::CAST_RINT);
  CHECK_EQ(bf[0].bits_, 0x3f80);
  CHECK_EQ(bf[1].bits_, 0x4040);
  auto fr = CastOnTwin<float, float>({2.5f, -2.5f, 2.7f}, RoundMode::CAST_RINT);  // to integral
  CHECK_EQ(fr[0], 2.0f);
  CHECK_EQ(fr[1], -2.0f);
  CHECK_EQ(fr[2], 3.0f);
}

// The documented order: pairs of neighbours inside each 256-byte repeat,
// then the repeat sums the same way; between 256 and 1024 bytes, repeats
// are first added lane by lane.
double RefTree(const std::vector<double>& v, const std::function<double(double)>& round) {
  if (v.size() == 1) return v[0];
  std::vector<double> next;
  for (size_t i = 0; i < v.size(); i += 2) next.push_back(i + 1 < v.size() ? round(v[i] + v[i + 1]) : v[i]);
  return RefTree(next, round);
}

template <typename T>
T ReduceOnTwin(std::vector<T> src, int op, int32_t count, T* index = nullptr) {
  src = Padded(src, 64);
  std::vector<T> out(16, T(0));
  twin_test::Run run;
  RunAiv(&run, "reduce", [&] {
    TPipe pipe;
    TQue<TPosition::VECIN, 1> in;
    TQue<TPosition::VECOUT, 1> out_q;
    TBuf<TPosition::VECCALC> work;
    pipe.InitBuffer(in, 1, src.size() * sizeof(T));
    pipe.InitBuffer(out_q, 1, 32);
    pipe.InitBuffer(work, 4096);
    GlobalTensor<T> gs, gd;
    gs.SetGlobalBuffer(src.data(), src.size());
    gd.SetGlobalBuffer(out.data(), out.size());
    LocalTensor<T> x = in.AllocTensor<T>();
    DataCopy(x, gs, src.size());
    in.EnQue(x);
    x = in.DeQue<T>();
    LocalTensor<T> y = out_q.AllocTensor<T>();
    LocalTensor<T> w = work.Get<T>();
    if (op == 0) ReduceSum(y, x, w, count);
    if (op == 1) ReduceMax(y, x, w, count, index != nullptr);
    if (op == 2) ReduceMin(y, x, w, count, index != nullptr);
    out_q.EnQue(y);
    in.FreeTensor(x);
    y = out_q.DeQue<T>();
    DataCopy(gd, y, 32 / sizeof(T));
    out_q.FreeTensor(y);
  });
  CHECK_OK(run);
  if (index != nullptr) *index = out[1];
  return out[0];
}

TWIN_TEST(reduce_sum_in_the_hardware_order) {
  auto rh = [](double v) { return HalfValue(RefHalf(v)); };
  // 2048 + 1 + 1 + ...: a sequential sum in half never moves off 2048.
  for (int32_t n : {1, 7, 128, 300, 512, 1000}) {
    std::vector<half> v(n, H(1.0));
    v[0] = H(2048.0);
    for (int32_t i = 1; i < n; i += 3) v[i] = H(0.1 * i);
    std::vector<double> d;
    for (auto h : v) d.push_back(h.ToDouble());
    double want;
    const size_t bytes = d.size() * 2;
    if (bytes > 256 && bytes <= 1024) {
      std::vector<double> acc(d.begin(), d.begin() + 128);
      for (size_t i = 128; i < d.size(); ++i) acc[i % 128] = rh(acc[i % 128] + d[i]);
      want = RefTree(acc, rh);
    } else {
      std::vector<double> level = d;
      while (level.size() > 1) {
        std::vector<double> part;
        for (size_t r = 0; r < level.size(); r += 128) {
          part.push_back(RefTree(std::vector<double>(level.begin() + r, level.begin() + std::min(level.size(), r + 128)), rh));
        }
        level = part;
      }
      want = level[0];
    }
    half got = ReduceOnTwin<half>(v, 0, n);
    CHECK_EQ(got.bits_, RefHalf(want));
  }
  // float: an exact sum of small integers; inf + -inf = NaN.
  std::vector<float> f(1000);
  for (int i = 0; i < 1000; ++i) f[i] = static_cast<float>(i);
  CHECK_EQ(ReduceOnTwin<float>(f, 0, 1000), 499500.0f);
  CHECK(std::isnan(ReduceOnTwin<float>({INFINITY, -INFINITY, 1.0f}, 0, 3)));
  CHECK(std::isinf(ReduceOnTwin<float>({INFINITY, 1.0f, 1.0f}, 0, 3)));
}

TWIN_TEST(reduce_max_and_min_with_index) {
  std::vector<float> v = {1, 5, -2, 5, 3};
  float idx = 0;
  CHECK_EQ(ReduceOnTwin<float>(v, 1, 5, &idx), 5.0f);
  uint32_t bits;
  std::memcpy(&bits, &idx, 4);
  CHECK_EQ(bits, 1u);  // the first of two maxima
  CHECK_EQ(ReduceOnTwin<float>(v, 2, 5, &idx), -2.0f);
  std::memcpy(&bits, &idx, 4);
  CHECK_EQ(bits, 2u);
  CHECK_EQ(ReduceOnTwin<float>(v, 1, 3), 5.0f);  // only the first count elements
  std::vector<half> h = Halves({1, kInf, 3, kNan, 9});
  half hidx;
  CHECK_EQ(ReduceOnTwin<half>(h, 1, 3, &hidx).bits_, 0x7c00);
  CHECK_EQ(hidx.bits_, 1);
  CHECK(ReduceOnTwin<half>(h, 1, 5).IsNan());  // NaN wins
}

TWIN_TEST(compare_and_select) {
  const size_t n = 64;  // 64 floats: one 256-byte repeat
  std::vector<float> a(n), b(n);
  for (size_t i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i % 7) - 3.0f;
    b[i] = static_cast<float>(i % 5) - 2.0f;
  }
  a[10] = NAN;
  b[11] = NAN;
  for (int mode = 0; mode < 6; ++mode) {
    std::vector<uint8_t> mask(32, 0);
    std::vector<float> sel(n, 0), sels(n, 0), sel0(n, 0);
    twin_test::Run run;
    RunAiv(&run, "cmpsel", [&] {
      TPipe pipe;
      TBuf<TPosition::VECCALC> ba, bb, bm, bz, bs, b0;
      pipe.InitBuffer(ba, n * 4);
      pipe.InitBuffer(bb, n * 4);
      pipe.InitBuffer(bm, 32);
      pipe.InitBuffer(bz, n * 4);
      pipe.InitBuffer(bs, n * 4);
      pipe.InitBuffer(b0, n * 4);
      GlobalTensor<float> ga, gb, gz, gs, g0;
      GlobalTensor<uint8_t> gm;
      ga.SetGlobalBuffer(a.data(), n);
      gb.SetGlobalBuffer(b.data(), n);
      gz.SetGlobalBuffer(sel.data(), n);
      gs.SetGlobalBuffer(sels.data(), n);
      g0.SetGlobalBuffer(sel0.data(), n);
      gm.SetGlobalBuffer(mask.data(), 32);
      auto la = ba.Get<float>(), lb = bb.Get<float>(), lz = bz.Get<float>(), ls = bs.Get<float>(),
           l0 = b0.Get<float>();
      auto lm = bm.Get<uint8_t>();
      DataCopy(la, ga, n);
      DataCopy(lb, gb, n);
      Duplicate(lm.ReinterpretCast<int32_t>(), 0, 8);
      Compare(lm, la, lb, static_cast<CMPMODE>(mode), n);
      Select(lz, lm, la, lb, SELMODE::VSEL_TENSOR_TENSOR_MODE, n);
      Select(ls, lm, la, 100.0f, SELMODE::VSEL_TENSOR_SCALAR_MODE, n);
      Select(l0, lm, la, lb, SELMODE::VSEL_CMPMASK_SPR, n);
      DataCopy(gm, lm, 32);
      DataCopy(gz, lz, n);
      DataCopy(gs, ls, n);
      DataCopy(g0, l0, n);
    });
    CHECK_OK(run);
    for (size_t i = 0; i < n; ++i) {
      bool want;
      switch (mode) {
        case 0: want = a[i] < b[i]; break;
        case 1: want = a[i] > b[i]; break;
        case 2: want = a[i] == b[i]; break;
        case 3: want = a[i] <= b[i]; break;
        case 4: want = a[i] >= b[i]; break;
        default: want = a[i] != b[i]; break;
      }
      const bool got = (mask[i / 8] >> (i % 8)) & 1;
      CHECK_EQ(got, want);
      CHECK(ascendc_test::SameFloat(sel[i], want ? a[i] : b[i]));
      CHECK(ascendc_test::SameFloat(sels[i], want ? a[i] : 100.0f));
      CHECK(ascendc_test::SameFloat(sel0[i], want ? a[i] : b[i]));  // one repeat: mode 0 = mode 2
    }
  }
}

TWIN_TEST(data_copy_with_params_and_pad) {
  std::vector<int32_t> gm_in(256), gm_out(256, -1);
  for (int i = 0; i < 256; ++i) gm_in[i] = i;
  twin_test::Run run;
  RunAiv(&run, "copies", [&] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 2048);
    GlobalTensor<int32_t> gi, go;
    gi.SetGlobalBuffer(gm_in.data(), 256);
    go.SetGlobalBuffer(gm_out.data(), 256);
    LocalTensor<int32_t> t = buf.Get<int32_t>();
    Duplicate(t, -5, 512);
    // 3 blocks of 16 bytes? no: blockLen 1 = 32 bytes = 8 ints; GM gap 1 block, UB gap 2 blocks.
    DataCopy(t, gi, DataCopyParams(3, 1, 1, 2));
    // UB ints: [0..8) = 0..7, [8..24) = -5, [24..32) = 16..23, [48..56) = 32..39
    CHECK_EQ(t.GetValue(7), 7);
    CHECK_EQ(t.GetValue(8), -5);
    CHECK_EQ(t.GetValue(24), 16);
    CHECK_EQ(t.GetValue(48), 32);
    // Pad GM -> UB: 2 blocks of 5 ints (20 bytes), GM gap 4 bytes, left pad 1, right pad 2 with 99.
    LocalTensor<int32_t> p = t[64];
    DataCopyExtParams ext{2, 20, 4, 0, 0};
    DataCopyPadExtParams<int32_t> pad{true, 1, 2, 99};
    DataCopyPad(p, gi, ext, pad);
    // Block 0: [99, 0..4, 99, 99] = 8 ints = 32 bytes; block 1 starts 32 bytes on: [99, 6..10, 99, 99].
    CHECK_EQ(p.GetValue(0), 99);
    CHECK_EQ(p.GetValue(1), 0);
    CHECK_EQ(p.GetValue(5), 4);
    CHECK_EQ(p.GetValue(6), 99);
    CHECK_EQ(p.GetValue(7), 99);
    CHECK_EQ(p.GetValue(8), 99);
    CHECK_EQ(p.GetValue(9), 6);
    // Without padding a ragged block is filled to 32 bytes with its first element.
    LocalTensor<int32_t> q = t[128];
    DataCopyPad(q, gi[3], DataCopyExtParams{1, 12, 0, 0, 0}, DataCopyPadExtParams<int32_t>{false, 0, 0, 0});
    CHECK_EQ(q.GetValue(0), 3);
    CHECK_EQ(q.GetValue(2), 5);
    CHECK_EQ(q.GetValue(3), 3);
    CHECK_EQ(q.GetValue(7), 3);
    // UB -> GM, unaligned: 2 blocks of 3 ints, UB blocks 32 bytes apart, GM gap 8 bytes.
    DataCopyPad(go[1], t, DataCopyExtParams{2, 12, 0, 8, 0});
    // UB -> UB.
    DataCopy(t[256], t, 16);
    CHECK_EQ(t.GetValue(256 + 7), 7);
  });
  CHECK_OK(run);
  CHECK_EQ(gm_out[0], -1);
  CHECK_EQ(gm_out[1], 0);
  CHECK_EQ(gm_out[3], 2);
  CHECK_EQ(gm_out[4], -1);  // the 8-byte gap
  CHECK_EQ(gm_out[5], -1);
  CHECK_EQ(gm_out[6], -5);  // UB block 1 = ints 8..10
  CHECK_EQ(gm_out[9], -1);
}

TWIN_TEST(queues_double_buffer_round_robin_and_fifo) {
  std::vector<uint64_t> addrs;
  std::vector<float> seen;
  twin_test::Run run;
  RunAiv(&run, "queues", [&] {
    TPipe pipe;
    TQue<QuePosition::VECIN, 2> q;
    TQueBind<TPosition::VECIN, TPosition::VECOUT, 1> bind;
    TBuf<> tmp;
    pipe.InitBuffer(q, 2, 100);  // rounded up to 128 bytes each
    pipe.InitBuffer(bind, 1, 64);
    pipe.InitBuffer(tmp, 256);
    for (int i = 0; i < 4; ++i) {
      LocalTensor<float> a = q.AllocTensor<float>();
      addrs.push_back(a.GetPhyAddr());
      a.SetValue(0, static_cast<float>(i));
      q.EnQue(a);
      if (i % 2 == 1) {  // two in flight, then drained in order
        for (int k = 0; k < 2; ++k) {
          LocalTensor<float> b = q.DeQue<float>();
          seen.push_back(b.GetValue(0));
          q.FreeTensor(b);
        }
      }
    }
    CHECK_EQ(q.AllocTensor<float>().GetSize(), 32u);
    LocalTensor<half> c = bind.AllocTensor<half>();
    addrs.push_back(c.GetPhyAddr());
    bind.EnQue<TPosition::VECIN, TPosition::VECOUT, half>(c);
    c = bind.DeQue<TPosition::VECIN, TPosition::VECOUT, half>();
    bind.FreeTensor(c);
    // TBuf: Get starts at the beginning, GetWithOffset at the offset.
    LocalTensor<int16_t> g = tmp.Get<int16_t>();
    LocalTensor<int16_t> o = tmp.GetWithOffset<int16_t>(16, 64);
    addrs.push_back(g.GetPhyAddr());
    addrs.push_back(o.GetPhyAddr());
    CHECK_EQ(g.GetSize(), 128u);
    CHECK_EQ(o.GetSize(), 16u);
    g.SetValue(32, int16_t(42));
    CHECK_EQ(o.GetValue(0), 42);
    // Views: operator[], SetSize, ReinterpretCast.
    LocalTensor<int16_t> v = g[8];
    CHECK_EQ(v.GetPhyAddr(), g.GetPhyAddr() + 16);
    CHECK_EQ(v.GetSize(), 120u);
    v.SetSize(4);
    CHECK_EQ(v.GetSize(), 4u);
    CHECK_EQ(g.ReinterpretCast<int32_t>().GetSize(), 64u);
    v(1) = 7;
    CHECK_EQ(g.GetValue(9), 7);
    CHECK(GetTPipePtr() == &pipe);
  });
  CHECK_OK(run);
  const std::vector<uint64_t> want = {0, 128, 0, 128, 256, 320, 384};
  CHECK(addrs == want);
  const std::vector<float> order = {0, 1, 2, 3};
  CHECK(seen == order);
}

TWIN_TEST(global_tensor_views) {
  std::vector<half> data(64, H(0));
  twin_test::Run run;
  RunAiv(&run, "global", [&] {
    GlobalTensor<half> g;
    g.SetGlobalBuffer(data.data(), 64);
    CHECK_EQ(g.GetSize(), 64u);
    GlobalTensor<half> v = g[16];
    CHECK_EQ(v.GetSize(), 48u);
    CHECK(v.GetPhyAddr() == data.data() + 16);
    CHECK(v.GetPhyAddr(2) == data.data() + 18);
    v.SetValue(1, 2.5f);
    CHECK_EQ(static_cast<float>(g.GetValue(17)), 2.5f);
    g(63) = half(1.0f);
    GlobalTensor<half> unsized;
    unsized.SetGlobalBuffer(data.data());
    CHECK_EQ(unsized.GetSize(), 0u);
  });
  CHECK_OK(run);
  CHECK_EQ(static_cast<float>(data[17]), 2.5f);
  CHECK_EQ(static_cast<float>(data[63]), 1.0f);
}

// Two sub-kernels in a row on one worker, each with its own TPipe, as a
// SuperKernel runs them: the second gets the whole Unified Buffer again.
void Stage(uint32_t bytes, std::vector<uint64_t>* addrs) {
  TPipe pipe;
  TBuf<> buf;
  pipe.InitBuffer(buf, bytes);
  addrs->push_back(buf.Get<uint8_t>().GetPhyAddr());
}

TWIN_TEST(each_tpipe_gets_the_whole_unified_buffer) {
  std::vector<uint64_t> addrs;
  twin_test::Run run;
  RunAiv(&run, "two_stages", [&] {
    Stage(150 * 1024, &addrs);
    Stage(150 * 1024, &addrs);
  });
  CHECK_OK(run);
  CHECK(addrs.size() == 2 && addrs[0] == 0 && addrs[1] == 0);
}

}  // namespace

int main(int argc, char** argv) { return twin_test::Main(argc, argv); }
