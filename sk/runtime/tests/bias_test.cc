// The cube's bias table on the twin (sk_twin_bias.h): DataCopy L1 -> C2 (same type by count and by
// DataCopyParams with gaps, float from half) and Mmad with bias, checked against plain loops; and the rules the
// twin names at the call.
#include <functional>
#include <string>
#include <vector>

#include "ascendc_util.h"

using namespace AscendC;
using ascendc_test::AicViolation;
using ascendc_test::H;
using ascendc_test::RunAic;

namespace {

constexpr int kM = 16, kK = 16;

std::vector<half> Values(size_t n, int seed) {
  std::vector<half> v(n);
  uint32_t x = 99u + static_cast<uint32_t>(seed);
  for (auto& h : v) {
    x = x * 1103515245u + 12345u;
    h = H((static_cast<double>((x >> 8) % 401) - 200.0) / 32.0);
  }
  return v;
}

// C (16 x n, float, ND in GM) = A (16 x 16) B (16 x n) + the bias table's first n floats, which `fill` puts there
// from L1 (`l1` holds the bias source, copied from GM first).
template <typename BiasSrc>
void MatmulWithBias(half* a, half* b, float* c, int n, BiasSrc* bias_gm, int bias_len,
                    const std::function<void(LocalTensor<float>&, LocalTensor<BiasSrc>&)>& fill) {
  const int n1 = n / 16;
  TPipe pipe;
  TQue<TPosition::A1, 1> qa1;
  TQue<TPosition::B1, 1> qb1;
  TQue<TPosition::C1, 1> qbias1;
  TQue<TPosition::A2, 1> qa2;
  TQue<TPosition::B2, 1> qb2;
  TQue<TPosition::CO1, 1> qc;
  TBuf<TPosition::C2> bt;
  pipe.InitBuffer(qa1, 1, kM * kK * 2);
  pipe.InitBuffer(qb1, 1, kK * n * 2);
  pipe.InitBuffer(qbias1, 1, bias_len * sizeof(BiasSrc));
  pipe.InitBuffer(qa2, 1, kM * kK * 2);
  pipe.InitBuffer(qb2, 1, kK * n * 2);
  pipe.InitBuffer(qc, 1, kM * n * 4);
  pipe.InitBuffer(bt, 1024);
  GlobalTensor<half> ga, gb;
  GlobalTensor<float> gc;
  GlobalTensor<BiasSrc> gbias;
  ga.SetGlobalBuffer(a, kM * kK);
  gb.SetGlobalBuffer(b, kK * n);
  gc.SetGlobalBuffer(c, kM * n);
  gbias.SetGlobalBuffer(bias_gm, bias_len);
  LocalTensor<half> a1 = qa1.AllocTensor<half>(), b1 = qb1.AllocTensor<half>();
  LocalTensor<BiasSrc> bias1 = qbias1.AllocTensor<BiasSrc>();
  DataCopy(a1, ga, Nd2NzParams(1, kM, kK, 0, kK, kM, 1, 0));
  DataCopy(b1, gb, Nd2NzParams(1, kK, n, 0, n, kK, 1, 0));
  DataCopy(bias1, gbias, bias_len);
  LocalTensor<float> table = bt.Get<float>();
  fill(table, bias1);
  LocalTensor<half> a2 = qa2.AllocTensor<half>(), b2 = qb2.AllocTensor<half>();
  LoadData(a2, a1, LoadData2DParams(0, 1, 1, 0, 0, false, 0));
  LoadData(b2, b1, LoadData2DParams(0, n1, 1, 0, 0, true, 0));
  LocalTensor<float> l0c = qc.AllocTensor<float>();
  Mmad(l0c, a2, b2, table, MmadParams(kM, n, kK, 0, true, true));
  Fixpipe(gc, l0c, FixpipeParamsV220(n, kM, kM, n, false));
  qa1.FreeTensor(a1);
  qb1.FreeTensor(b1);
  qbias1.FreeTensor(bias1);
  qa2.FreeTensor(a2);
  qb2.FreeTensor(b2);
  qc.FreeTensor(l0c);
}

// The reference: C[i][j] starts from bias[j], then adds the exact half products in k order, one float rounding each.
void CheckAgainstLoops(const std::vector<half>& a, const std::vector<half>& b, const std::vector<float>& bias,
                       const std::vector<float>& c, int n) {
  int bad = 0;
  for (int i = 0; i < kM; ++i) {
    for (int j = 0; j < n; ++j) {
      float acc = bias[j];
      for (int p = 0; p < kK; ++p) {
        acc += static_cast<float>(a[i * kK + p].ToDouble()) * static_cast<float>(b[p * n + j].ToDouble());
      }
      bad += !ascendc_test::SameFloat(c[i * n + j], acc);
    }
  }
  CHECK_EQ(bad, 0);
}

TWIN_TEST(mmad_with_bias_from_half_in_l1_matches_plain_loops) {
  const int n = 32;
  std::vector<half> a = Values(kM * kK, 1), b = Values(kK * n, 2), bias_h = Values(n, 3);
  std::vector<float> c(kM * n, -1.0f), bias(n);
  for (int j = 0; j < n; ++j) bias[j] = static_cast<float>(bias_h[j].ToDouble());  // half -> float is exact
  twin_test::Run run;
  RunAic(&run, "bias_half", [&] {
    MatmulWithBias<half>(a.data(), b.data(), c.data(), n, bias_h.data(), n,
                         [&](LocalTensor<float>& table, LocalTensor<half>& l1) {
                           // blockLen: 64-byte units of the source: 32 halves are one.
                           DataCopy<float, half>(table, l1, DataCopyParams(1, 1, 0, 0));
                         });
  });
  CHECK_OK(run);
  CheckAgainstLoops(a, b, bias, c, n);
}

TWIN_TEST(bias_table_copies_by_count_and_with_gaps) {
  const int n = 48;
  std::vector<half> a = Values(kM * kK, 4), b = Values(kK * n, 5);
  // L1 holds 64 floats: s[i] = 1000 + i. First the count form fills the table's 48 floats with s[0..47]; then
  // two bursts of one 64-byte unit (16 floats), the source 2 blocks (16 floats) apart, the table 1 unit apart:
  // table[0..16) = s[0..16) and table[32..48) = s[32..48); table[16..32) keeps s[16..32) from the count form.
  std::vector<float> src(64);
  for (int i = 0; i < 64; ++i) src[i] = 1000.0f + static_cast<float>(i);
  std::vector<float> want(n);
  for (int j = 0; j < n; ++j) want[j] = 1000.0f + static_cast<float>(j);
  std::vector<float> c(kM * n, -1.0f);
  twin_test::Run run;
  RunAic(&run, "bias_gaps", [&] {
    MatmulWithBias<float>(a.data(), b.data(), c.data(), n, src.data(), 64,
                          [&](LocalTensor<float>& table, LocalTensor<float>& l1) {
                            DataCopy(table, l1, 48);
                            DataCopy(table, l1[0], DataCopyParams(2, 1, 2, 1));
                          });
  });
  CHECK_OK(run);
  CheckAgainstLoops(a, b, want, c, n);

  // The same bursts over a table first filled with other values: only the gaps keep them (blockLen 1 = 16 floats
  // of each burst land at table[0..16) and table[32..48); the bias then differs exactly there).
  std::vector<float> shifted(64);
  for (int i = 0; i < 64; ++i) shifted[i] = -static_cast<float>(i);
  std::vector<float> c2(kM * n, -1.0f);
  twin_test::Run run2;
  RunAic(&run2, "bias_gaps_keep", [&] {
    MatmulWithBias<float>(a.data(), b.data(), c2.data(), n, shifted.data(), 64,
                          [&](LocalTensor<float>& table, LocalTensor<float>& l1) {
                            DataCopy(table, l1, 48);          // table[j] = -j
                            DataCopy(table, l1[16], DataCopyParams(2, 1, 2, 1));  // bursts from s[16..32), s[48..64)
                          });
  });
  CHECK_OK(run2);
  std::vector<float> want2(n);
  for (int j = 0; j < n; ++j) want2[j] = j < 16 ? -static_cast<float>(16 + j) : j < 32 ? -static_cast<float>(j)
                                                                                      : -static_cast<float>(16 + j);
  CheckAgainstLoops(a, b, want2, c2, n);
}

TWIN_TEST(bias_table_rules_are_named_at_the_call) {
  std::string e = AicViolation("bt_align", [] {
    TPipe pipe;
    TQue<TPosition::C1, 1> q1;
    TBuf<TPosition::C2> bt;
    pipe.InitBuffer(q1, 1, 256);
    pipe.InitBuffer(bt, 1024);
    LocalTensor<float> l1 = q1.AllocTensor<float>();
    LocalTensor<float> table = bt.Get<float>();
    DataCopy(table[8], l1, DataCopyParams(1, 1, 0, 0));
  });
  CHECK_CONTAINS(e, "DataCopy<float, float>(C2 <- C1, DataCopyParams{blockCount 1, blockLen 1, srcGap 0, dstGap 0})");
  CHECK_CONTAINS(e, "dst aligned to 64 bytes");
  e = AicViolation("bt_types", [] {
    TPipe pipe;
    TQue<TPosition::C1, 1> q1;
    TBuf<TPosition::C2> bt;
    pipe.InitBuffer(q1, 1, 256);
    pipe.InitBuffer(bt, 1024);
    LocalTensor<float> l1 = q1.AllocTensor<float>();
    LocalTensor<int32_t> table = bt.Get<int32_t>();
    DataCopy<int32_t, float>(table, l1, DataCopyParams(1, 1, 0, 0));
  });
  CHECK_CONTAINS(e, "dst int32_t from src float");
  CHECK_CONTAINS(e, "float from float or half, int32_t from int32_t");
  e = AicViolation("bt_overflow", [] {
    TPipe pipe;
    TQue<TPosition::C1, 1> q1;
    TBuf<TPosition::C2> bt;
    pipe.InitBuffer(q1, 1, 4096);
    pipe.InitBuffer(bt, 1024);
    LocalTensor<half> l1 = q1.AllocTensor<half>();
    LocalTensor<float> table = bt.Get<float>();
    DataCopy<float, half>(table, l1, DataCopyParams(1, 9, 0, 0));  // 9 x 64 halves -> 2304 bytes of float
  });
  CHECK_CONTAINS(e, "outside its buffer");
  e = AicViolation("bt_too_big", [] {
    TPipe pipe;
    TBuf<TPosition::C2> bt;
    pipe.InitBuffer(bt, 2048);
  });
  CHECK_CONTAINS(e, "the BT is 1024 bytes");
  e = AicViolation("bias_in_l0c", [] {
    TPipe pipe;
    TQue<TPosition::A2, 1> qa;
    TQue<TPosition::B2, 1> qb;
    TQue<TPosition::CO1, 1> qc;
    pipe.InitBuffer(qa, 1, 512);
    pipe.InitBuffer(qb, 1, 512);
    pipe.InitBuffer(qc, 2, 1024);
    LocalTensor<half> a = qa.AllocTensor<half>(), b = qb.AllocTensor<half>();
    LocalTensor<float> c = qc.AllocTensor<float>(), bias = qc.AllocTensor<float>();
    Mmad(c, a, b, bias, MmadParams(16, 16, 16, 0, true, true));
  });
  CHECK_CONTAINS(e, "bias is in L0C");
  CHECK_CONTAINS(e, "TPosition::C2 (the bias table");
}

}  // namespace

int main(int argc, char** argv) { return twin_test::Main(argc, argv); }
