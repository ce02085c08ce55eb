// Internal state of one twin launch: workers, flag counters, set rounds.
//
// Synchronisation is built only from what the hardware promises, so that
// ThreadSanitizer sees a happens-before edge exactly where a barrier gives
// one: each (worker, flag) counter has its own mutex, each set round (mode 0
// per core type, modes 1/2 per AI core) has its own mutex, and diagnostics
// use relaxed atomics that create no edges.
#ifndef SK_TWIN_SRC_CORE_H_
#define SK_TWIN_SRC_CORE_H_

#include <atomic>
#include <condition_variable>
#include <deque>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "faults.h"
#include "sk_twin.h"

namespace sk_twin {

constexpr int kNumFlags = 16;
constexpr uint64_t kDefaultTimeoutMs = 5000;
// Far above any twin launch this project runs; a loop that keeps reaching
// barriers is still stopped.
constexpr uint64_t kDefaultLaunchLimitMs = 600000;
constexpr uint64_t kL1Bytes = 512 * 1024;
constexpr uint64_t kUbBytes = 192 * 1024;
// The cube's local memories (Atlas A2/A3): where TPosition A1/B1 (L1), A2 (L0A), B2 (L0B) and CO1 (L0C) live.
constexpr uint64_t kL0aBytes = 64 * 1024;
constexpr uint64_t kL0bBytes = 64 * 1024;
constexpr uint64_t kL0cBytes = 128 * 1024;
constexpr uint64_t kBtBytes = 1024;  // the bias table of Atlas A2/A3 (1 KB)
// Which local memory a buffer lives in (UbSlot::mem); kMemCount sizes the per-memory arrays.
// kMemBt: the bias table (TPosition::C2), which Mmad may start C from.
enum LocalMem : uint32_t { kMemUb = 0, kMemL1, kMemL0a, kMemL0b, kMemL0c, kMemBt, kMemCount };

enum class CoreType : uint8_t { kAic = 0, kAiv = 1 };

enum class WorkerState : int { kRunning, kWaitFlag, kSpin, kFeedPoll, kFinished };

// Thrown inside a worker to unwind it once the launch is aborted.
struct LaunchAborted {};

struct Span {
  std::string name;
  const char* category;
  uint64_t begin_ns;
  uint64_t end_ns;
};

// The Ascend C memory model of one worker (ascendc.cc): buffer slots in its
// Unified Buffer, the queues/TBufs that own them, and the TPipes.
enum class SlotState : uint8_t { kFree, kAllocated, kQueued, kFixed };

struct UbSlot {
  uint32_t addr = 0;
  uint32_t bytes = 0;
  uint32_t gen = 1;       // bumped whenever the slot's tensor dies
  SlotState state = SlotState::kFree;
  uint32_t owner = 0;     // the UbObject (queue or TBuf) id
  uint32_t mem = 0;       // LocalMem: the UB, or a cube memory on an AIC
  const char* died_by = "";  // "FreeTensor", "TPipe::Reset", ...: why gen moved on
};

struct UbObject {  // a TQue/TQueBind (kind 0) or a TBuf (kind 1)
  uint32_t pipe = 0;
  uint32_t kind = 0;
  uint32_t pos = 0;
  uint32_t depth = 0;
  uint32_t len = 0;  // bytes per buffer, 32-byte aligned
  bool live = false;
  std::vector<uint32_t> slots;
  std::deque<SkTwinLocalRef> fifo;
  uint32_t next = 0;  // round-robin start for AllocTensor
};

struct PipeRec {
  void* object = nullptr;
  bool live = false;
  uint32_t base = 0;  // UB offset where its buffers start
  uint32_t top = 0;   // next free UB offset
  uint32_t cube_base[kMemCount] = {};  // the same for the cube memories (index LocalMem; [kMemUb] unused)
  uint32_t cube_top[kMemCount] = {};
  std::vector<uint32_t> objects;
  // A TBufPool is a PipeRec too: its buffers come from [pool_start, pool_end) of memory pool_mem (carved out of its
  // parent, or shared with another pool), at most pool_buffers of them. Resetting or destroying the parent releases
  // the pools it holds (pools).
  bool pool = false;
  uint32_t pool_mem = 0;
  uint32_t pool_start = 0;
  uint32_t pool_end = 0;
  uint32_t pool_buffers = 0;
  std::vector<uint32_t> pools;
};

struct AscendState {
  std::vector<UbSlot> slots{1};       // [0] is "no slot"
  std::vector<UbObject> objects{1};   // [0] is "not initialised"
  std::vector<PipeRec> pipes{1};      // [0] is "no pipe"
  uint32_t ub_top = 0;
  uint32_t cube_top[kMemCount] = {};
  // The vector mask register (SetMaskNorm/SetMaskCount/SetVectorMask):
  // normal mode, all lanes, after ResetMask.
  bool mask_counter = false;
  uint64_t mask_reg[2] = {~uint64_t{0}, ~uint64_t{0}};  // [0] lanes 0-63, [1] lanes 64-127
  uint64_t cmp_reg[2] = {0, 0};  // CMPMASK: the bits of the last Compare into the register
  uint32_t atomic = 0;            // SetAtomic*: 0 none, 1 add, 2 max, 3 min
  uint32_t atomic_dtype = 0;
  uint64_t rsvd_cnt = 0;           // elements the last GatherMask kept (GetRsvdCnt)
  uint64_t acc_val = 0;            // bits of the last ReduceSum count-form result (GetAccVal)
  uint16_t mrg_taken[4] = {0, 0, 0, 0};  // pairs the last MrgSort took from each list (GetMrgSortResult)
  uint32_t fix_nd[3] = {1, 0, 0};  // SetFixpipeNz2ndFlag: ndNum, srcNdStride, dstNdStride (DataCopy from L0C)
  uint64_t fix_pre_quant = 0;      // SetFixpipePreQuantFlag: the scalar of DataCopy from L0C's DEQF16
  bool deq_set = false;            // SetDeqScale(half) was called; deq_scale its value
  uint32_t pad_bytes = 0;          // SetPadValue<T>: sizeof(T) (0: never set) and the value's bits
  uint64_t pad_bits = 0;
  double deq_scale = 0;
  // LoadData 3D's registers (conv.cc): Feature Map [0] left / [1] right (SetFmatrix), the pad value
  // (SetLoadDataPaddingValue); *_set: written since the launch began (hardware leaves them undefined before).
  bool fm_set[2] = {false, false};
  uint32_t fm_h[2] = {0, 0}, fm_w[2] = {0, 0};
  uint8_t fm_pad[2][4] = {};
  bool ld_pad_set = false;
  uint64_t ld_pad_bits = 0;
  uint32_t ld_pad_elem = 0;
};

struct FlagCell {
  std::mutex mu;
  uint64_t count = 0;  // guarded by mu
};

struct Worker {
  // Identity, fixed before the thread starts.
  uint32_t index = 0;
  CoreType type = CoreType::kAic;
  uint32_t block = 0;
  uint32_t sub = 0;
  uint32_t sub_num = 1;
  uint32_t rank = 0;  // position among the workers of its type (mix logical index)
  int64_t coreid = 0;
  std::string label;

  FlagCell cells[kNumFlags];
  std::condition_variable cv;  // the worker waits here on the cell it needs

  // Read by the watchdog while the worker runs.
  std::atomic<WorkerState> state{WorkerState::kRunning};
  std::atomic<int> wait_flag{-1};
  std::atomic<uintptr_t> wait_addr{0};
  std::atomic<const char*> within{nullptr};  // static text: "SyncAll<false>", ...
  std::atomic<uint64_t> wait_since_ns{0};

  // Owned by the worker thread; read by the host after join.
  uint64_t counters[SK_TWIN_COUNTER_COUNT] = {};
  std::vector<Span> spans;
  std::vector<Span> open_spans;
  std::vector<uint8_t> l1;
  std::vector<uint8_t> ub;
  std::vector<uint8_t> l0[4];  // L0A, L0B, L0C, BT (LocalMem - kMemL0a)
  AscendState ascendc;
  std::vector<std::string> sub_kernels;  // sk_twin_trace_begin names, innermost last
  const volatile void* last_dcci = nullptr;
  // Fault catching (faults.h): armed while the kernel runs. `stuck_in` is the
  // sub-kernel a worker was taken back from after a hang (its own thread writes it).
  std::unique_ptr<FaultCatch> fault{new FaultCatch()};
  bool cancelled = false;
  std::string stuck_in;
  uint64_t repeat_dcci = 0;
  uint64_t spin_begin_ns = 0;
};

// A set round: complete once every member has set at least `rounds + 1`
// times; each completed round adds one to every target's counter.
struct RoundGroup {
  std::mutex mu;
  std::vector<uint64_t> sets;  // per member, guarded by mu
  uint64_t rounds = 0;         // guarded by mu
  std::vector<Worker*> members;
  std::vector<Worker*> targets;
};

// A task's call of its tiling function (tasks.cc): caught like a kernel's.
struct TaskRun {
  FaultCatch fault;
  CodeRanges code;                            // the tiling function's object: where it may be taken back
  std::atomic<uint64_t> tiling_since_ns{0};   // when its tiling function was called; 0 while none runs
  bool finished = false;                      // guarded by Externals::mu: its thread has ended
};

// The memory-semantic words and external tasks of one launch (tasks.cc).
struct Externals {
  std::vector<SkTwinWord> words;           // fixed before the launch starts
  std::vector<std::string> whats;          // owned copies of words[i].what
  std::vector<SkTwinTask> tasks;
  std::vector<std::string> names;          // owned copies of tasks[i].name
  std::vector<std::string> functions;      // tasks[i].what, else "tiling function"
  std::vector<std::unique_ptr<TaskRun>> runs;
  std::mutex mu;
  std::condition_variable cv;
  std::vector<bool> written;               // guarded by mu: the word's writer has written it
  std::vector<std::vector<bool>> seen;     // guarded by mu: [word][worker] the worker saw it written
  std::vector<uint64_t> task_value;        // guarded by mu: what the word's task wrote into it
  std::vector<uint64_t> reset_value;       // guarded by mu: what the kernel wrote over it before all had read it
  std::vector<std::vector<bool>> late;     // guarded by mu: [word][worker] its first read came after that reset
  std::vector<std::string> task_state;     // guarded by mu: what each task does now
  std::vector<std::string> task_error;     // guarded by mu: why a task failed, "" if it did not
  bool kernel_done = false;                // guarded by mu
};

struct LaunchContext {
  std::string name;
  void* entry = nullptr;
  void* entry_aiv = nullptr;
  uint32_t num_args = 0;
  uint32_t block_dim = 0;
  uint32_t aic_ration = 0;
  uint32_t aiv_ration = 0;
  const uint64_t* params = nullptr;
  uint32_t num_params = 0;
  uint64_t timeout_ns = 0;
  uint64_t launch_limit_ns = 0;  // the whole launch; 0: none
  bool trace = false;
  CodeRanges kernel_code;  // where a stuck worker may be unwound (faults.h)

  std::vector<std::unique_ptr<Worker>> workers;
  std::vector<Worker*> aic_of_block;                // nullptr when the ration has no AIC
  std::vector<std::vector<Worker*>> aivs_of_block;  // the AIVs of each AI core
  std::vector<Worker*> of_type[2];

  std::unique_ptr<RoundGroup[]> mode0;    // [type * kNumFlags + flag]
  std::unique_ptr<RoundGroup[]> mode1;    // [block * kNumFlags + flag]
  std::unique_ptr<RoundGroup[]> mode2up;  // [block * kNumFlags + flag], AIVs -> their AIC

  std::atomic<bool> abort{false};
  std::atomic<uint64_t> last_progress_ns{0};

  std::mutex error_mu;
  int status = SK_TWIN_OK;  // guarded by error_mu; the first failure wins, except that
  std::string error;        // among kernel errors of workers the lowest worker's wins
  int64_t error_worker = -1;  // guarded by error_mu: the worker whose kernel error is kept

  std::mutex start_mu;
  std::condition_variable start_cv;
  bool started = false;  // guarded by start_mu

  std::mutex done_mu;
  std::condition_variable done_cv;
  uint32_t done = 0;  // guarded by done_mu

  std::shared_ptr<Externals> ext;  // words and tasks (sk_twin_launch_tasks); null otherwise
  std::mutex hccl_mu;
  std::shared_ptr<void> hccl;  // guarded by hccl_mu: the launch's HCCL contexts and windows (hccl.cc)

  // worker: the index of the failing worker for a kernel error, else -1.
  void Fail(int code, const std::string& message, int64_t worker = -1);
};

uint64_t NowNs();
void NoteProgress(LaunchContext& ctx);
// The watchdog's time without progress: timeout_ms, else $SK_TWIN_TIMEOUT_MS
// (range-checked: *error says why it is refused), else the default.
uint64_t WatchdogNs(uint32_t timeout_ms, std::string* error);
// How long threads get to leave after a failure before they are taken back.
uint64_t GraceNs(uint64_t timeout_ns);

// The calling worker; aborts the process when called off a launch.
Worker& CurrentWorker(const char* hook);
LaunchContext& CurrentLaunch();
void BindCurrent(LaunchContext* ctx, Worker* worker);

// Fails the launch (kernel error) and unwinds the calling worker.
[[noreturn]] void FailCurrent(const std::string& message);
// Fails with a broken hardware rule of an Ascend C call (diagnose.cc words
// it: kernel, block, sub-kernel, the call, what is wrong, what is allowed).
[[noreturn]] void FailRule(const std::string& call, const std::string& problem, const std::string& allowed);
// The worker's UB arena (allocated and poisoned on first use).
uint8_t* UbArena(Worker& w);
// Unwinds the calling worker if the launch was aborted.
void CheckAbort(LaunchContext& ctx);

// Clears a dcci spin once the worker does anything else.
void EndSpin(Worker& w);

// Flags (flags.cc).
void SetFlag(LaunchContext& ctx, Worker& w, int mode, int flag);
void WaitFlag(LaunchContext& ctx, Worker& w, int flag);
void SyncAllOn(LaunchContext& ctx, Worker& w, bool aiv_only);
const char* FlagName(int flag);

// Memory-semantic words and external tasks (tasks.cc).
// A dcci by a worker: true when addr is a registered word (handled there).
bool ExternalDcci(LaunchContext& ctx, Worker& w, const volatile void* addr);
// sk_twin_launch_tasks: the launch's externals (problem set when invalid), its task threads
// (started after BuildContext, once the workers exist), and their end: the tasks' errors.
std::shared_ptr<Externals> MakeExternals(const SkTwinWord* words, uint32_t num_words, const SkTwinTask* tasks,
                                         uint32_t num_tasks, std::string* problem);
std::vector<std::thread> StartTasks(LaunchContext& ctx);
// Waits for the tasks, taking back one stuck in its tiling function after a failure (or once
// it overran the watchdog's time); *left: some could not be taken back (detached, not joined).
std::string FinishTasks(LaunchContext& ctx, std::vector<std::thread>* threads, bool* left);
// Whether a task's tiling function runs now (the workers waiting for it are not deadlocked),
// and the failure text of one that has run for longer than the watchdog's time ("" if none).
bool TilingRuns(const LaunchContext& ctx);
std::string OverdueTask(LaunchContext& ctx, uint64_t now_ns);
// sk_twin_run_tiling: a task's tiling function alone, on a thread of its own (the
// unfused run's host call); returns the status, *error why it failed.
int RunTilingAlone(const SkTwinTask& task, uint64_t timeout_ns, std::string* error);
// The registered word at addr, "" if none.
std::string WordText(const LaunchContext& ctx, uintptr_t addr);
// What the tasks do and why any failed, for the deadlock report.
std::string DescribeTasks(LaunchContext& ctx);

// Texts (diagnose.cc).
std::string DescribeDeadlock(LaunchContext& ctx, uint64_t idle_ns);
std::string DescribeResidual(LaunchContext& ctx);
std::string RationText(const LaunchContext& ctx);
std::string HexAddr(uintptr_t addr);
std::string RuleText(const LaunchContext& ctx, const Worker& w, const std::string& call, const std::string& problem,
                     const std::string& allowed);

void RecordSpan(Worker& w, std::string name, const char* category, uint64_t begin_ns, uint64_t end_ns);

}  // namespace sk_twin

#endif  // SK_TWIN_SRC_CORE_H_
