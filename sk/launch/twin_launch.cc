// The CPU twin behind generated launch code: sk_twin_launch with the
// launch's shape, its error text in the Status.
#include "sk_launch_twin.h"

#include "sk_twin.h"

namespace sk_launch {
namespace twin {

Status Run(const char* scope, const LaunchInfo& info, void (*entry)(), void (*entry_aiv)(),
           const uint64_t* params) {
  SkTwinLaunch launch = {};
  launch.name = info.name;
  launch.entry = reinterpret_cast<void*>(entry);
  launch.entry_aiv = reinterpret_cast<void*>(entry_aiv);
  launch.num_args = info.fused ? SK_TWIN_PARA_BASE_ENTRY : info.num_params;
  launch.block_dim = info.block_dim;
  launch.aic_ration = info.aic_per_block;
  launch.aiv_ration = info.aiv_per_block;
  launch.params = params;
  launch.num_params = info.num_params;
  SkTwinResult* result = nullptr;
  const int rc = sk_twin_launch(&launch, &result);
  Status status;
  if (rc != SK_TWIN_OK) {
    status = Failed(std::string(scope) + ": launch of " + info.name + " failed on the CPU twin: " +
                    (result ? sk_twin_result_error(result) : "no result"));
  }
  sk_twin_result_free(result);
  return status;
}

}  // namespace twin
}  // namespace sk_launch
