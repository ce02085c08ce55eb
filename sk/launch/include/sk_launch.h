/*
 * sk_launch.h - what every generated SuperKernel launch header shares.
 *
 * A `super_kernel` target is a cc_library dependency: it provides
 * `<package>/<name>_launch.h` (rendered by `sk launch` from its fusion plan)
 * whose `<name>::Launch(args, stream)` returns a Status. The header is the
 * same on the CPU twin and on CANN; the toolchain picks the implementation.
 * Headers are C++11; the implementations are compiled as C++17.
 */
#ifndef SK_LAUNCH_H_
#define SK_LAUNCH_H_

#include <stdint.h>

#include <string>
#include <utility>

namespace sk_launch {

enum Code : int {
  kOk = 0,
  kBadArgument = 1,   // an argument was refused before anything was launched
  kLaunchFailed = 2,  // the runtime (CPU twin or ACL) reported a failure
};

struct Status {
  int code = kOk;
  std::string error;  // empty when ok; else one paragraph naming the op and parameter
  bool ok() const { return code == kOk; }
};

inline Status MakeStatus(int code, std::string error) {
  Status s;
  s.code = code;
  s.error = std::move(error);
  return s;
}
inline Status Refused(std::string error) { return MakeStatus(kBadArgument, std::move(error)); }
inline Status Failed(std::string error) { return MakeStatus(kLaunchFailed, std::move(error)); }

// One launch of a SuperKernel's sequence: the fused kernel, or (for a scope
// split around a non-fusable op, or bypassed) a piece or an op on its own.
struct LaunchInfo {
  const char* name;        // kernel name (the fused entry, or the op's kernel entry)
  bool fused;
  uint32_t block_dim;
  uint32_t aic_per_block;  // core ratio: cube cores per block
  uint32_t aiv_per_block;  //             vector cores per block
  uint32_t num_params;     // slots of its argument list
};

}  // namespace sk_launch

#endif  // SK_LAUNCH_H_
