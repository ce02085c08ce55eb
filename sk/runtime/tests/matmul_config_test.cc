// MatmulConfig on the twin: the fields the documented builders and the
// positional initialisers of CANN's kernels set (checked at compile time),
// and the two fields that change what a Matmul computes here: enableSetBias
// false (the bias is compiled out) and iterateOrder under
// ScheduleType::OUTER_PRODUCT (the order Iterate visits C's blocks in).
// Inputs are small integers, so every product and sum is exact and the
// reference is plain integer arithmetic.
#include <cmath>
#include <cstring>
#include <type_traits>
#include <functional>
#include <utility>
#include <vector>

#include "ascendc_util.h"
#include "lib/matmul_intf.h"
#include "matmul_test_util.h"

using namespace AscendC;
using ascendc_test::H;

namespace {

// The documented defaults and what each builder turns on.
static_assert(MatmulConfig{}.doNorm && !MatmulConfig{}.doMultiDataLoad && MatmulConfig{}.enableSetBias);
static_assert(CFG_NORM.doNorm && !CFG_NORM.doMultiDataLoad && CFG_NORM.enUnitFlag);
static_assert(!CFG_MDL.doNorm && CFG_MDL.doMultiDataLoad && !CFG_MDL.enUnitFlag && CFG_MDL.enableUBReuse);
static_assert(CFG_IBSHARE_NORM.doIBShareNorm && MM_CFG_BB.doBasicBlock);

// GetMDLConfig with all twelve arguments, each to a non-default value.
constexpr MatmulConfig kMdl = GetMDLConfig(true, true, 2, true, true, true, true, false, false, true, true, true);
static_assert(kMdl.intrinsicsCheck && kMdl.isNBatch && kMdl.doMTE2Preload == 2 && kMdl.enVecND2NZ);
static_assert(kMdl.isPerTensor && kMdl.hasAntiQuantOffset && kMdl.enUnitFlag && !kMdl.enableReuse);
static_assert(!kMdl.enableUBReuse && kMdl.enableL1CacheUB && kMdl.enableMixDualMaster && kMdl.enableKdimReorderLoad);

constexpr MatmulConfig kNorm = GetNormalConfig(false, false, true, BatchMode::BATCH_LARGE_THAN_L1, false,
                                               IterateOrder::ORDER_N, ScheduleType::OUTER_PRODUCT, false, true,
                                               BatchOutMode::MULTI_BATCH);
static_assert(kNorm.doNorm && kNorm.enVecND2NZ && kNorm.batchMode == BatchMode::BATCH_LARGE_THAN_L1);
static_assert(!kNorm.enableReuse && kNorm.iterateOrder == IterateOrder::ORDER_N);
static_assert(kNorm.scheduleType == ScheduleType::OUTER_PRODUCT && !kNorm.enUnitFlag && kNorm.enableMixDualMaster);
static_assert(kNorm.bmmOutMode == BatchOutMode::MULTI_BATCH);

constexpr MatmulConfig kSpecial = GetSpecialMDLConfig(false, false, 1, false, true);
static_assert(kSpecial.doSpecialMDL && !kSpecial.doMultiDataLoad && kSpecial.doMTE2Preload == 1 &&
              kSpecial.isPerTensor && !kSpecial.hasAntiQuantOffset);

constexpr MatmulConfig kBasic = GetBasicConfig(128, 256, 64);
static_assert(kBasic.doBasicBlock && kBasic.basicM == 128 && kBasic.basicN == 256 && kBasic.basicK == 64);
static_assert(kBasic.batchMode == BatchMode::BATCH_LESS_THAN_L1);

// The positional form: the 19th value is enUnitFlag, the 22nd doIBShareNorm.
constexpr MatmulConfig kPositional{false, false, true, 0, 0, 0, false, false, false, false,
                                   false, 0,     0,    0, 0, 0, 0,     0,     true};
static_assert(kPositional.doMultiDataLoad && !kPositional.doNorm && kPositional.enUnitFlag);
static_assert(kPositional.enableInit && kPositional.isBiasBatch && !kPositional.isPerTensor);
constexpr MatmulConfig kPositional22{true, false, false, 0, 0, 0, false, false, false, false, 0,
                                     0,    0,     0,     0, 0, 0, false, false, false, false, true};
static_assert(kPositional22.doNorm && !kPositional22.enUnitFlag && kPositional22.doIBShareNorm);

// GetMMConfig: the mode's template, then each second-level config in order.
constexpr MatmulShapeParams kShape{128, 64, 32, 16, 16, 8};
constexpr MatmulBatchParams kBatch{false, BatchMode::SINGLE_LARGE_THAN_L1, false, BatchOutMode::DYNAMIC};
constexpr MatmulFuncParams kFunc{true, false, false, false, 1, IterateOrder::ORDER_M};
constexpr MatmulConfig kMM = GetMMConfig<MatmulConfigMode::CONFIG_MDL>(kShape, MatmulQuantParams{true, true}, kBatch,
                                                                       kFunc);
static_assert(kMM.doMultiDataLoad && !kMM.doNorm && kMM.singleCoreM == 128 && kMM.singleCoreK == 32);
static_assert(kMM.basicN == 16 && kMM.basicK == 8 && kMM.isPerTensor && kMM.hasAntiQuantOffset);
static_assert(kMM.batchMode == BatchMode::SINGLE_LARGE_THAN_L1 && !kMM.isBiasBatch);
static_assert(kMM.bmmOutMode == BatchOutMode::DYNAMIC && kMM.intrinsicsCheck && kMM.doMTE2Preload == 1);
static_assert(kMM.iterateOrder == IterateOrder::ORDER_M);
static_assert(GetMMConfig<MatmulConfigMode::CONFIG_NORM>().doNorm);
static_assert(GetMMConfig<MatmulConfigMode::CONFIG_SPECIALMDL>().doSpecialMDL);
static_assert(GetMMConfig<MatmulConfigMode::CONFIG_IBSHARE>().doIBShareNorm);

// CANN names the layout unqualified, and MatmulType takes the source position last.
using NzA = MatmulType<TPosition::GM, ::CubeFormat::NZ, half, false, LayoutMode::NONE, false, TPosition::VECOUT>;
static_assert(NzA::format == CubeFormat::NZ && NzA::srcPos == TPosition::VECOUT);
static_assert(MatmulType<TPosition::GM, CubeFormat::ND, half>::srcPos == TPosition::GM);

// The documented order of the quantisation modes (Fixpipe's quantPre), bare and qualified.
static_assert(NoQuant == 0 && QuantMode_t::F322BF16 == 2 && VREQ8 == 8 && QuantMode_t::VQF322F32_PRE == 22);
static_assert(TOTAL_L1_SIZE == 512 * 1024);  // the documented L1 Buffer capacity

using AType = MatmulType<TPosition::GM, CubeFormat::ND, half>;
// MatmulImpl is Matmul; callbacks that are all nullptr are the default copies.
static_assert(std::is_same_v<MatmulImpl<AType, AType, AType, AType, CFG_MDL, MatmulCallBackFunc<nullptr, nullptr, nullptr>>,
                             matmul::MatmulImpl<AType, AType, AType, AType, CFG_MDL,
                                                MatmulCallBackFunc<nullptr, nullptr, nullptr>>>);
using CFloat = MatmulType<TPosition::GM, CubeFormat::ND, float>;

constexpr MatmulConfig kNoBias = [] {
  MatmulConfig c = GetMDLConfig();
  c.enableSetBias = false;
  return c;
}();
constexpr MatmulConfig kOuterN = GetNormalConfig(false, false, false, BatchMode::BATCH_LESS_THAN_L1, true,
                                                 IterateOrder::ORDER_N, ScheduleType::OUTER_PRODUCT);
constexpr MatmulConfig kInnerN = GetNormalConfig(false, false, false, BatchMode::BATCH_LESS_THAN_L1, true,
                                                 IterateOrder::ORDER_N, ScheduleType::INNER_PRODUCT);

void Launch(twin_test::Run* run, const char* name, std::function<void()> body) {
  ascendc_test::Body() = std::move(body);
  twin_test::Launch(run, name, ascendc_test::BodyEntry, {1, 1, 0}, {0}, 3000);
}

using matmul_test::Tiling;

std::vector<half> Ints(int n, int seed) {
  std::vector<half> v(n);
  for (int i = 0; i < n; ++i) v[i] = H(static_cast<double>((i * 7 + seed * 3) % 9 - 4));
  return v;
}

// C = A B (+ bias) in integers, A m x k, B k x n, row-major.
std::vector<float> IntProduct(const std::vector<half>& a, const std::vector<half>& b, const std::vector<float>* bias,
                              int m, int n, int k) {
  std::vector<float> c(static_cast<size_t>(m) * n);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      long long acc = 0;
      for (int p = 0; p < k; ++p) {
        acc += static_cast<long long>(a[i * k + p].ToDouble()) * static_cast<long long>(b[p * n + j].ToDouble());
      }
      c[i * n + j] = static_cast<float>(acc) + (bias != nullptr ? (*bias)[j] : 0.0f);
    }
  }
  return c;
}

TWIN_TEST(enable_set_bias_false_compiles_the_bias_out) {
  const int m = 16, n = 16, k = 16;
  std::vector<half> a = Ints(m * k, 1), b = Ints(k * n, 2);
  std::vector<float> bias(n), c_off(m * n, -1.0f), c_on(m * n, -1.0f);
  for (int j = 0; j < n; ++j) bias[j] = 100.0f + j;
  twin_test::Run run;
  Launch(&run, "mm_no_bias", [&] {
    TCubeTiling t = Tiling(m, n, k, 0, 0, 0);
    GlobalTensor<half> ga, gb;
    GlobalTensor<float> gbias, goff, gon;
    ga.SetGlobalBuffer(a.data(), a.size());
    gb.SetGlobalBuffer(b.data(), b.size());
    ga.SetL2CacheHint(CacheMode::CACHE_MODE_DISABLE);  // a hint only: the twin has no L2
    gb.SetL2CacheHint<CacheRwMode::READ>(CacheMode::CACHE_MODE_NORMAL);
    gbias.SetGlobalBuffer(bias.data(), bias.size());
    goff.SetGlobalBuffer(c_off.data(), c_off.size());
    gon.SetGlobalBuffer(c_on.data(), c_on.size());
    Matmul<AType, AType, CFloat, CFloat, kNoBias> off;
    off.Init(&t);
    off.SetTensorA(ga);
    off.SetTensorB(gb);
    off.SetBias(gbias);
    off.IterateAll(goff);
    Matmul<AType, AType, CFloat, CFloat, CFG_MDL> on;
    on.Init(&t);
    on.SetTensorA(ga);
    on.SetTensorB(gb);
    on.SetBias(gbias);
    on.IterateAll(gon);
  });
  CHECK_OK(run);
  const std::vector<float> plain = IntProduct(a, b, nullptr, m, n, k), biased = IntProduct(a, b, &bias, m, n, k);
  int bad = 0;
  for (int i = 0; i < m * n; ++i) bad += (c_off[i] != plain[i]) + (c_on[i] != biased[i]);
  CHECK_EQ(bad, 0);
}

// The (row, col) block of each Iterate, read from where GetTensorC wrote.
template <const auto& CFG>
std::vector<std::pair<int, int>> BlockOrder(int tilingOrder, bool* values_ok) {
  const int m = 32, n = 48, k = 16, bm = 16, bn = 16;
  std::vector<half> a = Ints(m * k, 3), b = Ints(k * n, 4);
  std::vector<float> c(m * n, NAN);
  std::vector<std::pair<int, int>> order;
  twin_test::Run run;
  Launch(&run, "mm_order", [&] {
    TCubeTiling t = Tiling(m, n, k, bm, bn, tilingOrder);
    Matmul<AType, AType, CFloat, CFloat, CFG> mm;
    mm.Init(&t);
    GlobalTensor<half> ga, gb;
    GlobalTensor<float> gc;
    ga.SetGlobalBuffer(a.data(), a.size());
    gb.SetGlobalBuffer(b.data(), b.size());
    gc.SetGlobalBuffer(c.data(), c.size());
    mm.SetTensorA(ga);
    mm.SetTensorB(gb);
    while (mm.Iterate()) {
      std::vector<float> before = c;
      mm.GetTensorC(gc);
      for (int i = 0; i < m * n; ++i) {
        if (std::isnan(before[i]) && !std::isnan(c[i])) {
          order.emplace_back(i / n / bm, i % n / bn);
          break;
        }
      }
    }
  });
  const std::vector<float> want = IntProduct(a, b, nullptr, m, n, k);
  *values_ok = run.status == 0;
  for (int i = 0; i < m * n; ++i) *values_ok = *values_ok && c[i] == want[i];
  return order;
}

TWIN_TEST(outer_product_iterates_in_the_configured_order) {
  using O = std::vector<std::pair<int, int>>;
  bool ok = false;
  // ORDER_N under OUTER_PRODUCT: along N first, whatever the tiling says (its iterateOrder 0 is M first).
  CHECK(BlockOrder<kOuterN>(0, &ok) == (O{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}}));
  CHECK(ok);
  // INNER_PRODUCT: the configuration's iterateOrder has no effect, the tiling's M-first order holds.
  CHECK(BlockOrder<kInnerN>(0, &ok) == (O{{0, 0}, {1, 0}, {0, 1}, {1, 1}, {0, 2}, {1, 2}}));
  CHECK(ok);
}

constexpr MatmulConfig kBasic16 = GetBasicConfig(16, 16, 16);

TWIN_TEST(basic_block_config_matches_the_tiling) {
  const int m = 32, n = 32, k = 16;
  std::vector<half> a = Ints(m * k, 5), b = Ints(k * n, 6);
  std::vector<float> c(m * n, -1.0f);
  for (int baseN : {16, 32}) {
    twin_test::Run run;
    Launch(&run, "mm_basic", [&] {
      TCubeTiling t = Tiling(m, n, k, 16, baseN, 0);
      t.baseK = 16;
      Matmul<AType, AType, CFloat, CFloat, kBasic16> mm;
      mm.Init(&t);
      GlobalTensor<half> ga, gb;
      GlobalTensor<float> gc;
      ga.SetGlobalBuffer(a.data(), a.size());
      gb.SetGlobalBuffer(b.data(), b.size());
      gc.SetGlobalBuffer(c.data(), c.size());
      mm.SetTensorA(ga);
      mm.SetTensorB(gb);
      mm.IterateAll(gc);
    });
    if (baseN == 16) {
      CHECK_OK(run);
      const std::vector<float> want = IntProduct(a, b, nullptr, m, n, k);
      int bad = 0;
      for (int i = 0; i < m * n; ++i) bad += c[i] != want[i];
      CHECK_EQ(bad, 0);
    } else {
      CHECK_EQ(run.status, SK_TWIN_KERNEL_ERROR);
      CHECK_CONTAINS(run.error(), "Matmul::Init");
      CHECK_CONTAINS(run.error(), "basicM/N/K 16/16/16 differ from the tiling's baseM/N/K 16/32/16");
    }
  }
}

}  // namespace

int main(int argc, char** argv) { return twin_test::Main(argc, argv); }
