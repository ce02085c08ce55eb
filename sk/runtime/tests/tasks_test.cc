// Memory-semantic words and external tasks (sk_twin_launch_tasks, facts §15.3): a tiling task
// that waits for the kernel's notify, reads what the kernel wrote, and releases its lock; the
// errors when it fails, when its notify never comes, and when the kernel waits for nothing; a
// tiling function that crashes, throws or never returns (in a launch and called alone).
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernel_operator.h"
#include "sk_tiling.h"
#include "twin_test.h"

namespace {

constexpr uint32_t kBlocks = 4;

GM_ADDR Param(int i) { return reinterpret_cast<GM_ADDR*>(get_para_base())[i]; }

// params: 1 data[kBlocks], 2 notify word, 3 lock, 4 tiling key, 5 block num, 6 tiling, 7 out[kBlocks]
void RouteThenTiledOp() {
  auto* data = reinterpret_cast<int64_t*>(Param(1));
  const int64_t b = AscendC::GetBlockIdx();
  data[b] = b + 1;
  AscendC::SyncAll<true>();
  if (b == 0) {
    auto* notify = reinterpret_cast<uint64_t*>(Param(2));
    *notify = 1;
    dcci(notify, 0, 2);
  }
  volatile uint64_t* lock = reinterpret_cast<volatile uint64_t*>(Param(3));
  dcci(lock, 0, 2);
  while (*lock != 1) dcci(lock, 0, 2);
  const uint64_t key = *reinterpret_cast<uint64_t*>(Param(4));
  const uint64_t blocks = *reinterpret_cast<uint64_t*>(Param(5));
  const int64_t tiling = *reinterpret_cast<int64_t*>(Param(6));
  if (static_cast<uint64_t>(b) < blocks) reinterpret_cast<int64_t*>(Param(7))[b] = key * 100 + tiling;
  AscendC::SyncAll<true>();
  if (b == 0) {
    *lock = 0;
    dcci(lock, 0, 2);
  }
}

void WaitsForNothing() {}

int g_tiling_rc = 0;

int SumTiling(SkTilingContext* ctx) {
  const int64_t* data = ctx->Input<int64_t>(0);
  int64_t sum = 0;
  for (uint64_t i = 0; i < ctx->InputBytes(0) / sizeof(int64_t); ++i) sum += data[i];
  *ctx->TilingData<int64_t>() = sum;
  ctx->SetTilingKey(sum > 5 ? 2 : 1);
  ctx->SetBlockDim(3);
  return g_tiling_rc;
}

struct Setup {
  std::vector<int64_t> data = std::vector<int64_t>(kBlocks, 0);
  std::vector<int64_t> out = std::vector<int64_t>(kBlocks, -1);
  uint64_t notify = 0, lock = 0, key = 0, blocks = 0;
  int64_t tiling = 0;
  const uint8_t* inputs[1];
  uint64_t input_bytes[1];
  SkTilingContext tc{};
  uint64_t keys[2] = {1, 2};
  std::vector<SkTwinWord> words;
  SkTwinTask task{};

  Setup() {
    inputs[0] = reinterpret_cast<const uint8_t*>(data.data());
    input_bytes[0] = data.size() * sizeof(int64_t);
    tc.num_inputs = 1;
    tc.inputs = inputs;
    tc.input_bytes = input_bytes;
    tc.tiling = reinterpret_cast<uint8_t*>(&tiling);
    tc.tiling_bytes = sizeof tiling;
    tc.max_block_dim = kBlocks;
    words = {{&notify, SK_TWIN_WORD_BY_KERNEL, "__ac_notify_lock_0_0 of op 0 (route), event 7: op 0 writes it"},
             {&lock, SK_TWIN_WORD_BY_TASK, "__ac_wait_lock_1 of op 1 (gmm): tiling task 'gmm_tiling' releases it"},
             {&key, SK_TWIN_WORD_BY_TASK, "__ac_dynamic_tiling_key_1"},
             {&blocks, SK_TWIN_WORD_BY_TASK, "__ac_dynamic_block_num_1"}};
    task.name = "gmm_tiling";
    task.wait_word = 0;
    task.tiling = SumTiling;
    task.tiling_ctx = &tc;
    task.tiling_keys = keys;
    task.num_tiling_keys = 2;
    task.key_word = 2;
    task.block_word = 3;
    task.release_word = 1;
  }

  void Launch(twin_test::Run* run, void (*entry)(), uint32_t timeout_ms = 0) {
    static std::vector<uint64_t> params;
    params = {0, twin_test::Addr(data.data()), twin_test::Addr(&notify), twin_test::Addr(&lock),
              twin_test::Addr(&key), twin_test::Addr(&blocks), twin_test::Addr(&tiling), twin_test::Addr(out.data())};
    SkTwinLaunch l{};
    l.name = "sk_route_gmm";
    l.entry = reinterpret_cast<void*>(entry);
    l.num_args = SK_TWIN_PARA_BASE_ENTRY;
    l.block_dim = kBlocks;
    l.aic_ration = 0;
    l.aiv_ration = 1;
    l.params = params.data();
    l.num_params = static_cast<uint32_t>(params.size());
    l.timeout_ms = timeout_ms;
    run->status = sk_twin_launch_tasks(&l, words.data(), static_cast<uint32_t>(words.size()), &task, 1, &run->r);
  }
};

TWIN_TEST(tiling_task_reads_the_kernel_s_output_and_releases_the_lock) {
  g_tiling_rc = 0;
  for (int round = 0; round < 20; ++round) {
    Setup s;
    twin_test::Run run;
    s.Launch(&run, RouteThenTiledOp);
    CHECK_OK(run);
    CHECK_EQ(s.tiling, int64_t{10});  // 1 + 2 + 3 + 4, read after the kernel wrote it
    CHECK_EQ(s.key, uint64_t{2});
    CHECK_EQ(s.blocks, uint64_t{3});
    CHECK_EQ(s.lock, uint64_t{0});  // the kernel reset it
    for (uint32_t b = 0; b < kBlocks; ++b) CHECK_EQ(s.out[b], b < 3 ? int64_t{210} : int64_t{-1});
  }
}

uint64_t MsSince(std::chrono::steady_clock::time_point start);

TWIN_TEST(a_tiling_function_that_fails_ends_the_launch_at_once_naming_the_task_and_its_return_value) {
  g_tiling_rc = 3;
  Setup s;
  twin_test::Run run;
  const auto start = std::chrono::steady_clock::now();
  s.Launch(&run, RouteThenTiledOp, 20000);  // known when it returns: no waiting for the watchdog
  g_tiling_rc = 0;
  CHECK(MsSince(start) < 10000);
  CHECK_EQ(run.status, SK_TWIN_TASK_ERROR);
  CHECK_CONTAINS(run.error(), "task 'gmm_tiling' failed: its tiling function returned 3, so it wrote no tiling "
                              "and did not release GM word ");
  CHECK_CONTAINS(run.error(), "(__ac_wait_lock_1 of op 1 (gmm): tiling task 'gmm_tiling' releases it)");
}

void NeverNotifies() {
  volatile uint64_t* lock = reinterpret_cast<volatile uint64_t*>(Param(3));
  dcci(lock, 0, 2);
  while (*lock != 1) dcci(lock, 0, 2);
}

TWIN_TEST(a_missing_notify_ends_naming_the_word_the_task_waits_for) {
  Setup s;
  twin_test::Run run;
  s.Launch(&run, NeverNotifies, 300);
  CHECK_EQ(run.status, SK_TWIN_DEADLOCK);
  CHECK_CONTAINS(run.error(), "__ac_wait_lock_1 of op 1 (gmm)");
  CHECK_CONTAINS(run.error(), "'gmm_tiling' waits for its notify");
  CHECK_CONTAINS(run.error(), "__ac_notify_lock_0_0 of op 0 (route), event 7: op 0 writes it");
}

// Block 0 takes the lock and resets it before the other blocks have read it (upstream's release of a
// tiling lock right after its own call). On hardware the others would spin on a word nothing writes again
// unless they read it first, the order cores leaving one barrier together give; the twin replays that
// order and names the late readers.
void ReleasedBeforeTheOthersRead() {
  volatile int64_t* released = reinterpret_cast<volatile int64_t*>(Param(1));
  volatile uint64_t* lock = reinterpret_cast<volatile uint64_t*>(Param(3));
  const int64_t b = AscendC::GetBlockIdx();
  if (b == 0) {
    auto* notify = reinterpret_cast<uint64_t*>(Param(2));
    *notify = 1;
    dcci(notify, 0, 2);
    dcci(lock, 0, 2);
    while (*lock != 1) dcci(lock, 0, 2);
    *lock = 0;
    dcci(lock, 0, 2);
    released[0] = 99;
    dcci(released, 0, 2);
    return;
  }
  dcci(released, 0, 2);
  while (released[0] != 99) dcci(released, 0, 2);
  dcci(lock, 0, 2);
  while (*lock != 1) dcci(lock, 0, 2);
  reinterpret_cast<int64_t*>(Param(7))[b] = static_cast<int64_t>(*lock);
}

TWIN_TEST(a_core_that_first_reads_a_lock_after_its_release_reads_the_task_s_value_and_is_named) {
  g_tiling_rc = 0;
  Setup s;
  twin_test::Run run;
  s.Launch(&run, ReleasedBeforeTheOthersRead, 2000);
  CHECK_EQ(run.status, SK_TWIN_OK);
  for (uint32_t b = 1; b < kBlocks; ++b) CHECK_EQ(s.out[b], int64_t{1});
  CHECK_EQ(s.lock, uint64_t{0});  // the kernel's reset is back at the end
  CHECK_CONTAINS(run.residual(), "the kernel wrote over GM word __ac_wait_lock_1 of op 1 (gmm)");
  CHECK_CONTAINS(run.residual(), "before AIV 1-3 first read it");
}

// A core that spins on a word it has read before, and that nothing writes again, is named spinning on it
// (its dcci calls are no progress).
void SpinsOnAReleasedLock() {
  volatile uint64_t* lock = reinterpret_cast<volatile uint64_t*>(Param(3));
  const int64_t b = AscendC::GetBlockIdx();
  if (b == 0) {
    auto* notify = reinterpret_cast<uint64_t*>(Param(2));
    *notify = 1;
    dcci(notify, 0, 2);
  }
  dcci(lock, 0, 2);
  while (*lock != 1) dcci(lock, 0, 2);
  AscendC::SyncAll<true>();
  if (b == 0) {
    *lock = 0;
    dcci(lock, 0, 2);
  }
  AscendC::SyncAll<true>();
  if (b == 1) {
    while (*lock != 1) dcci(lock, 0, 2);
  }
}

TWIN_TEST(a_core_spinning_on_a_word_it_has_read_before_is_named_spinning_on_it) {
  g_tiling_rc = 0;
  Setup s;
  twin_test::Run run;
  s.Launch(&run, SpinsOnAReleasedLock, 300);
  CHECK_EQ(run.status, SK_TWIN_DEADLOCK);
  CHECK_CONTAINS(run.error(), "a spin on the GM word");
  CHECK_CONTAINS(run.error(), "(__ac_wait_lock_1 of op 1 (gmm): tiling task 'gmm_tiling' releases it)");
}

TWIN_TEST(a_task_still_waiting_when_the_kernel_ends_fails_the_launch) {
  Setup s;
  twin_test::Run run;
  s.Launch(&run, WaitsForNothing);
  CHECK_EQ(run.status, SK_TWIN_TASK_ERROR);
  CHECK_CONTAINS(run.error(), "but the kernel ended without writing it");
}

TWIN_TEST(a_tiling_key_the_kernel_lacks_is_named) {
  Setup s;
  s.keys[1] = 9;
  twin_test::Run run;
  s.Launch(&run, RouteThenTiledOp, 300);
  CHECK(run.status != SK_TWIN_OK);
  CHECK_CONTAINS(run.error(), "chose tiling key 2, which the kernel does not have (its keys: 1, 9)");
}

// Faulty tiling functions: each fails the launch naming the task and the function, the process
// goes on and runs the next launch.
std::atomic<bool> g_release_endless{false};

int CrashingTiling(SkTilingContext*) {
  *(volatile int*)nullptr = 1;
  return 0;
}
int AbortingTiling(SkTilingContext*) { std::abort(); }
int TrappingTiling(SkTilingContext*) { __builtin_trap(); }
int ThrowingTiling(SkTilingContext*) { throw std::runtime_error("no rows"); }
int Deeper(volatile int n) {
  volatile char pad[512];
  pad[0] = static_cast<char>(n);
  return n < 0 ? 0 : Deeper(n + 1) + pad[0];  // the test for n < 0 only keeps -Winfinite-recursion quiet
}
int OverflowingTiling(SkTilingContext* ctx) { return Deeper(static_cast<int>(ctx->max_block_dim)); }
// Never returns as far as the twin knows; the test lets it go once the launch has failed.
int EndlessTiling(SkTilingContext*) {
  while (!g_release_endless.load()) {
  }
  return 0;
}

uint64_t MsSince(std::chrono::steady_clock::time_point start) {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count());
}

void CheckNextLaunchRuns() {
  g_tiling_rc = 0;
  Setup s;
  twin_test::Run run;
  s.Launch(&run, RouteThenTiledOp);
  CHECK_OK(run);
  CHECK_EQ(s.tiling, int64_t{10});
}

TWIN_TEST(a_tiling_function_that_crashes_fails_the_launch_at_once_naming_the_task) {
  const struct {
    int (*fn)(SkTilingContext*);
    const char* words;
  } cases[] = {{CrashingTiling, "crashed: SIGSEGV, invalid memory write at 0x0"},
               {AbortingTiling, "crashed: SIGABRT, abort() called"},
               {TrappingTiling, "crashed: SIGILL, illegal instruction"},
               {ThrowingTiling, "threw: no rows"},
               {OverflowingTiling, "crashed: stack overflow: the thread's stack of"}};
  for (const auto& c : cases) {
    Setup s;
    s.task.tiling = c.fn;
    s.task.what = "tiling function gmm_tiling of op 1 (gmm)";
    twin_test::Run run;
    const auto start = std::chrono::steady_clock::now();
    s.Launch(&run, RouteThenTiledOp, 3000);
    CHECK_EQ(run.status, SK_TWIN_TASK_ERROR);
    CHECK_CONTAINS(run.error(), std::string("sk twin: kernel 'sk_route_gmm': task 'gmm_tiling' failed: its tiling "
                                            "function gmm_tiling of op 1 (gmm) ") + c.words);
    CHECK(MsSince(start) < 2000);  // at once, not after the watchdog's 3000 ms
    CheckNextLaunchRuns();
  }
}

TWIN_TEST(a_tiling_function_that_never_returns_is_failed_by_the_watchdog) {
  g_release_endless = false;
  // Leaked: the detached task writes its words once it is let go.
  Setup& s = *new Setup();
  s.task.tiling = EndlessTiling;
  twin_test::Run run;
  const auto start = std::chrono::steady_clock::now();
  s.Launch(&run, RouteThenTiledOp, 300);
  const uint64_t took = MsSince(start);
  CHECK_EQ(run.status, SK_TWIN_HANG);
  CHECK_CONTAINS(run.error(), "task 'gmm_tiling' failed: its tiling function never returned: it ran for ");
  CHECK_CONTAINS(run.error(), "(timeout 300 ms; set SK_TWIN_TIMEOUT_MS to change it)");
  // Taken back when the runtime is a shared library of its own (Bazel's test link); linked into
  // one object with it, the thread is detached instead (the message says so).
  CHECK(took >= 300 && took < 3000);
  CheckNextLaunchRuns();
  g_release_endless = true;
}

// Calls fn alone through sk_twin_run_tiling with s's context and keys.
void RunAlone(twin_test::Run* run, Setup* s, int (*fn)(SkTilingContext*), uint32_t timeout_ms = 0) {
  SkTwinTask t = s->task;
  t.tiling = fn;
  t.what = "tiling function gmm_tiling of op 1 (gmm)";
  run->status = sk_twin_run_tiling(&t, timeout_ms, &run->r);
}

TWIN_TEST(a_tiling_function_called_alone_is_caught_too) {
  g_tiling_rc = 0;
  Setup s;
  s.data = {1, 2, 3, 4};
  {
    twin_test::Run run;
    RunAlone(&run, &s, SumTiling);
    CHECK_OK(run);
    CHECK_EQ(s.tc.tiling_key, uint64_t{2});
    CHECK_EQ(s.tc.block_dim, uint32_t{3});
    CHECK_EQ(s.tiling, int64_t{10});
  }
  const struct {
    int (*fn)(SkTilingContext*);
    uint64_t second_key;
    int status;
    const char* words;
  } cases[] = {{CrashingTiling, 2, SK_TWIN_TASK_ERROR, "the tiling function gmm_tiling of op 1 (gmm) crashed: SIGSEGV"},
               {SumTiling, 9, SK_TWIN_TASK_ERROR, "chose tiling key 2, which the kernel does not have (its keys: 1, 9)"},
               {EndlessTiling, 2, SK_TWIN_HANG, "the tiling function gmm_tiling of op 1 (gmm) never returned"}};
  for (const auto& c : cases) {
    g_release_endless = false;
    s.keys[1] = c.second_key;
    twin_test::Run run;
    const auto start = std::chrono::steady_clock::now();
    RunAlone(&run, &s, c.fn, 200);
    CHECK_EQ(run.status, c.status);
    CHECK_CONTAINS(run.error(), c.words);
    CHECK(MsSince(start) < 3000);
    g_release_endless = true;
  }
}

}  // namespace

int main(int argc, char** argv) { return twin_test::Main(argc, argv); }
