// sk_twin_cpu_debug.h - what Ascend C's CPU debug build (__CCE_KT_TEST__,
// ASCENDC_CPU_DEBUG) gives kernels on top of the device surface, since the
// twin compiles kernels in that mode and they take its #if paths:
//   <iomanip>, <sstream>                       included by the toolkit's kernel
//                                              headers in CPU debug mode (kernels'
//                                              data dumps use std::setw)
//   AscendC::AIC_TYPE / AIV_TYPE / MIX_TYPE    the values g_coreType takes
//   AscendC::ProcessLock                       the lock the cores of a debug run
//                                              share (Read/Write/Unlock)
#ifndef SK_TWIN_CPU_DEBUG_H_
#define SK_TWIN_CPU_DEBUG_H_

#include <pthread.h>

#include <iomanip>
#include <sstream>

#include "sk_twin_cann_utils.h"

namespace AscendC {

// g_coreType is AIC or AIV on every twin worker (a mix kernel's cube and vector
// halves run as separate workers), so MIX_TYPE never compares equal to it.
constexpr SkTwinCoreTag AIC_TYPE = AIC;
constexpr SkTwinCoreTag AIV_TYPE = AIV;
constexpr SkTwinCoreTag MIX_TYPE = static_cast<SkTwinCoreTag>(2);

// A reader/writer lock every core of the run shares: the CPU debug build runs
// cores as processes sharing it; the twin runs them as threads of one process,
// so a process-wide pthread rwlock is the same exclusion. Read/Write block until
// taken; Unlock releases whichever the caller holds. Each returns pthread's code
// (0 on success).
class ProcessLock {
 public:
  ProcessLock() { pthread_rwlock_init(&lock_, nullptr); }
  ~ProcessLock() { pthread_rwlock_destroy(&lock_); }
  ProcessLock(const ProcessLock&) = delete;
  ProcessLock& operator=(const ProcessLock&) = delete;

  int Read() { return pthread_rwlock_rdlock(&lock_); }
  int Write() { return pthread_rwlock_wrlock(&lock_); }
  int Unlock() { return pthread_rwlock_unlock(&lock_); }

  static ProcessLock* GetProcessLock() {
    static ProcessLock shared;  // one per kernel library: the cores of a launch share it
    return &shared;
  }

 private:
  pthread_rwlock_t lock_;
};

}  // namespace AscendC

#endif  // SK_TWIN_CPU_DEBUG_H_
