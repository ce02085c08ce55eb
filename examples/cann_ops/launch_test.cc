// Launches the `pipeline` SuperKernel (two CANN-style ScaledAdd instances, a plain kernel and the
// float16 variant) through its generated launch header on the CPU twin: the fused launch must equal
// the ops launched one by one bit for bit, and both must match references computed here in plain
// C++, independently of the kernels.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <string>
#include <vector>

#include "pipeline_launch.h"
#include "scaled_add/op_kernel/scaled_add_tiling_data.h"

namespace {

constexpr int kN = 2048;  // 8 blocks x 256 elements, as the example's data

int failures = 0;

void Expect(bool ok, const std::string& what) {
  if (!ok) {
    fprintf(stderr, "FAIL: %s\n", what.c_str());
    ++failures;
  }
}

struct Buffer {
  explicit Buffer(size_t bytes) : bytes(bytes), data(static_cast<unsigned char*>(aligned_alloc(512, Round(bytes)))) {
    memset(data, 0, Round(bytes));
  }
  ~Buffer() { free(data); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  static size_t Round(size_t n) { return (n + 511) / 512 * 512; }
  float* f() { return reinterpret_cast<float*>(data); }
  uint16_t* h() { return reinterpret_cast<uint16_t*>(data); }
  std::vector<unsigned char> Bytes() const { return std::vector<unsigned char>(data, data + bytes); }
  size_t bytes;
  unsigned char* data;
};

// IEEE binary16 <-> float, written out here so the reference does not use the twin's half type.
float HalfToFloat(uint16_t h) {
  const int sign = h >> 15, exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
  float v = exp == 0 ? ldexpf(static_cast<float>(frac), -24)
                     : exp == 31 ? (frac ? NAN : INFINITY) : ldexpf(static_cast<float>(frac | 0x400), exp - 25);
  return sign ? -v : v;
}
uint16_t FloatToHalf(float f) {  // round to nearest even; the example's values are normal halves
  uint32_t x;
  memcpy(&x, &f, 4);
  const uint32_t sign = (x >> 16) & 0x8000;
  const int exp = static_cast<int>((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffff;
  if (exp <= 0) return static_cast<uint16_t>(sign);
  uint32_t h = sign | (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
  const uint32_t rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1))) ++h;
  return static_cast<uint16_t>(h);
}

ScaledAddTilingData Tiling(float alpha) {
  ScaledAddTilingData t;
  t.totalNum = kN;
  t.blockFactor = kN / 8;
  t.ubFactor = 64;
  t.alpha = alpha;
  return t;
}

struct Tensors {
  Buffer a{kN * 4}, b{kN * 4}, c{kN * 2}, d{kN * 2}, h{kN * 4}, s{kN * 4}, r{kN * 4}, e{kN * 2};
  Buffer sa{sizeof(ScaledAddTilingData)}, sb{sizeof(ScaledAddTilingData)}, sc{sizeof(ScaledAddTilingData)};
  Buffer workspace{pipeline::kWorkspaceBytes ? pipeline::kWorkspaceBytes : 1};

  void Fill() {
    for (int i = 0; i < kN; ++i) {
      a.f()[i] = static_cast<float>((i * 37) % 97) / 16.0f - 3.0f;
      b.f()[i] = static_cast<float>((i * 53) % 89) / 16.0f - 2.5f;
      c.h()[i] = FloatToHalf(static_cast<float>((i * 29) % 61) / 16.0f - 2.0f);
      d.h()[i] = FloatToHalf(static_cast<float>((i * 31) % 67) / 32.0f - 1.0f);
    }
    for (Buffer* o : {&h, &s, &r, &e}) memset(o->data, 0xA5, o->bytes);
    const ScaledAddTilingData ta = Tiling(1.5f), tb = Tiling(0.5f), tc = Tiling(2.0f);
    memcpy(sa.data, &ta, sizeof ta);
    memcpy(sb.data, &tb, sizeof tb);
    memcpy(sc.data, &tc, sizeof tc);
    memset(workspace.data, 0, workspace.bytes);
  }
  pipeline::Args Args() {
    pipeline::Args x;
    x.a = a.data;
    x.b = b.data;
    x.c = c.data;
    x.d = d.data;
    x.h = h.data;
    x.s = s.data;
    x.r = r.data;
    x.e = e.data;
    x.sa_tiling = sa.data;
    x.sa_tiling_bytes = sa.bytes;
    x.sb_tiling = sb.data;
    x.sb_tiling_bytes = sb.bytes;
    x.sc_tiling = sc.data;
    x.sc_tiling_bytes = sc.bytes;
    x.workspace = workspace.data;
    x.workspace_bytes = workspace.bytes;
    return x;
  }
  std::vector<std::vector<unsigned char>> Outputs() const { return {h.Bytes(), s.Bytes(), r.Bytes(), e.Bytes()}; }
};

void CheckReferences(Tensors& t, const char* run) {
  int bad = 0;
  for (int i = 0; i < kN && bad < 5; ++i) {
    const float h = fmaxf(t.a.f()[i] * 1.5f + t.b.f()[i], 0.0f);
    const float s = h * h;
    const float r = fmaxf(s * 0.5f - t.a.f()[i], 0.0f);
    const float e = HalfToFloat(FloatToHalf(HalfToFloat(t.c.h()[i]) * 2.0f + HalfToFloat(t.d.h()[i])));
    const float got[] = {t.h.f()[i], t.s.f()[i], t.r.f()[i], HalfToFloat(t.e.h()[i])};
    const float want[] = {h, s, r, e};
    const char* names[] = {"h", "s", "r", "e"};
    for (int k = 0; k < 4; ++k) {
      if (fabsf(got[k] - want[k]) > 1e-5f + 1e-4f * fabsf(want[k])) {
        fprintf(stderr, "%s: %s[%d] = %g, reference %g\n", run, names[k], i, got[k], want[k]);
        ++bad;
      }
    }
  }
  Expect(bad == 0, std::string(run) + ": outputs match the references");
}

}  // namespace

int main() {
  static_assert(pipeline::kMinTilingBytes_sa == sizeof(ScaledAddTilingData), "tiling_size in BUILD");
  Tensors t;
  t.Fill();
  sk_launch::Status s = pipeline::Launch(t.Args(), nullptr);
  Expect(s.ok(), "Launch: " + s.error);
  CheckReferences(t, "fused");
  const auto fused = t.Outputs();
  t.Fill();
  s = pipeline::LaunchUnfused(t.Args(), nullptr);
  Expect(s.ok(), "LaunchUnfused: " + s.error);
  CheckReferences(t, "unfused");
  Expect(fused == t.Outputs(), "fused outputs equal the unfused launches bit for bit");
  if (failures) {
    fprintf(stderr, "%d failure(s)\n", failures);
    return 1;
  }
  printf("pipeline: fused == unfused, both match the references\n");
  return 0;
}
