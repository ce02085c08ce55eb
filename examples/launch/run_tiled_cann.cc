// The host program of run_tiled.cc against the CANN implementation of the launch API, linked with
// the recording fake ACL (sk_cann_launch_library `tiled_cann`): nothing runs, and every ACL call
// Launch makes lands as one JSON line in $SK_FAKE_ACL_LOG (stderr when unset).
//
// With the fake ACL a program makes no ACL call of its own before Launch: the stand-in has no
// device to open and takes any non-null address as device memory. On an NPU the same program
// first calls aclInit, aclrtSetDevice and aclrtCreateStream, allocates every buffer with
// aclrtMalloc (and copies the inputs there with aclrtMemcpy), passes the stream to Launch, and
// waits with aclrtSynchronizeStream before it reads the outputs back.
#include <stdio.h>
#include <stdlib.h>

#include "kernels/scale_add_tiling.h"
#include "tiled_cann_launch.h"

int main() {
  const size_t bytes = 10240 * sizeof(float);
  auto alloc = [](size_t n) { return aligned_alloc(512, (n + 511) / 512 * 512); };
  const ScaleAddTiling tiling = {10240, 2.0f};

  tiled::Args args;
  args.x = alloc(bytes);
  args.y = alloc(bytes);
  args.h = alloc(bytes);
  args.out = alloc(bytes);
  args.res = alloc(bytes);
  args.scale_tiling = &tiling;  // a device address too: on an NPU, an aclrtMalloc'd copy of the struct
  args.scale_tiling_bytes = sizeof tiling;
  args.rescale_tiling = &tiling;
  args.rescale_tiling_bytes = sizeof tiling;
  args.workspace = alloc(tiled::kWorkspaceBytes);
  args.workspace_bytes = tiled::kWorkspaceBytes;
  void* stream = reinterpret_cast<void*>(0x5157);  // an aclrtStream on an NPU; recorded as given here
  const sk_launch::Status status = tiled::Launch(args, stream);
  if (!status.ok()) {
    fprintf(stderr, "launch failed: %s\n", status.error.c_str());
    return 1;
  }
  printf("tiled: %u launch(es) of %u blocks recorded\n", tiled::kLaunchCount, tiled::kBlockDim);
  return 0;
}
