// Fatal signals in user code (kernels, tiling functions), caught per thread (see faults.h).
#include "faults.h"

#include <link.h>
#include <ucontext.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>

#include "core.h"

namespace sk_twin {
namespace {

// initial-exec: reading it in a signal handler must not allocate the
// thread's TLS block (a lazily allocated one calls malloc).
__attribute__((tls_model("initial-exec"))) thread_local FaultCatch* t_catch = nullptr;

constexpr int kFaultSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
constexpr size_t kAltStackBytes = 64 * 1024;
// A fault this close below a thread's stack is its stack overflowing (a big
// frame may skip the guard page itself).
constexpr uintptr_t kStackOverflowReach = 1u << 20;

struct sigaction g_previous[NSIG];
int g_cancel_signal = 0;
std::once_flag g_install_once;

uintptr_t PcOf(void* uc) {
  auto* ctx = static_cast<ucontext_t*>(uc);
#if defined(__x86_64__)
  return static_cast<uintptr_t>(ctx->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  return static_cast<uintptr_t>(ctx->uc_mcontext.pc);
#else
  (void)ctx;
  return 0;
#endif
}

// -1 unknown, 0 read, 1 write (the page-fault error code on x86-64).
int WriteOf(void* uc) {
#if defined(__x86_64__)
  return (static_cast<ucontext_t*>(uc)->uc_mcontext.gregs[REG_ERR] & 2) != 0 ? 1 : 0;
#else
  (void)uc;
  return -1;
#endif
}

bool InRanges(const CodeRanges& ranges, uintptr_t pc) {
  for (const auto& r : ranges) {
    if (pc >= r.first && pc < r.second) return true;
  }
  return false;
}

// A signal outside a call goes where it went before the twin loaded.
void Chain(int sig, siginfo_t* info, void* uc) {
  const struct sigaction& prev = g_previous[sig];
  if ((prev.sa_flags & SA_SIGINFO) != 0 && prev.sa_sigaction != nullptr) {
    prev.sa_sigaction(sig, info, uc);
    return;
  }
  if (prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN && prev.sa_handler != nullptr) {
    prev.sa_handler(sig);
    return;
  }
  struct sigaction dfl;
  std::memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigaction(sig, &dfl, nullptr);
  // A hardware fault happens again when the instruction restarts; a sent one is sent again.
  if (info == nullptr || info->si_code <= 0) raise(sig);
}

void OnFault(int sig, siginfo_t* info, void* uc) {
  FaultCatch* c = t_catch;
  if (c != nullptr && c->armed.load(std::memory_order_relaxed)) {
    c->armed.store(false, std::memory_order_relaxed);
    c->signo = sig;
    c->code = info != nullptr ? info->si_code : 0;
    c->addr = info != nullptr ? reinterpret_cast<uintptr_t>(info->si_addr) : 0;
    c->pc = PcOf(uc);
    c->write = sig == SIGSEGV ? WriteOf(uc) : -1;
    siglongjmp(c->jmp, 1);
  }
  Chain(sig, info, uc);
}

void OnCancel(int, siginfo_t*, void* uc) {
  int saved = errno;
  FaultCatch* c = t_catch;
  const CodeRanges* code = c != nullptr ? c->user_code.load(std::memory_order_relaxed) : nullptr;
  if (c != nullptr && c->armed.load(std::memory_order_relaxed) && c->cancel.load(std::memory_order_relaxed) &&
      code != nullptr) {
    uintptr_t pc = PcOf(uc);
    if (InRanges(*code, pc)) {
      c->armed.store(false, std::memory_order_relaxed);
      c->signo = 0;
      c->pc = pc;
      siglongjmp(c->jmp, 2);
    }
  }
  errno = saved;
}

void Install() {
  struct sigaction act;
  std::memset(&act, 0, sizeof act);
  act.sa_sigaction = &OnFault;
  act.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&act.sa_mask);
  for (int sig : kFaultSignals) sigaction(sig, &act, &g_previous[sig]);
  g_cancel_signal = SIGRTMIN + 4;
  struct sigaction cancel;
  std::memset(&cancel, 0, sizeof cancel);
  cancel.sa_sigaction = &OnCancel;
  cancel.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
  sigemptyset(&cancel.sa_mask);
  sigaction(g_cancel_signal, &cancel, &g_previous[g_cancel_signal]);
}

struct RangeQuery {
  uintptr_t target;
  CodeRanges ranges;
};

int CollectRanges(struct dl_phdr_info* info, size_t, void* data) {
  auto* q = static_cast<RangeQuery*>(data);
  CodeRanges exec;
  bool holds = false;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    uintptr_t lo = info->dlpi_addr + ph.p_vaddr;
    uintptr_t hi = lo + ph.p_memsz;
    if (q->target >= lo && q->target < hi) holds = true;
    if ((ph.p_flags & PF_X) != 0) exec.emplace_back(lo, hi);
  }
  if (!holds) return 0;
  q->ranges = exec;
  return 1;
}

CodeRanges RangesOf(const void* fn) {
  RangeQuery q{reinterpret_cast<uintptr_t>(fn), {}};
  dl_iterate_phdr(&CollectRanges, &q);
  return q.ranges;
}

std::string Hex(uintptr_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%zx", static_cast<size_t>(v));
  return buf;
}

}  // namespace

CodeRanges UserCodeRanges(const void* fn, const void* other_fn) {
  CodeRanges out;
  const CodeRanges runtime = RangesOf(reinterpret_cast<const void*>(&UserCodeRanges));
  for (const void* f : {fn, other_fn}) {
    if (f == nullptr) continue;
    CodeRanges mine = RangesOf(f);
    // User code linked into the runtime's own object (a C++ test): the
    // runtime's code cannot be told apart, so nothing is unwound.
    if (!mine.empty() && !runtime.empty() && mine.front() == runtime.front()) return {};
    out.insert(out.end(), mine.begin(), mine.end());
  }
  return out;
}

namespace {

// Installs the handlers once and gives this thread an alternate signal stack
// for as long as the scope lives.
class FaultScope {
 public:
  FaultScope(FaultCatch* c, const CodeRanges* user_code);
  ~FaultScope();
  FaultScope(const FaultScope&) = delete;
  FaultScope& operator=(const FaultScope&) = delete;

 private:
  FaultCatch* catch_;
  std::vector<char> alt_stack_;
  bool alt_installed_ = false;
};

FaultScope::FaultScope(FaultCatch* c, const CodeRanges* user_code) : catch_(c) {
  std::call_once(g_install_once, &Install);
  c->user_code.store(user_code, std::memory_order_relaxed);
  c->thread.store(pthread_self(), std::memory_order_relaxed);
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    void* addr = nullptr;
    size_t size = 0;
    if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
      c->stack_lo = reinterpret_cast<uintptr_t>(addr);
      c->stack_hi = c->stack_lo + size;
    }
    pthread_attr_destroy(&attr);
  }
  // A stack overflow can only be handled on another stack.
  alt_stack_.resize(kAltStackBytes);
  stack_t ss;
  std::memset(&ss, 0, sizeof ss);
  ss.ss_sp = alt_stack_.data();
  ss.ss_size = alt_stack_.size();
  alt_installed_ = sigaltstack(&ss, nullptr) == 0;
  t_catch = c;
}

FaultScope::~FaultScope() {
  catch_->armed.store(false, std::memory_order_relaxed);
  t_catch = nullptr;
  if (alt_installed_) {
    stack_t ss;
    std::memset(&ss, 0, sizeof ss);
    ss.ss_flags = SS_DISABLE;
    sigaltstack(&ss, nullptr);
  }
}

}  // namespace

CallEnd CallCatchingFaults(FaultCatch* c, const CodeRanges* user_code, void (*fn)(void*), void* arg) {
  FaultScope scope(c, user_code);
  if (sigsetjmp(c->jmp, 1) == 0) {
    c->armed.store(true, std::memory_order_release);
    fn(arg);
    c->armed.store(false, std::memory_order_relaxed);
    return CallEnd::kReturned;
  }
  return c->signo != 0 ? CallEnd::kFaulted : CallEnd::kCancelled;
}

bool RequestCancel(FaultCatch* c) {
  if (g_cancel_signal == 0) return false;
  c->cancel.store(true, std::memory_order_relaxed);
  // Not in its call (yet or any more): nothing to unwind; the flag stays for
  // when the supervisor asks again.
  if (!c->armed.load(std::memory_order_acquire)) return true;
  const CodeRanges* code = c->user_code.load(std::memory_order_relaxed);
  if (code == nullptr || code->empty()) return false;
  return pthread_kill(c->thread.load(std::memory_order_relaxed), g_cancel_signal) == 0;
}

std::string DescribeFault(const FaultCatch& c) {
  const uintptr_t addr = c.addr;
  const std::string pc = c.pc != 0 ? " (instruction at " + Hex(c.pc) + ")" : "";
  switch (c.signo) {
    case SIGSEGV: {
      if (c.stack_lo != 0 && addr < c.stack_lo + 4096 && addr + kStackOverflowReach >= c.stack_lo) {
        return "stack overflow: the thread's stack of " + std::to_string((c.stack_hi - c.stack_lo) >> 10) +
               " KiB is used up at " + Hex(addr) + pc + " (unbounded recursion or a huge local array?)";
      }
      const int write = c.write;
      std::string access = write == 1 ? "write" : write == 0 ? "read" : "access";
      std::string text = "SIGSEGV, invalid memory " + access + " at " + Hex(addr) + pc;
      std::string gm = DescribeGmAddress(addr);
      if (!gm.empty()) return text + ": " + gm;
      if (addr < 4096) return text + ": a null pointer dereferenced";
      return text + ": outside every GM tensor, the thread's stack and the twin's buffers (a stray pointer?)";
    }
    case SIGBUS:
      return "SIGBUS, bus error at " + Hex(addr) + pc + " (misaligned or unbacked memory)";
    case SIGILL:
      return "SIGILL, illegal instruction" + pc + " (a trap such as __builtin_trap() or unreachable code reached)";
    case SIGABRT:
      return "SIGABRT, abort() called" + pc + " (a failed assert, std::terminate or abort itself)";
    case SIGFPE:
      if (c.code == FPE_INTDIV) return "SIGFPE, integer division by zero" + pc;
      if (c.code == FPE_INTOVF) return "SIGFPE, integer overflow" + pc;
      return "SIGFPE, arithmetic exception" + pc;
    default:
      return "signal " + std::to_string(c.signo) + pc;
  }
}

}  // namespace sk_twin
