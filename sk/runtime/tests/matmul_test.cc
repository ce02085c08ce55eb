// The cube Matmul high-level API on the twin against a plain loop: products
// of half inputs summed in float in k order, bias added in float, the result
// rounded to nearest even by the binary16 search of ascendc_util.h. Covers
// an AIC kernel (IterateAll, transposes, bias), Iterate + GetTensorC over
// base blocks with tails, a grouped matmul in a MIX launch through
// REGIST_MATMUL_OBJ, and the named misuses.
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "ascendc_util.h"
#include "lib/matmul_intf.h"
#include "matmul_test_util.h"

using namespace AscendC;
using ascendc_test::H;
using ascendc_test::RefHalf;

namespace {

using AType = MatmulType<TPosition::GM, CubeFormat::ND, half>;
using BType = MatmulType<TPosition::GM, CubeFormat::ND, half, true>;
using CFloat = MatmulType<TPosition::GM, CubeFormat::ND, float>;
using CHalf = MatmulType<TPosition::GM, CubeFormat::ND, half>;

void Launch(twin_test::Run* run, const char* name, std::function<void()> body, twin_test::Topo topo) {
  ascendc_test::Body() = std::move(body);
  twin_test::Launch(run, name, ascendc_test::BodyEntry, topo, {0}, 3000);
}

using matmul_test::Tiling;

std::vector<half> Values(size_t n, int seed) {
  std::vector<half> v(n);
  uint32_t x = 12345u + static_cast<uint32_t>(seed);
  for (auto& h : v) {
    x = x * 1103515245u + 12345u;
    h = H((static_cast<double>((x >> 8) % 2001) - 1000.0) / 256.0);
  }
  return v;
}

// C = op(A) op(B) (+ bias), float accumulation in k order. A is m x k (or k x m when ta), B k x n (or n x k).
std::vector<float> Reference(const std::vector<half>& a, const std::vector<half>& b, const float* bias, int m, int n,
                             int k, bool ta, bool tb) {
  std::vector<float> c(static_cast<size_t>(m) * n);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      float acc = 0.0f;
      for (int p = 0; p < k; ++p) {
        const float x = static_cast<float>(a[ta ? p * m + i : i * k + p].ToDouble());
        const float y = static_cast<float>(b[tb ? j * k + p : p * n + j].ToDouble());
        acc += x * y;  // exact product of two binary16 values, one float rounding per add
      }
      if (bias != nullptr) acc += bias[j];
      c[static_cast<size_t>(i) * n + j] = acc;
    }
  }
  return c;
}

TWIN_TEST(iterate_all_half_in_float_out_on_the_aic) {
  const int m = 32, n = 48, k = 64;
  std::vector<half> a = Values(m * k, 1), b = Values(n * k, 2);  // B stored transposed: n x k
  std::vector<float> c(m * n, -1.0f);
  twin_test::Run run;
  Launch(&run, "mm_aic", [&] {
    TCubeTiling t = Tiling(m, n, k);
    Matmul<AType, BType, CFloat> mm;
    mm.Init(&t);
    GlobalTensor<half> ga, gb;
    GlobalTensor<float> gc;
    ga.SetGlobalBuffer(a.data(), a.size());
    gb.SetGlobalBuffer(b.data(), b.size());
    gc.SetGlobalBuffer(c.data(), c.size());
    mm.SetTensorA(ga);
    mm.SetTensorB(gb, true);
    mm.IterateAll(gc);
    mm.End();
  }, {1, 1, 0});
  CHECK_OK(run);
  const std::vector<float> want = Reference(a, b, nullptr, m, n, k, false, true);
  int bad = 0;
  for (size_t i = 0; i < c.size(); ++i) bad += !ascendc_test::SameFloat(c[i], want[i]);
  CHECK_EQ(bad, 0);
}

TWIN_TEST(half_output_with_bias_and_transposed_a_rounds_to_nearest_even) {
  const int m = 16, n = 32, k = 40;
  std::vector<half> a = Values(m * k, 3), b = Values(k * n, 4);  // A stored transposed: k x m
  std::vector<half> bias(n), c(m * n, H(0.0));
  std::vector<float> bias_f(n);
  for (int j = 0; j < n; ++j) {
    bias[j] = H(0.125 * j - 1.0);
    bias_f[j] = static_cast<float>(bias[j].ToDouble());
  }
  twin_test::Run run;
  Launch(&run, "mm_bias", [&] {
    TCubeTiling t = Tiling(m, n, k);
    Matmul<AType, AType, CHalf> mm;
    mm.Init(&t);
    GlobalTensor<half> ga, gb, gc, gbias;
    ga.SetGlobalBuffer(a.data(), a.size());
    gb.SetGlobalBuffer(b.data(), b.size());
    gc.SetGlobalBuffer(c.data(), c.size());
    gbias.SetGlobalBuffer(bias.data(), bias.size());
    mm.SetTensorA(ga, true);
    mm.SetTensorB(gb);
    mm.SetBias(gbias);
    mm.IterateAll(gc);
  }, {1, 1, 0});
  CHECK_OK(run);
  const std::vector<float> want = Reference(a, b, bias_f.data(), m, n, k, true, false);
  int bad = 0;
  for (size_t i = 0; i < c.size(); ++i) bad += c[i].bits_ != RefHalf(static_cast<double>(want[i]));
  CHECK_EQ(bad, 0);
}

TWIN_TEST(iterate_and_get_tensor_c_cover_every_block_with_tails) {
  const int m = 40, n = 24, k = 16;
  std::vector<half> a = Values(m * k, 5), b = Values(k * n, 6);
  std::vector<float> c(m * n, 7.0f);
  int blocks = 0;
  twin_test::Run run;
  Launch(&run, "mm_iterate", [&] {
    TCubeTiling t = Tiling(m, n, k, 16, 16, 1);
    Matmul<AType, AType, CFloat> mm;
    mm.Init(&t);
    GlobalTensor<half> ga, gb;
    GlobalTensor<float> gc;
    ga.SetGlobalBuffer(a.data(), a.size());
    gb.SetGlobalBuffer(b.data(), b.size());
    gc.SetGlobalBuffer(c.data(), c.size());
    mm.SetTensorA(ga);
    mm.SetTensorB(gb);
    while (mm.Iterate()) {
      mm.GetTensorC(gc);
      ++blocks;
    }
    mm.End();
  }, {1, 1, 0});
  CHECK_OK(run);
  CHECK_EQ(blocks, 6);  // 3 blocks of M (16, 16, 8) x 2 of N (16, 8)
  const std::vector<float> want = Reference(a, b, nullptr, m, n, k, false, false);
  int bad = 0;
  for (size_t i = 0; i < c.size(); ++i) bad += !ascendc_test::SameFloat(c[i], want[i]);
  CHECK_EQ(bad, 0);
}

TWIN_TEST(grouped_matmul_in_a_mix_launch_through_regist_matmul_obj) {
  // 2 blocks x 2 AIVs: AIV g multiplies group g (m x k by k x n), the AIC of each block leaves at
  // REGIST_MATMUL_OBJ; then each AIV scales its C by 0.5 with a vector instruction.
  const int groups = 4, m = 16, n = 16, k = 32;
  std::vector<half> a = Values(groups * m * k, 7), b = Values(groups * k * n, 8);
  std::vector<float> c(groups * m * n, 0.0f);
  twin_test::Run run;
  Launch(&run, "grouped_mm", [&] {
    TPipe pipe;
    TCubeTiling t = Tiling(m, n, k);
    Matmul<AType, AType, CFloat> mm;
    REGIST_MATMUL_OBJ(&pipe, nullptr, mm, &t);
    const int g = static_cast<int>(GetBlockIdx());
    GlobalTensor<half> ga, gb;
    GlobalTensor<float> gc;
    ga.SetGlobalBuffer(a.data() + g * m * k, m * k);
    gb.SetGlobalBuffer(b.data() + g * k * n, k * n);
    gc.SetGlobalBuffer(c.data() + g * m * n, m * n);
    mm.SetTensorA(ga);
    mm.SetTensorB(gb);
    mm.IterateAll(gc);
    mm.End();
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, m * n * 4);
    LocalTensor<float> t0 = buf.Get<float>();
    DataCopy(t0, gc, m * n);
    Muls(t0, t0, 0.5f, m * n);
    DataCopy(gc, t0, m * n);
  }, {2, 1, 2});
  CHECK_OK(run);
  int bad = 0;
  for (int g = 0; g < groups; ++g) {
    const std::vector<half> ag(a.begin() + g * m * k, a.begin() + (g + 1) * m * k);
    const std::vector<half> bg(b.begin() + g * k * n, b.begin() + (g + 1) * k * n);
    const std::vector<float> want = Reference(ag, bg, nullptr, m, n, k, false, false);
    for (int i = 0; i < m * n; ++i) bad += !ascendc_test::SameFloat(c[g * m * n + i], want[i] * 0.5f);
  }
  CHECK_EQ(bad, 0);
}

TWIN_TEST(grouped_matmul_on_the_aic_then_vector_work_on_its_aivs) {
  // The separated MIX style of MoE kernels: the AIC of block g computes group g's C, then tells its two AIVs
  // (mode-2 flag 5); AIV s scales rows [8 s, 8 s + 8) of that C by 2 into out.
  const int groups = 2, m = 16, n = 32, k = 24;
  std::vector<half> a = Values(groups * m * k, 9), b = Values(groups * k * n, 10);
  std::vector<float> c(groups * m * n, 0.0f), out(groups * m * n, 0.0f);
  twin_test::Run run;
  Launch(&run, "grouped_mix", [&] {
    const int g = static_cast<int>(get_block_idx());
    GlobalTensor<float> gc;
    gc.SetGlobalBuffer(c.data() + g * m * n, m * n);
    if (ASCEND_IS_AIC) {
      TCubeTiling t = Tiling(m, n, k);
      Matmul<AType, AType, CFloat> mm;
      mm.Init(&t);
      GlobalTensor<half> ga, gb;
      ga.SetGlobalBuffer(a.data() + g * m * k, m * k);
      gb.SetGlobalBuffer(b.data() + g * k * n, k * n);
      mm.SetTensorA(ga);
      mm.SetTensorB(gb);
      mm.IterateAll(gc);
      mm.End();
      CrossCoreSetFlag<2, PIPE_FIX>(5);
      return;
    }
    CrossCoreWaitFlag(5);
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 8 * n * 4);
    LocalTensor<float> t0 = buf.Get<float>();
    const int row0 = 8 * static_cast<int>(GetSubBlockIdx());
    DataCopy(t0, gc[row0 * n], 8 * n);
    Muls(t0, t0, 2.0f, 8 * n);
    GlobalTensor<float> go;
    go.SetGlobalBuffer(out.data() + g * m * n + row0 * n, 8 * n);
    DataCopy(go, t0, 8 * n);
  }, {2, 1, 2});
  CHECK_OK(run);
  int bad = 0;
  for (int g = 0; g < groups; ++g) {
    const std::vector<half> ag(a.begin() + g * m * k, a.begin() + (g + 1) * m * k);
    const std::vector<half> bg(b.begin() + g * k * n, b.begin() + (g + 1) * k * n);
    const std::vector<float> want = Reference(ag, bg, nullptr, m, n, k, false, false);
    for (int i = 0; i < m * n; ++i) bad += !ascendc_test::SameFloat(out[g * m * n + i], want[i] * 2.0f);
  }
  CHECK_EQ(bad, 0);
}

TWIN_TEST(a_too_small_for_the_shape_is_named) {
  std::vector<half> a(16 * 16), b(16 * 16);
  std::vector<float> c(16 * 16);
  twin_test::Run run;
  Launch(&run, "mm_small_a", [&] {
    TCubeTiling t = Tiling(32, 16, 16);
    Matmul<AType, AType, CFloat> mm;
    mm.Init(&t);
    GlobalTensor<half> ga, gb;
    GlobalTensor<float> gc;
    ga.SetGlobalBuffer(a.data(), a.size());
    gb.SetGlobalBuffer(b.data(), b.size());
    gc.SetGlobalBuffer(c.data(), c.size());
    mm.SetTensorA(ga);
    mm.SetTensorB(gb);
    mm.IterateAll(gc);
  }, {1, 1, 0});
  CHECK_EQ(run.status, SK_TWIN_KERNEL_ERROR);
  CHECK_CONTAINS(run.error(), "kernel 'mm_small_a'");
  CHECK_CONTAINS(run.error(), "Matmul<half, half, float>::IterateAll(m 32, n 16, k 16)");
  CHECK_CONTAINS(run.error(), "A needs GM elements up to 511");
}

TWIN_TEST(missing_set_tensor_b_is_named) {
  std::vector<half> a(256);
  std::vector<float> c(256);
  twin_test::Run run;
  Launch(&run, "mm_no_b", [&] {
    TCubeTiling t = Tiling(16, 16, 16);
    Matmul<AType, AType, CFloat> mm;
    mm.Init(&t);
    GlobalTensor<half> ga;
    GlobalTensor<float> gc;
    ga.SetGlobalBuffer(a.data(), a.size());
    gc.SetGlobalBuffer(c.data(), c.size());
    mm.SetTensorA(ga);
    mm.IterateAll(gc);
  }, {1, 1, 0});
  CHECK_EQ(run.status, SK_TWIN_KERNEL_ERROR);
  CHECK_CONTAINS(run.error(), "Matmul::IterateAll");
  CHECK_CONTAINS(run.error(), "SetTensorB was not called");
}

}  // namespace

int main(int argc, char** argv) { return twin_test::Main(argc, argv); }
