// A host program calling a SuperKernel: fill the tensors, launch, print a checksum.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/scale_add_tiling.h"
#include "tiled_launch.h"

int main() {
  const int n = 10240;
  auto alloc = [](size_t bytes) { return static_cast<float*>(aligned_alloc(512, (bytes + 511) / 512 * 512)); };
  float *x = alloc(n * 4), *y = alloc(n * 4), *h = alloc(n * 4), *out = alloc(n * 4), *res = alloc(n * 4);
  for (int i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i % 100);
    y[i] = 1.0f;
  }
  const ScaleAddTiling tiling = {n, 2.0f};
  void* workspace = aligned_alloc(512, (tiled::kWorkspaceBytes + 511) / 512 * 512);
  memset(workspace, 0, tiled::kWorkspaceBytes);

  tiled::Args args;
  args.x = x;
  args.y = y;
  args.h = h;
  args.out = out;
  args.res = res;
  args.scale_tiling = &tiling;
  args.scale_tiling_bytes = sizeof tiling;
  args.rescale_tiling = &tiling;
  args.rescale_tiling_bytes = sizeof tiling;
  args.workspace = workspace;
  args.workspace_bytes = tiled::kWorkspaceBytes;
  const sk_launch::Status status = tiled::Launch(args);
  if (!status.ok()) {
    fprintf(stderr, "launch failed: %s\n", status.error.c_str());
    return 1;
  }
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += res[i];
  printf("tiled: %u blocks, core ratio %s, workspace %llu bytes; sum(res) = %.1f\n", tiled::kBlockDim,
         tiled::kCoreRatio, static_cast<unsigned long long>(tiled::kWorkspaceBytes), sum);
  return 0;
}
