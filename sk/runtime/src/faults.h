// Faults in user code on the twin: a fatal signal (SIGSEGV, SIGBUS, SIGILL,
// SIGFPE, SIGABRT, a stack overflow) in a kernel worker or in a task's tiling
// function becomes an error of its launch instead of killing the process; a
// thread stuck in user code after its launch failed is taken back by a
// signal; GM is guarded (gmguard.cc).
//
// A thread calls the user code through CallCatchingFaults (RunWorker for the
// kernel, tasks.cc for a tiling function). The handlers run on the thread's
// alternate signal stack and only record what happened before they
// siglongjmp back into CallCatchingFaults; its caller words the error
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

// The address ranges of the code user functions (a launch's entries, a
// tiling function) live in; a stuck thread is unwound only while it executes
// there (never inside the runtime or libc, where it may hold a lock). Empty
// when the functions share the runtime's own object (a C++ test).
using CodeRanges = std::vector<std::pair<uintptr_t, uintptr_t>>;
CodeRanges UserCodeRanges(const void* fn, const void* other_fn);

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
  // Written by the worker before it arms `armed` (release), read by the
  // supervisor's RequestCancel after it sees `armed` (acquire): atomics, as a
  // later call of the same worker may set them again while it reads.
  std::atomic<const CodeRanges*> user_code{nullptr};
  std::atomic<pthread_t> thread{};
};

enum class CallEnd { kReturned, kFaulted, kCancelled };

// Calls fn(arg) on this thread with `c` armed: a fatal signal in it returns
// kFaulted (what happened is in `c`, for DescribeFault), a RequestCancel
// that finds the thread in `user_code` returns kCancelled; either way fn's
// frames are abandoned, not unwound. Installs the process-wide handlers once
// and gives the thread an alternate signal stack for the call.
CallEnd CallCatchingFaults(FaultCatch* c, const CodeRanges* user_code, void (*fn)(void*), void* arg);

// Asks a thread stuck in its call to leave: it is unwound when the signal
// finds it in user code. Returns false when it cannot be asked.
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
// A read of `bytes` from addr that runs past the end of the GM tensor holding
// addr: "GM tensor 't' (8 bytes) holds 8 bytes from there", else "" (within
// it, or addr is in no GM tensor: host memory the twin does not track).
std::string ShortGmRead(uintptr_t addr, uint64_t bytes);
// Checks the guard bytes of every live GM allocation; returns "" or what was
// overwritten (and restores them, so the next launch starts clean).
std::string CheckGmGuards();

}  // namespace sk_twin

#endif  // SK_TWIN_SRC_FAULTS_H_
