// Kernel faults on the twin: a fatal signal in a worker (SIGSEGV, SIGBUS,
// SIGILL, SIGFPE, a stack overflow) becomes a kernel error of its launch
// instead of killing the process; a worker stuck in kernel code after its
// launch failed is taken back by a signal; GM is guarded (gmguard.cc).
//
// A worker thread arms a FaultCatch around the kernel call (RunWorker). The
// handlers run on the worker's alternate signal stack and only record what
// happened before they siglongjmp back to RunWorker, which words the error
// (async-signal-unsafe work happens there, not in the handler). Signals on
// other threads go to the handler that was installed before ours.
#ifndef SK_TWIN_SRC_FAULTS_H_
#define SK_TWIN_SRC_FAULTS_H_

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace sk_twin {

struct LaunchContext;
struct Worker;

// The address ranges of the code a launch's entries live in; a stuck worker
// is unwound only while it executes there (never inside the runtime or libc,
// where it may hold a lock).
using CodeRanges = std::vector<std::pair<uintptr_t, uintptr_t>>;
CodeRanges KernelCodeRanges(const void* entry, const void* entry_aiv);

struct FaultCatch {
  sigjmp_buf jmp;
  std::atomic<bool> armed{false};
  std::atomic<bool> cancel{false};  // the supervisor asks the worker to leave
  volatile sig_atomic_t signo = 0;  // 0 after a cancel
  volatile int code = 0;
  volatile uintptr_t addr = 0;
  volatile uintptr_t pc = 0;
  volatile int write = -1;  // SIGSEGV: 1 write, 0 read, -1 unknown
  uintptr_t stack_lo = 0;  // the thread's stack, for telling an overflow
  uintptr_t stack_hi = 0;
  const CodeRanges* kernel_code = nullptr;
  pthread_t thread{};
};

// Installs the process-wide handlers once (keeping the previous ones for
// signals outside workers) and gives this thread an alternate signal stack
// for as long as the scope lives.
class FaultScope {
 public:
  FaultScope(FaultCatch* c, const CodeRanges* kernel_code);
  ~FaultScope();
  FaultScope(const FaultScope&) = delete;
  FaultScope& operator=(const FaultScope&) = delete;

 private:
  FaultCatch* catch_;
  std::vector<char> alt_stack_;
  bool alt_installed_ = false;
};

// Arms and disarms the calling thread's catch (RunWorker, around the call).
void ArmFaults(FaultCatch* c);
void DisarmFaults(FaultCatch* c);

// Asks a stuck worker to leave: it is unwound when the signal finds it in
// kernel code. Returns false when it cannot be asked.
bool RequestCancel(FaultCatch* c);

// "SIGSEGV (invalid memory access) at 0x...: ..." with what the address is
// (a GM tensor's guard, the thread's stack guard, nothing known).
std::string DescribeFault(const FaultCatch& c);

// Guarded GM (gmguard.cc).
void* GuardedAlloc(uint64_t bytes, const char* name);
void GuardedFree(void* ptr);
// What an address outside every tensor is near: "20 bytes before the start
// of GM tensor 'y' (4096 bytes at 0x...)", or "" when it is near none.
std::string DescribeGmAddress(uintptr_t addr);
// Checks the guard bytes of every live GM allocation; returns "" or what was
// overwritten (and restores them, so the next launch starts clean).
std::string CheckGmGuards();

}  // namespace sk_twin

#endif  // SK_TWIN_SRC_FAULTS_H_
