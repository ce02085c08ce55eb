// The Matmul forms CANN's mat_mul_v3 family uses: A/B already in L1 (TPosition::TSCM) in NZ, B in GM in NZ,
// Iterate(enPartialSum, L0C tensor) into CO1 as NZ fractals, the MmadParams form of Atlas A2/A3 and the
// LoadData2dParams spelling. Values are small integers in half, so every product and sum is exact in float and the
// references (plain loops in double over the ND matrices) must match bit for bit.
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "ascendc_util.h"
#include "matmul_test_util.h"

using namespace AscendC;
using ascendc_test::H;

namespace {

void RunAic(twin_test::Run* run, const char* name, std::function<void()> body) {
  ascendc_test::Body() = std::move(body);
  twin_test::Launch(run, name, ascendc_test::BodyEntry, {1, 1, 0}, {0}, 3000);
}

std::vector<half> Ints(size_t n, int seed) {
  std::vector<half> v(n);
  uint32_t x = 99u + static_cast<uint32_t>(seed);
  for (auto& h : v) {
    x = x * 1103515245u + 12345u;
    h = H(static_cast<double>(static_cast<int>((x >> 9) % 9) - 4));
  }
  return v;
}

// C = A (m x k) * B (k x n), all given row-major, in double (exact for these values).
std::vector<double> Ref(const std::vector<half>& a, const std::vector<half>& b, int m, int n, int k) {
  std::vector<double> c(static_cast<size_t>(m) * n, 0.0);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j)
      for (int p = 0; p < k; ++p) c[i * n + j] += a[i * k + p].ToDouble() * b[p * n + j].ToDouble();
  return c;
}

// The NZ image of a rows x cols half matrix: column blocks of 16 columns, each `height` rows of 16 (zero padding),
// written fractal by fractal (16 x 16 blocks) rather than through an index formula.
std::vector<half> NzImage(const std::vector<half>& nd, int rows, int cols, int height) {
  const int blocks = (cols + 15) / 16;
  std::vector<half> out(static_cast<size_t>(blocks) * height * 16, H(0));
  size_t pos = 0;
  for (int cb = 0; cb < blocks; ++cb) {
    for (int r = 0; r < height; ++r) {
      for (int c = cb * 16; c < cb * 16 + 16; ++c, ++pos) {
        if (r < rows && c < cols) out[pos] = nd[r * cols + c];
      }
    }
  }
  return out;
}

constexpr int M = 20, N = 24, K = 40;

using AGm = MatmulType<TPosition::GM, CubeFormat::ND, half>;
using ATscm = MatmulType<TPosition::TSCM, CubeFormat::NZ, half>;
using BGm = MatmulType<TPosition::GM, CubeFormat::ND, half>;
using BGmNz = MatmulType<TPosition::GM, CubeFormat::NZ, half>;
using CGm = MatmulType<TPosition::GM, CubeFormat::ND, float>;

TWIN_TEST(a_in_tscm_nz_times_b_in_gm) {
  for (bool trans : {false, true}) {
    std::vector<half> a = Ints(M * K, 1), b = Ints(K * N, 2);
    // A transposed is stored K x M (ND in GM), loaded to L1 by the kernel's own Nd2Nz copy.
    std::vector<half> stored(a);
    if (trans) {
      for (int i = 0; i < M; ++i)
        for (int p = 0; p < K; ++p) stored[p * M + i] = a[i * K + p];
    }
    std::vector<float> c(M * N, -7.0f);
    TCubeTiling t = matmul_test::Tiling(M, N, K);
    twin_test::Run run;
    RunAic(&run, "tscm_a", [&] {
      TPipe pipe;
      TBuf<TPosition::TSCM> l1;
      pipe.InitBuffer(l1, 64 * 48 * 2);
      GlobalTensor<half> ga, gb;
      GlobalTensor<float> gc;
      ga.SetGlobalBuffer(stored.data(), M * K);
      gb.SetGlobalBuffer(b.data(), K * N);
      gc.SetGlobalBuffer(c.data(), M * N);
      LocalTensor<half> al1 = l1.Get<half>();
      const int rows = trans ? K : M, cols = trans ? M : K;
      DataCopy(al1, ga, Nd2NzParams(1, rows, cols, 0, cols, (rows + 15) / 16 * 16, 1, 0));
      Matmul<ATscm, BGm, CGm> mm;
      mm.Init(&t, &pipe);
      mm.SetTensorA(al1, trans);
      mm.SetTensorB(gb);
      mm.IterateAll(gc);
      mm.End();
    });
    CHECK_OK(run);
    std::vector<double> want = Ref(a, b, M, N, K);
    for (int i = 0; i < M * N; ++i) CHECK_EQ(static_cast<double>(c[i]), want[i]);
  }
}

TWIN_TEST(b_in_gm_nz_with_an_org_height) {
  std::vector<half> a = Ints(M * K, 3), b = Ints(K * N, 4);
  // B in NZ in GM: its column blocks are as high as K aligned to 16 (48 rows).
  std::vector<half> bnz = NzImage(b, K, N, 48);
  std::vector<float> c(M * N, 0.0f);
  TCubeTiling t = matmul_test::Tiling(M, N, K);
  twin_test::Run run;
  RunAic(&run, "gm_nz_b", [&] {
    GlobalTensor<half> ga, gb;
    GlobalTensor<float> gc;
    ga.SetGlobalBuffer(a.data(), M * K);
    gb.SetGlobalBuffer(bnz.data(), bnz.size());
    gc.SetGlobalBuffer(c.data(), M * N);
    Matmul<AGm, BGmNz, CGm> mm;
    mm.Init(&t);
    mm.SetTensorA(ga);
    mm.SetTensorB(gb);
    mm.IterateAll(gc);
  });
  CHECK_OK(run);
  std::vector<double> want = Ref(a, b, M, N, K);
  for (int i = 0; i < M * N; ++i) CHECK_EQ(static_cast<double>(c[i]), want[i]);
}

TWIN_TEST(iterate_into_l0c_then_partial_sum) {
  std::vector<half> a1 = Ints(M * K, 5), a2 = Ints(M * K, 6), b = Ints(K * N, 7);
  std::vector<float> c(M * N, 0.0f), first(M * N, 0.0f);
  TCubeTiling t = matmul_test::Tiling(M, N, K);
  twin_test::Run run;
  RunAic(&run, "l0c", [&] {
    TPipe pipe;
    TQue<TPosition::CO1, 1> qc;
    pipe.InitBuffer(qc, 1, 32 * 32 * 4);
    GlobalTensor<half> ga1, ga2, gb;
    GlobalTensor<float> gc, gfirst;
    ga1.SetGlobalBuffer(a1.data(), M * K);
    ga2.SetGlobalBuffer(a2.data(), M * K);
    gb.SetGlobalBuffer(b.data(), K * N);
    gc.SetGlobalBuffer(c.data(), M * N);
    gfirst.SetGlobalBuffer(first.data(), M * N);
    LocalTensor<float> l0c = qc.AllocTensor<float>();
    Matmul<AGm, BGm, CGm> mm;
    mm.Init(&t, &pipe);
    mm.SetTensorA(ga1);
    mm.SetTensorB(gb);
    CHECK(mm.Iterate(false, l0c));
    CHECK(!mm.Iterate(false, l0c));  // one block: the second call finds none
    // L0C holds NZ fractals with the block's rows aligned to 16: srcStride 32 for m = 20.
    Fixpipe(gfirst, l0c, FixpipeParamsV220(N, M, 32, N, false));
    mm.End();
    mm.SetTensorA(ga2);
    CHECK(mm.Iterate(true, l0c));
    Fixpipe(gc, l0c, FixpipeParamsV220(N, M, 32, N, false));
    mm.End();
    qc.FreeTensor(l0c);
  });
  CHECK_OK(run);
  std::vector<double> w1 = Ref(a1, b, M, N, K), w2 = Ref(a2, b, M, N, K);
  for (int i = 0; i < M * N; ++i) {
    CHECK_EQ(static_cast<double>(first[i]), w1[i]);
    CHECK_EQ(static_cast<double>(c[i]), w1[i] + w2[i]);
  }
}

TWIN_TEST(an_l1_operand_past_its_buffer_is_named) {
  std::vector<half> b = Ints(K * N, 8);
  std::vector<float> c(M * N, 0.0f);
  TCubeTiling t = matmul_test::Tiling(M, N, K);
  twin_test::Run run;
  RunAic(&run, "small_l1", [&] {
    TPipe pipe;
    TBuf<TPosition::TSCM> l1;
    pipe.InitBuffer(l1, 32 * 32 * 2);  // A needs 3 column blocks of 32 rows: 48 x 32 halves
    GlobalTensor<half> gb;
    GlobalTensor<float> gc;
    gb.SetGlobalBuffer(b.data(), K * N);
    gc.SetGlobalBuffer(c.data(), M * N);
    Matmul<ATscm, BGm, CGm> mm;
    mm.Init(&t, &pipe);
    mm.SetTensorA(l1.Get<half>());
    mm.SetTensorB(gb);
    mm.IterateAll(gc);
  });
  CHECK_EQ(run.status, SK_TWIN_KERNEL_ERROR);
  CHECK_CONTAINS(run.error(), "outside its buffer");
}

// CopyA1: the requested tile of A (ND in GM, M x K, row length in the user info) to L1 in NZ with the kernel's own
// Nd2Nz copy; it counts its calls in the self-define data.
struct CbInfo {
  int ka;
  int tm, tk;
};
void CopyTileA(const LocalTensor<int8_t>& l1, const __gm__ void* gm, int row, int col, int useM, int useK,
               const uint64_t tilingPtr, const uint64_t dataPtr) {
  const CbInfo* info = reinterpret_cast<const CbInfo*>(tilingPtr);
  *reinterpret_cast<int*>(dataPtr) += 1;
  GlobalTensor<half> src;
  src.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(const_cast<void*>(gm)) + row * info->tm * info->ka + col * info->tk,
                      static_cast<uint64_t>(useM - 1) * info->ka + useK);
  DataCopy(l1.ReinterpretCast<half>(), src, Nd2NzParams(1, useM, useK, 0, info->ka, (useM + 15) / 16 * 16, 1, 0));
}
// CopyB1 in the full-load style of CANN's kernels: the first call loads all of B (K x N), later calls do nothing and
// the Matmul keeps reading what L1 holds.
thread_local bool g_bLoaded = false;
void CopyWholeB(const LocalTensor<int8_t>& l1, const __gm__ void* gm, int row, int col, int useK, int useN,
                const uint64_t, const uint64_t) {
  if (g_bLoaded) return;
  g_bLoaded = true;
  CHECK_EQ(row, 0);
  CHECK_EQ(col, 0);
  GlobalTensor<half> src;
  src.SetGlobalBuffer(reinterpret_cast<__gm__ half*>(const_cast<void*>(gm)), static_cast<uint64_t>(useK) * useN);
  DataCopy(l1.ReinterpretCast<half>(), src, Nd2NzParams(1, useK, useN, 0, useN, (useK + 15) / 16 * 16, 1, 0));
}

TWIN_TEST(copy_callbacks_fill_l1_tiles) {
  std::vector<half> a = Ints(M * K, 9), b = Ints(K * N, 10);
  std::vector<float> c(M * N, 0.0f), c2(M * N, 0.0f);
  // Tiles of A: baseM 16 x baseK 16 with steps 1 -> 2 x 3 tiles (the last ones partial); B: one tile (steps cover it).
  TCubeTiling t = matmul_test::Tiling(M, N, K, 16, 16);
  t.baseK = 16;
  t.stepM = t.stepKa = 1;
  t.stepKb = 3;
  t.stepN = 2;
  CbInfo info{K, 16, 16};
  int calls = 0;
  twin_test::Run run;
  RunAic(&run, "callbacks", [&] {
    g_bLoaded = false;
    TPipe pipe;
    GlobalTensor<half> ga, gb;
    GlobalTensor<float> gc, gc2;
    ga.SetGlobalBuffer(a.data(), M * K);
    gb.SetGlobalBuffer(b.data(), K * N);
    gc.SetGlobalBuffer(c.data(), M * N);
    gc2.SetGlobalBuffer(c2.data(), M * N);
    Matmul<AGm, BGm, CGm, CGm, CFG_NORM, MatmulCallBackFunc<nullptr, CopyTileA, CopyWholeB>> mm;
    mm.Init(&t, &pipe);
    mm.SetUserDefInfo(reinterpret_cast<uint64_t>(&info));
    mm.SetSelfDefineData(reinterpret_cast<uint64_t>(&calls));
    mm.SetTensorA(ga);
    mm.SetTensorB(gb);
    mm.IterateAll(gc);
    mm.End();
    mm.IterateAll(gc2);  // B comes from what L1 still holds
    mm.End();
  });
  CHECK_OK(run);
  CHECK_EQ(calls, 2 * 2 * 3);
  std::vector<double> want = Ref(a, b, M, N, K);
  for (int i = 0; i < M * N; ++i) {
    CHECK_EQ(static_cast<double>(c[i]), want[i]);
    CHECK_EQ(static_cast<double>(c2[i]), want[i]);
  }
}

TWIN_TEST(copy_callbacks_need_the_pipe) {
  TCubeTiling t = matmul_test::Tiling(M, N, K);
  twin_test::Run run;
  RunAic(&run, "callbacks_no_pipe", [&] {
    Matmul<AGm, BGm, CGm, CGm, CFG_NORM, MatmulCallBackFunc<nullptr, CopyTileA, nullptr>> mm;
    mm.Init(&t);
  });
  CHECK_EQ(run.status, SK_TWIN_KERNEL_ERROR);
  CHECK_CONTAINS(run.error(), "a Matmul with CopyA1/CopyB1 callbacks got no TPipe");
}

// IterateBatch, NORMAL layout: 3 batches of A (M x K) and B (K x N) side by side in GM, batch bias with
// isBiasBatch, C the batches' M x N blocks one after another; the cube form (MatmulImpl + SetBatchNum) and the
// client form (batchA, batchB) give the same.
TWIN_TEST(iterate_batch_normal_layout) {
  constexpr int B = 3;
  std::vector<half> a = Ints(B * M * K, 11), b = Ints(B * N * K, 12), bias = Ints(B * N, 13);
  std::vector<half> c(B * M * N, H(0)), c2(B * M * N, H(0));
  TCubeTiling t = matmul_test::Tiling(M, N, K);
  t.isBias = 1;
  using CH = MatmulType<TPosition::GM, CubeFormat::ND, half>;
  twin_test::Run run;
  RunAic(&run, "batch", [&] {
    SetMMLayoutTransform(true);
    GlobalTensor<half> ga, gb, gbias, gc, gc2;
    ga.SetGlobalBuffer(a.data(), a.size());
    gb.SetGlobalBuffer(b.data(), b.size());
    gbias.SetGlobalBuffer(bias.data(), bias.size());
    gc.SetGlobalBuffer(c.data(), c.size());
    gc2.SetGlobalBuffer(c2.data(), c2.size());
    MatmulImpl<AGm, BGm, CH, CH> mm;
    mm.Init(&t);
    mm.SetTensorA(ga);
    mm.SetTensorB(gb);
    mm.SetBias(gbias);
    mm.SetBatchNum(B, B);
    mm.IterateBatch(gc, 0, 0, 0, M * K, K * N);
    Matmul<AGm, BGm, CH, CH> client;
    client.Init(&t);
    client.SetTensorA(ga);
    client.SetTensorB(gb);
    client.SetBias(gbias);
    client.IterateBatch(gc2, B, B, false);
    SetMMLayoutTransform(false);
  });
  CHECK_OK(run);
  for (int p = 0; p < B; ++p) {
    std::vector<half> ab(a.begin() + p * M * K, a.begin() + (p + 1) * M * K);
    std::vector<half> bb(b.begin() + p * K * N, b.begin() + (p + 1) * K * N);
    std::vector<double> want = Ref(ab, bb, M, N, K);
    for (int i = 0; i < M; ++i) {
      for (int j = 0; j < N; ++j) {
        // |values| stay below 2048: exact in half.
        const double w = want[i * N + j] + bias[p * N + j].ToDouble();
        CHECK_EQ(c[(p * M + i) * N + j].ToDouble(), w);
        CHECK_EQ(c2[(p * M + i) * N + j].ToDouble(), w);
      }
    }
  }
}

TWIN_TEST(iterate_batch_without_batch_counts_is_named) {
  std::vector<half> a = Ints(M * K, 1), b = Ints(K * N, 2);
  std::vector<float> c(M * N, 0.0f);
  TCubeTiling t = matmul_test::Tiling(M, N, K);
  twin_test::Run run;
  RunAic(&run, "batch_no_num", [&] {
    GlobalTensor<half> ga, gb;
    GlobalTensor<float> gc;
    ga.SetGlobalBuffer(a.data(), a.size());
    gb.SetGlobalBuffer(b.data(), b.size());
    gc.SetGlobalBuffer(c.data(), c.size());
    MatmulImpl<AGm, BGm, CGm> mm;
    mm.Init(&t);
    mm.SetTensorA(ga);
    mm.SetTensorB(gb);
    mm.IterateBatch(gc, false, 0, false);
  });
  CHECK_EQ(run.status, SK_TWIN_KERNEL_ERROR);
  CHECK_CONTAINS(run.error(), "SetBatchNum(batchA, batchB) first");
}

static_assert(ToMatmulConfig(CFG_MDL).bmmOutMode == CFG_MDL.bmmOutMode, "ToMatmulConfig gives the config");
static_assert(!ToMatmulConfig(CFG_NORM).isNBatch, "ToMatmulConfig gives the config");

// TOTAL_L0C_SIZE is the L0C the twin gives an AIC: a CO1 buffer of that size fits, one block more does not.
TWIN_TEST(total_l0c_size_is_the_l0c_capacity) {
  twin_test::Run fits, over;
  RunAic(&fits, "l0c_fits", [] {
    TPipe pipe;
    TQue<TPosition::CO1, 1> q;
    pipe.InitBuffer(q, 1, TOTAL_L0C_SIZE);
  });
  CHECK_OK(fits);
  RunAic(&over, "l0c_over", [] {
    TPipe pipe;
    TQue<TPosition::CO1, 1> q;
    pipe.InitBuffer(q, 1, TOTAL_L0C_SIZE + 1024);
  });
  CHECK_EQ(over.status, SK_TWIN_KERNEL_ERROR);
}

// addrMode names: `inc` walks forward and is what L1 -> L0 loads take; `dec` there is refused by name.
static_assert(inc == 0 && dec == 1, "addr_cal_mode_t values");
TWIN_TEST(load_data_addr_mode_names) {
  for (bool down : {false, true}) {
    twin_test::Run run;
    RunAic(&run, down ? "load_dec" : "load_inc", [down] {
      TPipe pipe;
      TQue<TPosition::A1, 1> q1;
      TQue<TPosition::A2, 1> q2;
      pipe.InitBuffer(q1, 1, 512);
      pipe.InitBuffer(q2, 1, 512);
      LocalTensor<half> a1 = q1.AllocTensor<half>(), a2 = q2.AllocTensor<half>();
      LoadData2dParams p = {0, 1, 1, 0, 0, false, down ? dec : inc};
      LoadData(a2, a1, p);
    });
    if (down) {
      CHECK_EQ(run.status, SK_TWIN_KERNEL_ERROR);
      CHECK_CONTAINS(run.error(), "addrMode is 1");
    } else {
      CHECK_OK(run);
    }
  }
}

// The Atlas A2/A3 MmadParams form and the older LoadData2dParams name.
static_assert(std::is_same<LoadData2dParams, LoadData2DParams>::value, "LoadData2dParams is LoadData2DParams");

TWIN_TEST(mmad_params_unit_flag_form) {
  MmadParams p(16, 32, 48, 3, false, false);
  CHECK_EQ(p.m, 16);
  CHECK_EQ(p.n, 32);
  CHECK_EQ(p.k, 48);
  CHECK_EQ(p.unitFlag, 3);
  CHECK(!p.cmatrixSource);
  CHECK(!p.cmatrixInitVal);
  CHECK(!p.isBias);
  MmadParams q{8, 8, 8, 0, false, true};
  CHECK(q.cmatrixInitVal);
}

}  // namespace

int main(int argc, char** argv) { return twin_test::Main(argc, argv); }
