/*
 * sk_launch_twin.h - the CPU-twin side of generated launch code: one launch on
 * the twin's worker threads (sk_twin.h, the runtime sk_model uses), its
 * failure as a Status naming the launch.
 */
#ifndef SK_LAUNCH_TWIN_H_
#define SK_LAUNCH_TWIN_H_

#include <stdint.h>

#include "sk_launch.h"

namespace sk_launch {
namespace twin {

// entry: the entry run by every worker (or by the cube workers when entry_aiv
// is set); fused: a `void f(void)` entry reading `params` through
// get_para_base(), else `f(params[0], ..., params[n-1])`.
Status Run(const char* scope, const LaunchInfo& info, void (*entry)(), void (*entry_aiv)(),
           const uint64_t* params);

}  // namespace twin
}  // namespace sk_launch

#endif  // SK_LAUNCH_TWIN_H_
