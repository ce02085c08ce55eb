// The debugging interfaces and small utilities CANN's kernels use
// (sk_twin_debug.h, sk_twin_cann_utils.h, op_kernel/*.h): PRINTF lines with
// the worker's block, failed assertions ending the launch, DumpTensor, and
// expected texts written out here by hand.
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "ascendc_util.h"
#include "c_api/asc_simd.h"
#include "kernel_operator_list_tensor_intf.h"
#include "op_kernel/math_util.h"
#include "op_kernel/platform_util.h"

using namespace AscendC;
using ascendc_test::RunAiv;

namespace {

// What the launch printed on stdout, captured through a temporary file.
struct Stdout {
  int saved = -1;
  FILE* file = nullptr;
  Stdout() {
    std::fflush(stdout);
    file = std::tmpfile();
    saved = dup(1);
    dup2(fileno(file), 1);
  }
  std::string Take() {
    std::fflush(stdout);
    dup2(saved, 1);
    close(saved);
    std::string out;
    std::rewind(file);
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, file)) > 0) out.append(buf, n);
    std::fclose(file);
    return out;
  }
};

std::vector<std::string> SortedLines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  std::sort(lines.begin(), lines.end());
  return lines;
}

std::function<void()>* g_body = nullptr;
void Entry() { (*g_body)(); }

TWIN_TEST(printf_lines_carry_the_aiv_block) {
  Stdout cap;
  twin_test::Run run;
  RunAiv(&run, "print", [] {
    AscendC::PRINTF("x=%d h=%f b=%f s=%s\n", static_cast<int32_t>(GetBlockIdx()) + 7, half(1.5f),
                    bfloat16_t(-2.0f), "ok");
    AscendC::printf("u=%u\n", 42u);
  }, 2);
  const std::string out = cap.Take();
  CHECK_OK(run);
  const std::vector<std::string> want = {"[AIV Block 0/2] u=42", "[AIV Block 0/2] x=7 h=1.500000 b=-2.000000 s=ok",
                                         "[AIV Block 1/2] u=42", "[AIV Block 1/2] x=8 h=1.500000 b=-2.000000 s=ok"};
  CHECK(SortedLines(out) == want);
  if (SortedLines(out) != want) std::fprintf(stderr, "got:\n%s", out.c_str());
}

TWIN_TEST(printf_on_a_mix_launch_names_aic_and_numbers_aivs_by_get_block_idx) {
  std::function<void()> body = [] { AscendC::PRINTF("hi"); };
  g_body = &body;
  Stdout cap;
  twin_test::Run run;
  twin_test::Launch(&run, "mix", Entry, {2, 1, 2}, {0}, 3000);
  const std::string out = cap.Take();
  CHECK_OK(run);
  // The text as given (no newline added): the lines run on, but each worker's prefix shows once.
  for (const char* p : {"[AIC Block 0/2] hi", "[AIC Block 1/2] hi", "[AIV Block 0/4] hi", "[AIV Block 1/4] hi",
                        "[AIV Block 2/4] hi", "[AIV Block 3/4] hi"}) {
    CHECK_CONTAINS(out, std::string(p));
  }
}

TWIN_TEST(a_failed_assert_prints_and_ends_the_launch) {
  Stdout cap;
  twin_test::Run run;
  int reached = 0;
  int line = 0;
  RunAiv(&run, "asserting", [&] {
    int32_t three = 3;
    ASSERT(three == 3);  // holds: nothing happens
    line = __LINE__ + 1;
    ASSERT(three == 4 && "three is four");
    reached = 1;
  });
  const std::string out = cap.Take();
  CHECK(run.status != SK_TWIN_OK);
  CHECK_EQ(reached, 0);
  const std::string what = "[ASSERT] cann_debug_test.cc:" + std::to_string(line) +
                           ": operator(): Assertion `three == 4 && \"three is four\"' failed. ";
  CHECK_CONTAINS(run.error(), "kernel 'asserting'");
  CHECK_CONTAINS(run.error(), what);
  CHECK_EQ(out, "[AIV Block 0/1] " + what + "\n");
}

TWIN_TEST(ascendc_assert_formats_its_message) {
  Stdout cap;
  twin_test::Run run;
  RunAiv(&run, "asserting2", [] {
    float a = -1.0f;
    ascendc_assert(a > 0.0f, "(batch %d): a=%f is not positive\n", 2, a);
  });
  const std::string out = cap.Take();
  CHECK(run.status != SK_TWIN_OK);
  CHECK_CONTAINS(run.error(), "Assertion `a > 0.0f' failed. (batch 2): a=-1.000000 is not positive");
  CHECK_CONTAINS(out, "[AIV Block 0/1] [ASSERT] cann_debug_test.cc:");
}

TWIN_TEST(assert_is_ascendc_assert) {
  Stdout cap;
  twin_test::Run run;
  int reached = 0;
  RunAiv(&run, "asserting3", [&] {
    int32_t count = 300;
    assert(count > 0);  // holds
    assert(count <= 255, "count %d\n", count);
    reached = 1;
  });
  const std::string out = cap.Take();
  CHECK(run.status != SK_TWIN_OK);
  CHECK_EQ(reached, 0);
  CHECK_CONTAINS(run.error(), "Assertion `count <= 255' failed. count 300");
}

TWIN_TEST(dump_tensor_prints_header_and_values) {
  Stdout cap;
  twin_test::Run run;
  std::vector<int32_t> gm = {5, -6, 7, 2147483647};
  RunAiv(&run, "dump", [&] {
    TPipe pipe;
    TBuf<TPosition::VECCALC> buf;
    pipe.InitBuffer(buf, 64);
    LocalTensor<half> t = buf.Get<half>();
    const float vals[4] = {1.0f, -2.5f, 0.0f, 65504.0f};
    for (int i = 0; i < 4; ++i) t.SetValue(i, half(vals[i]));
    DumpTensor(t, 5, 4);
    GlobalTensor<int32_t> g;
    g.SetGlobalBuffer(gm.data(), 4);
    DumpTensor(g, 9, 100);  // at most the tensor's 4 elements
  });
  const std::string out = cap.Take();
  CHECK_OK(run);
  CHECK_EQ(out, std::string(
           "[AIV Block 0/1] DumpTensor: desc=5, addr=0, data_type=float16, position=UB, dump_size=4\n"
           "[1.000000, -2.500000, 0.000000, 65504.000000]\n"
           "[AIV Block 0/1] DumpTensor: desc=9, addr=0, data_type=int32, position=GM, dump_size=4\n"
           "[5, -6, 7, 2147483647]\n"));
}

TWIN_TEST(init_global_memory_and_workspaces) {
  std::vector<float> gm(6, 1.0f);
  GM_ADDR seen = nullptr;
  twin_test::Run run;
  RunAiv(&run, "initgm", [&] {
    GlobalTensor<float> g;
    g.SetGlobalBuffer(gm.data(), 6);
    InitGlobalMemory(g, 4, -std::numeric_limits<float>::infinity());
    SetSysWorkspace(reinterpret_cast<GM_ADDR>(gm.data()));
    seen = GetSysWorkSpacePtr();
    CHECK(GetUserWorkspace(seen) == seen);  // as CANN's CPU debug mode
  });
  CHECK_OK(run);
  CHECK(gm[0] == -std::numeric_limits<float>::infinity() && gm[3] == gm[0]);
  CHECK(gm[4] == 1.0f && gm[5] == 1.0f);
  CHECK(seen == reinterpret_cast<GM_ADDR>(gm.data()));

  twin_test::Run bad;
  RunAiv(&bad, "initgm_over", [&] {
    GlobalTensor<float> g;
    g.SetGlobalBuffer(gm.data(), 6);
    InitGlobalMemory(g, 7, 0);
  });
  CHECK(bad.status != SK_TWIN_OK);
  CHECK_CONTAINS(bad.error(), "GlobalTensor::SetValue");
}

TWIN_TEST(g_core_type_is_the_worker_s) {
  std::function<void()> body = [] {
    // One AIC and one AIV: each names the type g_coreType says.
    AscendC::PRINTF(g_coreType == AIV ? "aiv\n" : (g_coreType == AIC ? "aic\n" : "?\n"));
  };
  g_body = &body;
  Stdout cap;
  twin_test::Run run;
  twin_test::Launch(&run, "coretype", Entry, {1, 1, 1}, {0}, 3000);
  CHECK_OK(run);
  const std::vector<std::string> want = {"[AIC Block 0/1] aic", "[AIV Block 0/1] aiv"};
  CHECK(SortedLines(cap.Take()) == want);
}

TWIN_TEST(block_idx_is_the_ai_core_s_block) {
  std::function<void()> body = [] {
    // On an AIV of a 1:2 mix launch, block_idx is the AI core's block (GetBlockIdx() / 2), sub_block_idx its half.
    const int64_t b = block_idx, n = block_num, s = sub_block_idx;
    if (g_coreType == AIV) {
      AscendC::PRINTF("aiv %d %d %d %d\n", static_cast<int32_t>(b), static_cast<int32_t>(s),
                      static_cast<int32_t>(GetBlockIdx()), static_cast<int32_t>(n));
    }
    int64_t block_idx = 7;  // a kernel's own variable of that name shadows it
    CHECK_EQ(block_idx, 7);
  };
  g_body = &body;
  Stdout cap;
  twin_test::Run run;
  twin_test::Launch(&run, "blockvars", Entry, {2, 1, 2}, {0}, 3000);
  CHECK_OK(run);
  const std::vector<std::string> want = {"[AIV Block 0/4] aiv 0 0 0 2", "[AIV Block 1/4] aiv 0 1 1 2",
                                         "[AIV Block 2/4] aiv 1 0 2 2", "[AIV Block 3/4] aiv 1 1 3 2"};
  CHECK(SortedLines(cap.Take()) == want);
}

// The C API on __ubuf__ arrays, as ops-math's add_example_c_api writes it, against references computed here:
// half sums rounded by a search over all binary16 encodings, int32 sums wrapping, float max with NaN.
TWIN_TEST(c_api_count_forms) {
  const std::vector<float> hx = {1.0f, 2049.0f, 65504.0f, 0.1f, -3.5f, 1e-7f, 0.0f, 7.0f};
  const std::vector<float> hy = {0.5f, 1.0f, 65504.0f, 0.2f, 3.5f, 1e-7f, -0.0f, -7.5f};
  std::vector<half> gx, gy, gz(8);
  for (size_t i = 0; i < 8; ++i) {
    gx.push_back(half(hx[i]));
    gy.push_back(half(hy[i]));
  }
  std::vector<int32_t> ia = {2147483647, -5, 6, 0, 1, 2, 3, 4}, ib = {1, 5, -7, 0, 1, 2, 3, 4}, ic(8);
  std::vector<float> fa = {1.0f, std::nanf(""), -2.0f, 4.0f, 0.0f, 1.0f, 2.0f, 3.0f}, fb = {2.0f, 1.0f, -3.0f,
                                                                                              std::nanf(""), -0.0f,
                                                                                              1.0f, 2.0f, 3.0f},
                     fc(8);
  int64_t idx = -1;
  twin_test::Run run;
  RunAiv(&run, "capi", [&] {
    asc_init();
    idx = asc_get_block_idx();
    __ubuf__ half x[16], y[16], z[16];
    asc_copy_gm2ub_sync((__ubuf__ void*)x, (__gm__ void*)gx.data(), 8 * sizeof(half));
    asc_copy_gm2ub_sync((__ubuf__ void*)y, (__gm__ void*)gy.data(), 8 * sizeof(half));
    asc_add_sync(z, x, y, 8);
    asc_copy_ub2gm_sync((__gm__ void*)gz.data(), (__ubuf__ void*)z, 8 * sizeof(half));
    __ubuf__ int32_t a[8], b[8], c[8];
    std::memcpy(a, ia.data(), 32);
    std::memcpy(b, ib.data(), 32);
    asc_add(c, a, b, 8);
    asc_mul_scalar(c, c, int32_t{3}, 2);
    std::memcpy(ic.data(), c, 32);
    __ubuf__ float p[8], q[8], r[8];
    std::memcpy(p, fa.data(), 32);
    std::memcpy(q, fb.data(), 32);
    asc_max_sync(r, p, q, 8);
    std::memcpy(fc.data(), r, 32);
  });
  CHECK_OK(run);
  CHECK_EQ(idx, int64_t{0});
  for (size_t i = 0; i < 8; ++i) {
    const double exact = ascendc_test::HalfValue(gx[i].bits_) + ascendc_test::HalfValue(gy[i].bits_);
    CHECK_EQ(gz[i].bits_, ascendc_test::RefHalf(exact));
  }
  // (2^31 - 1 + 1) wraps to -2^31, times 3 wraps again; -5 + 5 = 0; 6 - 7 = -1.
  CHECK_EQ(ic[0], static_cast<int32_t>(static_cast<uint32_t>(0x80000000u) * 3u));
  CHECK_EQ(ic[1], 0);
  CHECK_EQ(ic[2], -1);
  CHECK(fc[0] == 2.0f && std::isnan(fc[1]) && fc[2] == -2.0f && std::isnan(fc[3]));
}

TWIN_TEST(small_utilities) {
  static_assert(IsSameType<float32_t, float>::value && !IsSameType<half, float>::value, "IsSameType");
  static_assert(Std::is_same<float16_t, half>::value && Std::IsSame<int, int>::value, "Std");
  static_assert(Std::min(3, 5) == 3 && Std::max(3, 5) == 5, "Std::min/max");
  static_assert(Ops::Base::CeilDiv(33u, 32u) == 2u && Ops::Base::CeilDiv(32, 32) == 1, "CeilDiv");
  static_assert(Ops::Base::CeilAlign(33, 32) == 64 && Ops::Base::FloorAlign(63, 32) == 32, "aligns");
  static_assert(Ops::Base::FloorDiv(7, 2) == 3 && Ops::Base::CeilDiv(7, 0) == 0, "FloorDiv, /0");
  static_assert(DivCeil(33, 32) == 2 && AlignUp(33, 32) == 64 && CeilDiv(64u, 32u) == 2u && CeilDiv(7, 0) == 0 &&
                    CeilDiv(65535, 2) == 32768 && Ceil(33u, 32u) == 2u && Ceil(64u, 32u) == 2u && ConstCeil(1, 8) == 1 &&
                    CeilDivision(-7, 2) == -3 && CeilDivision(7, 2) == 4 && CeilDivision(7, 0) == 0,
                "AscendC integer helpers");
  static_assert(Ops::Base::GetUbBlockSize() == 32 && Ops::Base::GetVRegSize() == 256, "platform");
  static_assert(MAX_REPEAT_TIMES == 255 && DEFAULT_REPEAT_STRIDE == 8 && HALF_DEFAULT_REPEAT_STRIDE == 4 &&
                    DEFAULT_BLK_STRIDE == 1 && DEFAULT_BLK_NUM == 8 && FULL_MASK == 0xffffffffffffffffull &&
                    FULL_MASK_LEN == 128 && HALF_MASK_LEN == 64 && GetDataBlockSizeInBytes() == 32,
                "utility constants");
  static_assert(B32_DATA_NUM_PER_BLOCK == 32 / 4 && B16_DATA_NUM_PER_BLOCK == 32 / 2 &&
                    B16_DATA_NUM_PER_REPEAT == 256 / 2 && B32_DATA_NUM_PER_REPEAT == 256 / 4 && B64_BYTE_SIZE == 8 &&
                    B8_BYTE_SIZE == 1,
                "per-block and per-repeat element counts");
  static_assert(AscendCUtils::GetBitSize(2) == 16 && AscendCUtils::GetC0Size() == 32 &&
                AscendCUtils::GetDefaultBlockNum() == 8, "AscendCUtils");
  CHECK(AscendCUtils::GetC0Count(sizeof(half)) == 16 && AscendCUtils::GetC0Count(sizeof(float)) == 8 &&
        AscendCUtils::GetC0Count(1) == 32);
  static_assert(sizeof(int4b_t) == 1 && IsSameType<int4b_t, int4b_t>::value && !IsSameType<int4b_t, int8_t>::value,
                "int4b_t");
  CHECK(int8_t(int4b_t(7)) == 7 && int8_t(int4b_t(8)) == -8 && int8_t(int4b_t(-1)) == -1 && int8_t(int4b_t(17)) == 1);
  CHECK(int8_t(int4b_t(15u)) == -1 && int4b_t(-8) < int4b_t(7) && int4b_t(3) == int4b_t(19) && int4b_t(-2) >= int4b_t(-3));
  CHECK(ToFloat(bfloat16_t(3.0f)) == 3.0f);
  CHECK(ToFloat(half(0.5f)) == 0.5f);
  CHECK(ToFloat(ToBfloat16(1.0f + 1.0f / 256)) == 1.0f);  // ties to even: 1 + 2^-8 lies between 1 and 1 + 2^-7
  CHECK(ToFloat(1.0f + 3.0f / 256) == 1.0f + 4.0f / 256 && ToFloat(2.5f) == 2.5f);  // a float rounds via bfloat16_t
  CHECK(unlikely(1 + 1 == 3) == false && likely(2 > 1));
}

// A list of two 2-D tensors written out word by word: [offset of the pointers = 7 words] [dim 2 | index 0] 3 4
// [dim 2 | index 1] 5 6 [pointer a] [pointer b].
std::vector<uint64_t> TwoTensorList(float* a, float* b) {
  return {56, 2, 3, 4, 2 | (uint64_t{1} << 32), 5, 6, reinterpret_cast<uint64_t>(a), reinterpret_cast<uint64_t>(b)};
}

TWIN_TEST(list_tensor_desc_reads_shapes_and_pointers) {
  std::vector<float> a(12), b(30);
  std::vector<uint64_t> list = TwoTensorList(a.data(), b.data());
  uint32_t size = 0;
  uint64_t dims[2] = {}, shape0[2] = {}, shape1[2] = {}, n1 = 0;
  float* p0 = nullptr;
  twin_test::Run run;
  RunAiv(&run, "list", [&] {
    ListTensorDesc desc(list.data(), 72, 2);
    size = desc.GetSize();
    TensorDesc<float> t;
    t.SetShapeAddr(shape0);
    desc.GetDesc(t, 0);
    dims[0] = t.GetDim();
    p0 = t.GetDataPtr();
    TensorDesc<float> u;
    u.SetShapeAddr(shape1);
    desc.GetDesc(u, 1);
    dims[1] = u.GetIndex();
    n1 = u.GetDataObj().GetSize();
    CHECK(desc.GetDataPtr<float>(1) == b.data());
  });
  CHECK_OK(run);
  CHECK_EQ(size, 2u);
  CHECK(dims[0] == 2 && dims[1] == 1);
  CHECK(shape0[0] == 3 && shape0[1] == 4 && shape1[0] == 5 && shape1[1] == 6);
  CHECK(p0 == a.data());
  CHECK_EQ(n1, uint64_t{30});
}

TWIN_TEST(list_tensor_desc_misuse_is_named) {
  std::vector<float> a(12), b(30);
  std::vector<uint64_t> list = TwoTensorList(a.data(), b.data());
  twin_test::Run past;
  RunAiv(&past, "list_past", [&] {
    ListTensorDesc desc(list.data());
    desc.GetDataPtr<float>(2);
  });
  CHECK_CONTAINS(past.error(), "ListTensorDesc::GetDataPtr: index 2 of a list of 2 tensors");
  twin_test::Run wrong;
  RunAiv(&wrong, "list_wrong", [&] { ListTensorDesc desc(list.data(), 72, 3); });
  CHECK_CONTAINS(wrong.error(), "ListTensorDesc::Init: the list holds 2 tensors in 72 bytes; the call says 3 in 72");
  list[0] = 64;  // the pointers said to start a word later than the descriptors end
  twin_test::Run bad;
  RunAiv(&bad, "list_bad", [&] { ListTensorDesc desc(list.data()); });
  CHECK_CONTAINS(bad.error(), "do not end at word 8, where the data pointers start");
}

}  // namespace

int main(int argc, char** argv) { return twin_test::Main(argc, argv); }

TWIN_TEST(core_type_constants_of_the_cpu_debug_build) {
  std::function<void()> body = [] {
    // AIC_TYPE/AIV_TYPE are what g_coreType holds on a cube/vector worker; no worker is MIX_TYPE.
    AscendC::PRINTF(g_coreType == AscendC::AIV_TYPE ? "aiv\n" : (g_coreType == AscendC::AIC_TYPE ? "aic\n" : "?\n"));
    if (g_coreType == AscendC::MIX_TYPE) AscendC::PRINTF("mix\n");
  };
  g_body = &body;
  Stdout cap;
  twin_test::Run run;
  twin_test::Launch(&run, "coretype_consts", Entry, {1, 1, 1}, {0}, 3000);
  CHECK_OK(run);
  const std::vector<std::string> want = {"[AIC Block 0/1] aic", "[AIV Block 0/1] aiv"};
  CHECK(SortedLines(cap.Take()) == want);
}

TWIN_TEST(process_lock_makes_the_cores_updates_exclusive) {
  // 8 cores each add 1 to a shared count 500 times by read, yield, write: under Write() no update is lost, so the
  // count is exactly 8 * 500; readers under Read() see a count that only grows.
  static int64_t count = 0;
  static std::atomic<int> bad{0};
  count = 0;
  twin_test::Run run;
  ascendc_test::RunAiv(&run, "process_lock", [] {
    AscendC::ProcessLock* lock = AscendC::ProcessLock::GetProcessLock();
    int64_t seen = 0;
    for (int i = 0; i < 500; ++i) {
      if (lock->Write() != 0) bad++;
      const int64_t v = count;
      sched_yield();
      count = v + 1;
      if (lock->Unlock() != 0) bad++;
      if (lock->Read() != 0) bad++;
      if (count < seen) bad++;
      seen = count;
      if (lock->Unlock() != 0) bad++;
    }
  }, 8);
  CHECK_OK(run);
  CHECK(count == 8 * 500);
  CHECK(bad == 0);
  CHECK(AscendC::ProcessLock::GetProcessLock() == AscendC::ProcessLock::GetProcessLock());
}
