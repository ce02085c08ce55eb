// Launches SuperKernels through their generated headers on the CPU twin and
// checks every output bit for bit against the same ops launched one by one
// (LaunchUnfused: each op's own kernel), then checks that bad arguments are
// refused with the op and parameter named, and that nothing runs then.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memory>
#include <string>
#include <vector>

#include "kernels/scale_add_tiling.h"
#include "split_scope_launch.h"
#include "tiled_launch.h"
#include "tiled_split2_launch.h"

namespace {

constexpr int kN = 10240;  // 40 blocks x 256 elements, as the kernels are tiled

int failures = 0;

void Expect(bool ok, const std::string& what) {
  if (!ok) {
    fprintf(stderr, "FAIL: %s\n", what.c_str());
    ++failures;
  }
}

// Device memory stand-in: on the CPU twin GM is host memory.
struct Buffer {
  explicit Buffer(size_t bytes) : bytes(bytes), data(static_cast<unsigned char*>(aligned_alloc(512, Round(bytes)))) {
    memset(data, 0, Round(bytes));
  }
  ~Buffer() { free(data); }
  static size_t Round(size_t n) { return (n + 511) / 512 * 512; }
  float* f() { return reinterpret_cast<float*>(data); }
  std::vector<unsigned char> Bytes() const { return std::vector<unsigned char>(data, data + bytes); }
  size_t bytes;
  unsigned char* data;
};

// Every tensor a SuperKernel of this package touches, filled the same way before each run.
struct Tensors {
  Buffer x{kN * 4}, y{kN * 4}, h{kN * 4}, out{kN * 4}, res{kN * 4}, h2{kN * 4}, out2{kN * 4};
  Buffer tiling{sizeof(ScaleAddTiling)};
  std::unique_ptr<Buffer> workspace;

  explicit Tensors(uint64_t workspace_bytes) : workspace(new Buffer(workspace_bytes ? workspace_bytes : 1)) {}

  void Fill() {
    for (int i = 0; i < kN; ++i) {
      x.f()[i] = static_cast<float>((i * 7919) % 1000) / 8.0f;
      y.f()[i] = static_cast<float>((i * 104729) % 997) / 16.0f;
    }
    for (Buffer* b : {&h, &out, &res, &h2, &out2}) memset(b->data, 0xA5, b->bytes);  // sentinel
    const ScaleAddTiling t = {kN, 1.5f};
    memcpy(tiling.data, &t, sizeof t);
    memset(workspace->data, 0, workspace->bytes);
  }
  std::vector<std::vector<unsigned char>> Outputs() const {
    return {h.Bytes(), out.Bytes(), res.Bytes(), h2.Bytes(), out2.Bytes()};
  }
};

// Runs `launch` and `unfused` on freshly filled tensors; every output must be identical.
template <typename Args, typename F, typename G>
void CompareFusedWithUnfused(const char* name, Tensors& t, const Args& args, F launch, G unfused) {
  t.Fill();
  sk_launch::Status s = launch(args, nullptr);
  Expect(s.ok(), std::string(name) + ": Launch: " + s.error);
  const auto fused = t.Outputs();
  t.Fill();
  s = unfused(args, nullptr);
  Expect(s.ok(), std::string(name) + ": LaunchUnfused: " + s.error);
  const auto reference = t.Outputs();
  Expect(fused == reference, std::string(name) + ": fused outputs differ from the unfused launches");
  std::vector<unsigned char> untouched(kN * 4, 0xA5);
  Expect(fused[0] != untouched, std::string(name) + ": the launch wrote nothing");
  printf("%s: fused == unfused, bit-exact\n", name);
}

void ExpectRefused(const sk_launch::Status& s, const std::vector<std::string>& words, const Tensors& t,
                   const std::string& what) {
  Expect(s.code == sk_launch::kBadArgument, what + ": not refused (code " + std::to_string(s.code) + ")");
  for (const std::string& w : words) {
    Expect(s.error.find(w) != std::string::npos, what + ": error does not name '" + w + "': " + s.error);
  }
  std::vector<unsigned char> untouched(kN * 4, 0xA5);
  Expect(t.h.Bytes() == untouched, what + ": something ran although the arguments were refused");
  printf("%s: refused: %s\n", what.c_str(), s.error.c_str());
}

// tiled and tiled_split2 fuse the same ops: their Args have the same fields (named after BUILD).
template <typename Args>
Args ChainArgs(Tensors& t, uint64_t workspace_bytes) {
  Args a;
  a.x = t.x.data;
  a.y = t.y.data;
  a.h = t.h.data;
  a.out = t.out.data;
  a.res = t.res.data;
  a.scale_tiling = t.tiling.data;
  a.scale_tiling_bytes = sizeof(ScaleAddTiling);
  a.rescale_tiling = t.tiling.data;
  a.rescale_tiling_bytes = sizeof(ScaleAddTiling);
  a.workspace = t.workspace->data;
  a.workspace_bytes = workspace_bytes;
  return a;
}

}  // namespace

int main() {
  {
    Tensors t(tiled::kWorkspaceBytes);
    tiled::Args a = ChainArgs<tiled::Args>(t, tiled::kWorkspaceBytes);
    static_assert(tiled::kMinTilingBytes_scale == sizeof(ScaleAddTiling), "tiling_size in BUILD");
    Expect(tiled::kWorkspaceBytes > 512, "tiled has a workspace of its own (feed-sync-all) and the ops'");
    CompareFusedWithUnfused("tiled", t, a, tiled::Launch, tiled::LaunchUnfused);

    // Refusals: nothing may run.
    t.Fill();
    tiled::Args bad = a;
    bad.out = nullptr;
    ExpectRefused(tiled::Launch(bad), {"op add", "parameter z", "out", "null"}, t, "null tensor");
    bad = a;
    bad.rescale_tiling_bytes = 4;
    ExpectRefused(tiled::Launch(bad), {"op rescale", "parameter tiling", "8 bytes"}, t, "short tiling");
    bad = a;
    bad.workspace_bytes = tiled::kWorkspaceBytes - 1;
    ExpectRefused(tiled::Launch(bad), {"op rescale", "parameter workspace"}, t, "short workspace");
    bad = a;
    bad.workspace_bytes = 16;
    ExpectRefused(tiled::Launch(bad), {"SuperKernel's own workspace", "parameter workspace"}, t,
                  "workspace below the kernel JSON's");
  }
  {
    Tensors t(tiled_split2::kWorkspaceBytes);
    tiled_split2::Args a = ChainArgs<tiled_split2::Args>(t, tiled_split2::kWorkspaceBytes);
    CompareFusedWithUnfused("tiled_split2", t, a, tiled_split2::Launch, tiled_split2::LaunchUnfused);
  }
  {
    Tensors t(split_scope::kWorkspaceBytes);
    static_assert(split_scope::kLaunchCount == 3, "two fused pieces and the op between them");
    static_assert(!split_scope::kLaunches[1].fused, "scale_alone runs on its own");
    split_scope::Args a;
    a.x = t.x.data;
    a.y = t.y.data;
    a.h = t.h.data;
    a.out = t.out.data;
    a.h2 = t.h2.data;
    a.out2 = t.out2.data;
    a.scale_tiling = t.tiling.data;
    a.scale_tiling_bytes = sizeof(ScaleAddTiling);
    a.scale_alone_tiling = t.tiling.data;
    a.scale_alone_tiling_bytes = sizeof(ScaleAddTiling);
    a.workspace = t.workspace->data;
    a.workspace_bytes = split_scope::kWorkspaceBytes;
    CompareFusedWithUnfused("split_scope", t, a, split_scope::Launch, split_scope::LaunchUnfused);
  }
  if (failures) {
    fprintf(stderr, "%d failure(s)\n", failures);
    return 1;
  }
  return 0;
}
