#!/usr/bin/env bash
# Checks that need their own Bazel workspaces and environments (run by .ci/run):
#  1. examples/ as a consumer module: `bazel build //...` without CANN builds
#     and skips the CANN-only target;
#  2. building that target explicitly fails with the message that says how
#     to point at CANN;
#  3. with a CANN toolkit found through ASCEND_HOME_PATH (tests/fake_cann, a
#     tree of files), `bazel aquery` of the CANN actions has no absolute path;
#  4. a consumer workspace outside the repository (local_path_override)
#     declares its own kernels (workspace + tiling parameters) and
#     SuperKernels in BUILD only, plus a tensors/tiling data file; runs them
#     bit-exact; data files contradicting BUILD fail naming the field;
#  6. the sk tool's Python stays private: consumers with their own rules_python
#     and py_binary, in both bazel_dep orders (below);
#  5. WORKSPACE mode (last: it needs the provisioned Bazel's rule sets).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
bazel=$repo/tools/bazel
work=$(mktemp -d)
roots=()
cleanup() {
  for r in "${roots[@]}"; do "$bazel" --output_user_root="$r" shutdown >/dev/null 2>&1 || true; done
  chmod -R u+w "$work" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
pass() { printf 'PASS %s\n' "$*"; }
fail() { printf 'FAIL %s\n' "$*" >&2; exit 1; }

ex_root=$work/out_examples
roots+=("$ex_root")
exb() { (cd "$repo/examples" && env -u ASCEND_HOME_PATH -u ASCEND_TOOLKIT_HOME "$bazel" --output_user_root="$ex_root" "$@"); }

# 1. //... without CANN
if ! exb build //... > "$work/1.log" 2>&1; then cat "$work/1.log" >&2; fail "examples: bazel build //... without CANN"; fi
pass "examples: bazel build //... without CANN (CANN-only targets skipped)"

# 2. explicit CANN target
if exb build //model:sk1_cann > "$work/2.log" 2>&1; then fail "examples: //model:sk1_cann built without CANN"; fi
grep -q 'CANN_not_found__set_ASCEND_HOME_PATH_or_cann_toolkit_path__or_use_mode_host' "$work/2.log" \
  || { cat "$work/2.log" >&2; fail "examples: //model:sk1_cann failed without the advertised message"; }
pass "examples: explicit //model:sk1_cann fails naming ASCEND_HOME_PATH / cann.toolkit(path) / mode=host"

# 3. aquery with a CANN toolkit found through ASCEND_HOME_PATH
(cd "$repo/examples" && ASCEND_HOME_PATH=$repo/tests/fake_cann "$bazel" --output_user_root="$ex_root" \
   aquery --output=jsonproto 'mnemonic("Sk.*", deps(//model:sk1_cann))' > "$work/3.json" 2> "$work/3.log") \
  || { cat "$work/3.log" >&2; fail "aquery with ASCEND_HOME_PATH=tests/fake_cann"; }
python3 - "$work/3.json" <<'PY' || fail "aquery: CANN actions"
import json, sys
doc = json.load(open(sys.argv[1]))
actions = doc.get("actions", [])
cann = [a for a in actions if any("bisheng" in x or "ld.lld" in x for x in a.get("arguments", []))]
bad = [(a["mnemonic"], x) for a in actions for x in a.get("arguments", []) if x.startswith("/")]
print(f"aquery: {len(actions)} Sk actions, {len(cann)} with CANN tools, {len(bad)} absolute argv items")
if not cann:
    sys.exit("no action uses the CANN tools: the CANN toolchain was not selected")
if bad:
    sys.exit(f"absolute paths in argv: {bad[:5]}")
# Every action of the sk tool may run in its persistent worker (JSON protocol, param file).
sk_actions = [a for a in actions if a["mnemonic"] != "SkTwinLib"]
required = {("supports-workers", "1"), ("requires-worker-protocol", "json")}
no_worker = [a["mnemonic"] for a in sk_actions
             if not required <= {(i["key"], i["value"]) for i in a.get("executionInfo", [])}]
if no_worker or not sk_actions:
    sys.exit(f"sk actions without the persistent-worker requirements: {sorted(set(no_worker))}")
print(f"aquery: {len(sk_actions)} sk actions may run in sk's persistent worker")
PY
pass "aquery: CANN actions carry no absolute path; sk actions are worker-ready"

# 4. a consumer workspace of its own
c=$work/consumer
mkdir -p "$c/kern"
cat > "$c/MODULE.bazel" <<MOD
module(name = "consumer")
bazel_dep(name = "rules_superkernel", version = "0.1.0")
local_path_override(module_name = "rules_superkernel", path = "$repo")
MOD
cp "$repo/examples/.bazelrc" "$c/.bazelrc"
cp "$repo/.bazelversion" "$c/.bazelversion"
# Kernels of the ordinary Ascend C shape (..., workspace, tiling), declared in BUILD only:
# a global helper() defined differently in two kernels, a 4-block kernel calling SyncAll
# fused after a 16-block one (feed-sync-all=1), a MIX_AIC_1_2 kernel fused with a vector
# kernel under split-mode=2. The data file holds only tensors and tiling values.
cat > "$c/kern/prep.cpp" <<'CPP'
// y[i] = helper(x[(i + tile) % n]) + tiling.add, 16 blocks; each block reads the next block's tile.
#include "kernel_operator.h"
struct PrepTiling { int32_t n; int32_t add; };
__aicore__ int32_t helper(int32_t v) { return v * 3; }   // mixk.cpp defines another helper()
extern "C" __global__ __aicore__ void prep(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    const PrepTiling t = *(__gm__ const PrepTiling*)tiling;
    __gm__ const int32_t* in = (__gm__ const int32_t*)x;
    __gm__ int32_t* out = (__gm__ int32_t*)y;
    __gm__ int32_t* scratch = (__gm__ int32_t*)workspace;
    const int64_t tile = t.n / AscendC::GetBlockNum();
    const int64_t b = AscendC::GetBlockIdx();
    for (int64_t i = b * tile; i < (b + 1) * tile; ++i) scratch[i] = helper(in[(i + tile) % t.n]);
    for (int64_t i = b * tile; i < (b + 1) * tile; ++i) out[i] = scratch[i] + t.add;
}
CPP
cat > "$c/kern/gsum.cpp" <<'CPP'
// MIX_AIV_1_0 on 4 blocks: partial sums, SyncAll, then every block writes total + b * tiling.step.
#include "kernel_operator.h"
struct GsumTiling { int32_t n; int32_t step; };
extern "C" __global__ __aicore__ void gsum(GM_ADDR x, GM_ADDR partial, GM_ADDR out, GM_ADDR workspace,
                                           GM_ADDR tiling) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0);
    const GsumTiling t = *(__gm__ const GsumTiling*)tiling;
    __gm__ const int32_t* in = (__gm__ const int32_t*)x;
    __gm__ int32_t* p = (__gm__ int32_t*)partial;
    __gm__ int32_t* y = (__gm__ int32_t*)out;
    const int64_t b = AscendC::GetBlockIdx();
    const int64_t part = t.n / AscendC::GetBlockNum();
    int32_t sum = 0;
    for (int64_t i = b * part; i < (b + 1) * part; ++i) sum += in[i];
    p[b] = sum;
    AscendC::SyncAll<true>();
    int32_t total = 0;
    for (int64_t k = 0; k < AscendC::GetBlockNum(); ++k) total += p[k];
    y[b] = total + (int32_t)b * t.step;
}
CPP
cat > "$c/kern/mixk.cpp" <<'CPP'
// MIX_AIC_1_2 on 4 blocks: the cube of block b fills the first half of its 256 elements,
// its two vector workers a quarter each; both read one block further on.
#include "kernel_operator.h"
struct MixTiling { int32_t n; int32_t mul; };
__aicore__ int32_t helper(int32_t v) { return v - 11; }   // prep.cpp defines another helper()
extern "C" __global__ __aicore__ void mixk(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
    const MixTiling t = *(__gm__ const MixTiling*)tiling;
    __gm__ const int32_t* in = (__gm__ const int32_t*)x;
    __gm__ int32_t* out = (__gm__ int32_t*)y;
    const int64_t span = t.n / 4;
    if ASCEND_IS_AIC {
        const int64_t base = get_block_idx() * span;
        for (int64_t i = base; i < base + span / 2; ++i) out[i] = in[(i + span) % t.n] * t.mul;
    }
    if ASCEND_IS_AIV {
        const int64_t base = AscendC::GetBlockIdx() / 2 * span + span / 2 + AscendC::GetSubBlockIdx() * (span / 4);
        for (int64_t i = base; i < base + span / 4; ++i) out[i] = helper(in[(i + span) % t.n]);
    }
}
CPP
cat > "$c/kern/vshift.cpp" <<'CPP'
// y[i] = x[(i + tile) % n] + tiling.shift on 8 vector blocks, through the workspace.
#include "kernel_operator.h"
struct ShiftTiling { int32_t n; int32_t shift; };
extern "C" __global__ __aicore__ void vshift(GM_ADDR x, GM_ADDR y, GM_ADDR workspace, GM_ADDR tiling) {
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    const ShiftTiling t = *(__gm__ const ShiftTiling*)tiling;
    __gm__ const int32_t* in = (__gm__ const int32_t*)x;
    __gm__ int32_t* out = (__gm__ int32_t*)y;
    __gm__ int32_t* scratch = (__gm__ int32_t*)workspace;
    const int64_t tile = t.n / AscendC::GetBlockNum();
    const int64_t b = AscendC::GetBlockIdx();
    for (int64_t i = b * tile; i < (b + 1) * tile; ++i) scratch[i] = in[(i + tile) % t.n] + t.shift;
    for (int64_t i = b * tile; i < (b + 1) * tile; ++i) out[i] = scratch[i];
}
CPP
cat > "$c/kern/BUILD.bazel" <<'BLD'
load("@rules_superkernel//rules:defs.bzl", "sk_model_test", "sk_op", "sk_sub_kernel", "super_kernel")
sk_sub_kernel(name = "prep_k", srcs = ["prep.cpp"], entry = "prep", kernel_type = "AIV_ONLY", block_dim = 16,
              inputs = ["x"], outputs = ["y"], workspace = 4096, tiling = True)
sk_sub_kernel(name = "gsum_k", srcs = ["gsum.cpp"], entry = "gsum", kernel_type = "MIX_AIV_1_0", block_dim = 4,
              inputs = ["x"], outputs = ["partial", "out"], workspace = 256, tiling = True)
sk_sub_kernel(name = "mixk_k", srcs = ["mixk.cpp"], entry = "mixk", kernel_type = "MIX_AIC_1_2", block_dim = 4,
              inputs = ["x"], outputs = ["y"], workspace = 256, tiling = True)
sk_sub_kernel(name = "vshift_k", srcs = ["vshift.cpp"], entry = "vshift", kernel_type = "AIV_ONLY", block_dim = 8,
              inputs = ["x"], outputs = ["y"], workspace = 4096, tiling = True)
sk_op(name = "prep", kernel = ":prep_k", bind = {"x": "t0", "y": "t1"})
sk_op(name = "gsum", kernel = ":gsum_k", bind = {"x": "t1", "partial": "p", "out": "s"})
sk_op(name = "mixk", kernel = ":mixk_k", bind = {"x": "t1", "y": "t2"})
sk_op(name = "vshift", kernel = ":vshift_k", bind = {"x": "t2", "y": "t3"})
super_kernel(name = "pre", ops = [":prep", ":gsum"], options = "feed-sync-all=1")
super_kernel(name = "mix", ops = [":mixk", ":vshift"], options = "split-mode=2")
sk_model_test(name = "compare_test", ops = [":pre", ":mix"], data = "data.json", repeat = 1)
# The same model with data files that contradict BUILD: each run must fail naming the field.
sk_model_test(name = "bad_binding_test", ops = [":pre", ":mix"], data = "bad_binding.json", repeat = 1, tags = ["manual"])
sk_model_test(name = "bad_option_test", ops = [":pre", ":mix"], data = "bad_option.json", repeat = 1, tags = ["manual"])
super_kernel(name = "bad_options", ops = [":prep"], options = "stream-funsion=1", tags = ["manual"])
# gsum's SyncAll waits for 4 blocks inside a 16-block SuperKernel: without feed-sync-all it would hang.
super_kernel(name = "pre_hangs", ops = [":prep", ":gsum"], tags = ["manual"])
BLD
tensors='"tensors": {"t0": {"dtype": "int32", "shape": [1024]}, "t1": {"dtype": "int32", "shape": [1024]},
             "t2": {"dtype": "int32", "shape": [1024]}, "t3": {"dtype": "int32", "shape": [1024]},
             "p": {"dtype": "int32", "shape": [4]}, "s": {"dtype": "int32", "shape": [4]}}'
op() { printf '{"name": "%s", "tiling": {"dtype": "int32", "values": [1024, %s]}%s}' "$1" "$2" "${3:+, \"bind\": $3}"; }
tiling="$(op prep 5), $(op gsum 3), $(op mixk 2), $(op vshift -4)"
printf '{%s,\n "ops": [%s]}\n' "$tensors" "$tiling" > "$c/kern/data.json"
# Repeats every binding; mixk's x is another tensor than BUILD binds.
printf '{%s,\n "ops": [%s, %s, %s, %s]}\n' "$tensors" "$(op prep 5 '{"x": "t0", "y": "t1"}')" \
  "$(op gsum 3 '{"x": "t1", "partial": "p", "out": "s"}')" "$(op mixk 2 '{"x": "t0", "y": "t2"}')" \
  "$(op vshift -4 '{"x": "t2", "y": "t3"}')" > "$c/kern/bad_binding.json"
printf '{%s,\n "ops": [%s],\n "super_kernels": [{"name": "pre", "options": "feed-sync-all=1"}, {"name": "mix", "options": "split-mode=4"}]}\n' \
  "$tensors" "$tiling" > "$c/kern/bad_option.json"
c_root=$work/out_consumer
roots+=("$c_root")
# Bazel's sandbox mounts an empty /tmp (hermetic tmp); a local_path_override
# into /tmp (a CI clone) must be mounted explicitly to stay visible.
printf 'build --sandbox_add_mount_pair=%s\n' "$repo" >> "$c/.bazelrc"
(cd "$c" && env -u ASCEND_HOME_PATH "$bazel" --output_user_root="$c_root" build //kern:pre //kern:mix > "$work/4.log" 2>&1) \
  || { cat "$work/4.log" >&2; fail "consumer workspace: build //kern:pre //kern:mix"; }
[ -s "$c/bazel-bin/kern/pre.o" ] && [ -s "$c/bazel-bin/kern/mix.json" ] || fail "consumer workspace: pre.o / mix.json missing"
(cd "$c" && env -u ASCEND_HOME_PATH "$bazel" --output_user_root="$c_root" test //kern:compare_test > "$work/5.log" 2>&1) \
  || { cat "$work/5.log" >&2; cat "$c"/bazel-testlogs/kern/compare_test/test.log >&2 2>/dev/null; fail "consumer workspace: fused run differs or failed"; }
grep -h "outputs identical" "$c"/bazel-testlogs/kern/compare_test/test.log
for v in bad_binding:"ops\[2\].bind.x" bad_option:"super_kernels\[1\].options"; do
  name=${v%%:*}; field=${v#*:}
  if (cd "$c" && env -u ASCEND_HOME_PATH "$bazel" --output_user_root="$c_root" test //kern:${name}_test > "$work/6.log" 2>&1); then
    fail "consumer workspace: //kern:${name}_test passed although its data file contradicts BUILD"
  fi
  # The model is merged when it is built (SkModel), so the error is in Bazel's output.
  out="$work/6.log"
  grep -q "$field" "$out" && grep -q "disagree" "$out" \
    || { cat "$out" >&2; fail "consumer workspace: //kern:${name}_test did not name $field"; }
  grep -h "error:" "$out" | grep "disagree" | head -1
done
pass "consumer workspace: a data file contradicting BUILD (a binding, an option) fails naming the field"
if (cd "$c" && env -u ASCEND_HOME_PATH "$bazel" --output_user_root="$c_root" build //kern:bad_options > "$work/7.log" 2>&1); then
  fail "consumer workspace: a misspelt option built"
fi
grep -q "//kern:bad_options" "$work/7.log" && grep -q "did you mean 'stream-fusion'" "$work/7.log" \
  || { cat "$work/7.log" >&2; fail "consumer workspace: the misspelt option's error names neither the target nor the fix"; }
grep -h "stream-funsion" "$work/7.log" | head -1
pass "consumer workspace: a misspelt option fails the build naming the target, the option and the fix"
if (cd "$c" && env -u ASCEND_HOME_PATH "$bazel" --output_user_root="$c_root" build //kern:pre_hangs > "$work/8.log" 2>&1); then
  fail "consumer workspace: a SyncAll op on fewer blocks without feed-sync-all built"
fi
for want in "//kern:pre_hangs" "gsum" "blockDim 4" "block dim 16" "SyncAll" "feed-sync-all=1"; do
  grep -q -- "$want" "$work/8.log" || { cat "$work/8.log" >&2; fail "consumer workspace: the SyncAll hang error does not name '$want'"; }
done
grep -h "error:" "$work/8.log" | grep "SyncAll" | head -1
pass "consumer workspace: a 4-block SyncAll op after a 16-block op without feed-sync-all fails the build naming the op, the block dims and the fix"
# 4b. The same SuperKernels called from the consumer's own C++ (docs/launch.md "Calling a SuperKernel from
# your own program"): a cc_test launches pre and mix through their generated headers on the twin
# and compares them bit for bit with LaunchUnfused; the CANN implementation of mix, linked
# against the recording ACL stand-in, must append exactly the plan's slots.
cat >> "$c/kern/BUILD.bazel" <<'BLD'
load("@rules_superkernel//rules:defs.bzl", "sk_cann_launch_library")
cc_test(name = "launch_test", srcs = ["launch_test.cc"], deps = [":pre", ":mix"])
sk_cann_launch_library(name = "mix_cann", super_kernel = ":mix", acl = "@rules_superkernel//tests:fake_acl")
cc_binary(name = "mix_cann_host", srcs = ["mix_cann_host.cc"], deps = [":mix_cann"])
BLD
cat > "$c/kern/launch_test.cc" <<'CPP'
#include <stdio.h>
#include <string.h>
#include <vector>
#include "kern/mix_launch.h"
#include "kern/pre_launch.h"
struct Tiling { int32_t n; int32_t v; };
std::vector<int32_t> t0(1024), t1(1024), t2(1024), t3(1024), p(4), s(4);
std::vector<unsigned char> ws(pre::kWorkspaceBytes > mix::kWorkspaceBytes ? pre::kWorkspaceBytes : mix::kWorkspaceBytes);
Tiling prep{1024, 5}, gsum{1024, 3}, mixk{1024, 2}, vshift{1024, -4};
void Reset() {
  for (int i = 0; i < 1024; ++i) t0[i] = (i * 37) % 101 - 50;
  for (auto* v : {&t1, &t2, &t3, &p, &s}) memset(v->data(), 0, v->size() * 4);
}
int Run(bool fused) {
  pre::Args a;
  a.t0 = t0.data(); a.t1 = t1.data(); a.p = p.data(); a.s = s.data();
  a.prep_tiling = &prep; a.prep_tiling_bytes = sizeof prep;
  a.gsum_tiling = &gsum; a.gsum_tiling_bytes = sizeof gsum;
  a.workspace = ws.data(); a.workspace_bytes = ws.size();
  mix::Args m;
  m.t1 = t1.data(); m.t2 = t2.data(); m.t3 = t3.data();
  m.mixk_tiling = &mixk; m.mixk_tiling_bytes = sizeof mixk;
  m.vshift_tiling = &vshift; m.vshift_tiling_bytes = sizeof vshift;
  m.workspace = ws.data(); m.workspace_bytes = ws.size();
  sk_launch::Status st = fused ? pre::Launch(a) : pre::LaunchUnfused(a);
  if (st.ok()) st = fused ? mix::Launch(m) : mix::LaunchUnfused(m);
  if (!st.ok()) { fprintf(stderr, "%s\n", st.error.c_str()); return 1; }
  return 0;
}
int main() {
  Reset();
  if (Run(true)) return 1;
  auto f3 = t3; auto fs = s;
  Reset();
  if (Run(false)) return 1;
  if (f3 != t3 || fs != s) { fprintf(stderr, "fused differs from unfused\n"); return 1; }
  pre::Args bad;
  sk_launch::Status st = pre::Launch(bad);
  if (st.code != sk_launch::kBadArgument || st.error.find("op prep, parameter x") == std::string::npos) {
    fprintf(stderr, "null tensor not refused: %s\n", st.error.c_str()); return 1;
  }
  printf("launch API: pre + mix fused == unfused, bit-exact; %s\n", st.error.c_str());
  return 0;
}
CPP
cat > "$c/kern/mix_cann_host.cc" <<'CPP'
#include <stdio.h>
#include "kern/mix_cann_launch.h"
int main() {
  mix::Args a;
  a.t1 = (void*)0x1100; a.t2 = (void*)0x2200; a.t3 = (void*)0x3300;
  a.mixk_tiling = (void*)0x4400; a.mixk_tiling_bytes = 8;
  a.vshift_tiling = (void*)0x5500; a.vshift_tiling_bytes = 8;
  a.workspace = (void*)0x100000; a.workspace_bytes = mix::kWorkspaceBytes;
  sk_launch::Status st = mix::Launch(a, (void*)0x77);
  if (!st.ok()) { fprintf(stderr, "%s\n", st.error.c_str()); return 1; }
  return 0;
}
CPP
(cd "$c" && env -u ASCEND_HOME_PATH "$bazel" --output_user_root="$c_root" test //kern:launch_test --test_output=all > "$work/9.log" 2>&1) \
  || { cat "$work/9.log" >&2; fail "consumer workspace: launch API cc_test"; }
grep -h "launch API:" "$work/9.log" | head -1
(cd "$c" && env -u ASCEND_HOME_PATH "$bazel" --output_user_root="$c_root" build //kern:mix_cann_host //kern:mix --output_groups=+plan > "$work/10.log" 2>&1) \
  || { cat "$work/10.log" >&2; fail "consumer workspace: CANN launch against the recording ACL stand-in"; }
SK_FAKE_ACL_LOG="$work/acl.log" "$c/bazel-bin/kern/mix_cann_host" || fail "consumer workspace: mix_cann_host"
python3 - "$work/acl.log" "$c/bazel-bin/kern/_sk/mix/plan.json" <<'PY' || fail "consumer workspace: recorded ACL slots differ from the plan"
import json, sys
calls = [json.loads(l) for l in open(sys.argv[1])]
plan = json.load(open(sys.argv[2]))
binds = [{"x": 0x1100, "y": 0x2200}, {"x": 0x2200, "y": 0x3300}]
want = [0] * plan["params"]["count"]
want[plan["params"]["ffts_slot"]] = int(next(c for c in calls if c["call"] == "aclrtGetHardwareSyncAddr")["addr"], 16)
for i, op in enumerate(plan["ops"]):
    vals = [binds[i]["x"], binds[i]["y"], None, [0x4400, 0x5500][i]]
    for k, p in enumerate(op["params"]):
        want[p["offset"]] = vals[k]
ws_slots = [p["offset"] for op in plan["ops"] for p in op["params"] if p["name"].startswith("workspace_")]
got = [int(c["value"], 16) for c in calls if c["call"] == "aclrtKernelArgsAppend"]
launch = [c for c in calls if c["call"] == "aclrtLaunchKernelWithConfig"]
fn = [c["kernel"] for c in calls if c["call"] == "aclrtBinaryGetFunction"]
assert fn == ["mix"], fn
assert len(launch) == 1 and launch[0]["blocks"] == plan["block_dim"] and launch[0]["stream"] == "0x77", launch
assert len(got) == len(want), (got, want)
for s in range(len(want)):
    if s in ws_slots:  # each op's workspace: inside the one workspace buffer, 512-aligned, distinct
        assert 0x100000 <= got[s] < 0x100000 + 65536 and got[s] % 512 == 0, (s, hex(got[s]))
    else:
        assert got[s] == want[s], (s, hex(got[s]), hex(want[s]))
assert len({got[s] for s in ws_slots}) == len(ws_slots)
print(f"CANN launch of mix: {len(got)} argument slots as the plan lays them out; {plan['block_dim']} blocks")
PY
pass "consumer workspace: its own cc_test launches pre and mix through the generated headers bit-exact; the CANN variant's recorded ACL slots match the plan"
pass "consumer workspace (local_path_override): own kernels with workspace + tiling, clashing helpers, SyncAll after a wider kernel, MIX_AIC_1_2 + vector under split-mode=2, declared in BUILD only: fused and separate bit-exact"

# fused_package DIR: a package with one sk_sub_kernel (section 4's vshift) and its super_kernel //DIR:fused.
fused_package() {
  mkdir -p "$1"
  cp "$c/kern/vshift.cpp" "$1/"
  cat > "$1/BUILD.bazel" <<'BLD'
load("@rules_superkernel//rules:defs.bzl", "sk_sub_kernel", "super_kernel")
sk_sub_kernel(name = "vshift", srcs = ["vshift.cpp"], kernel_type = "AIV_ONLY", block_dim = 8, inputs = ["x"],
              outputs = ["y"], workspace = 4096, tiling = True)
super_kernel(name = "fused", ops = [":vshift"])
BLD
}

# 6. The sk tool's Python is private to rules_superkernel. A consumer with its own
#    rules_python and py_binary, in both bazel_dep orders, and with its own
#    interpreter registered or with rules_python's autodetecting one: its
#    py_binary runs on its interpreter, the SuperKernel builds with sk on the
#    interpreter SK_PYTHON names (Python 3.9 from tools/python3.9, so this also
#    builds a SuperKernel with sk on the oldest supported Python), and no test
#    wheel is fetched for it.
py39=$("$repo/tools/python3.9" -c 'import sys; print(sys.executable)')
case "$py39" in /tmp/*) fail "python isolation: tools/python3.9 lives under /tmp, which Bazel's sandbox hides";; esac
iso_root=$work/out_isolation
roots+=("$iso_root")
host_py=$(PATH=/bin:/usr/bin:/usr/local/bin command -v python3)
host_version=$("$host_py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
[ "$host_version" != 3.9 ] || fail "python isolation: the host python3 is 3.9 too, so the check could not tell the interpreters apart"
for order in rules_python_first rules_superkernel_first; do
  for own in registered autodetect; do
    d=$work/iso_${order}_${own}
    mkdir -p "$d/kern" "$d/app" "$d/py"
    dep_python='bazel_dep(name = "rules_python", version = "0.22.1")'
    dep_sk="bazel_dep(name = \"rules_superkernel\", version = \"0.1.0\")
local_path_override(module_name = \"rules_superkernel\", path = \"$repo\")"
    {
      echo 'module(name = "py_consumer")'
      if [ "$order" = rules_python_first ]; then echo "$dep_python"; echo "$dep_sk"; else echo "$dep_sk"; echo "$dep_python"; fi
      [ "$own" = registered ] && echo 'register_toolchains("//py:toolchain")'
    } > "$d/MODULE.bazel"
    cp "$repo/examples/.bazelrc" "$d/.bazelrc"
    cp "$repo/.bazelversion" "$d/"
    # One disk cache for the four variants: the same actions, built once.
    printf 'build --sandbox_add_mount_pair=%s\nbuild --repo_env=SK_PYTHON=%s\nbuild --disk_cache=%s\n' \
      "$repo" "$py39" "$work/iso_disk_cache" >> "$d/.bazelrc"
    fused_package "$d/kern"
    # The consumer's interpreter: marks what it runs and refuses rules_superkernel's programs.
    cat > "$d/py/consumer_python.sh" <<SH
#!/bin/sh
for a in "\$@"; do
  case "\$a" in *sk/__main__.py|*pycompile.py) echo "consumer_python: rules_superkernel's \$a ran on the consumer's interpreter" >&2; exit 97 ;; esac
done
CONSUMER_PYTHON=1 exec $host_py "\$@"
SH
    chmod +x "$d/py/consumer_python.sh"
    cat > "$d/py/BUILD.bazel" <<'BLD'
load("@rules_python//python:defs.bzl", "py_runtime", "py_runtime_pair")
py_runtime(name = "runtime", interpreter = "consumer_python.sh", python_version = "PY3")
py_runtime_pair(name = "pair", py3_runtime = ":runtime")
toolchain(name = "toolchain", toolchain = ":pair", toolchain_type = "@bazel_tools//tools/python:toolchain_type")
BLD
    cat > "$d/app/hello.py" <<'PY'
import json, os, sys
print("CONSUMER_APP " + json.dumps({"version": "%d.%d" % sys.version_info[:2], "executable": sys.executable,
                                    "marked": os.environ.get("CONSUMER_PYTHON") == "1"}))
PY
    cat > "$d/app/BUILD.bazel" <<'BLD'
load("@rules_python//python:defs.bzl", "py_binary")
py_binary(name = "hello", srcs = ["hello.py"])
BLD
    what="python isolation ($order, consumer interpreter $own)"
    (cd "$d" && env -u ASCEND_HOME_PATH "$bazel" --output_user_root="$iso_root" build //kern:fused //app:hello > "$work/iso.log" 2>&1) \
      || { cat "$work/iso.log" >&2; fail "$what: build //kern:fused //app:hello"; }
    [ -s "$d/bazel-bin/kern/fused.o" ] || fail "$what: fused.o missing"
    out=$(cd "$d" && env -u ASCEND_HOME_PATH "$bazel" --output_user_root="$iso_root" run //app:hello 2> "$work/iso_run.log" | grep '^CONSUMER_APP ') \
      || { cat "$work/iso_run.log" >&2; fail "$what: bazel run //app:hello"; }
    python3 - "$out" "$own" "$host_version" <<'PY' || fail "$what: the consumer's py_binary did not run on the consumer's interpreter"
import json, sys
seen = json.loads(sys.argv[1].split(" ", 1)[1])
own, host_version = sys.argv[2], sys.argv[3]
print(f"  consumer py_binary: Python {seen['version']}, consumer's wrapper: {seen['marked']}")
if own == "registered" and not seen["marked"]:
    sys.exit("the consumer's registered interpreter was not used")
if own == "autodetect" and (seen["marked"] or seen["version"] != host_version):
    sys.exit(f"expected rules_python's autodetected python3 ({host_version}), got {seen}")
PY
    # sk ran on SK_PYTHON's 3.9: its bytecode (//sk:sk_bytecode, made by the same interpreter
    # in the exec configuration) is cpython-39 and nothing else.
    ob=$(cd "$d" && "$bazel" --output_user_root="$iso_root" info output_base 2>/dev/null)
    pycs=$(find "$ob/execroot" -path '*/external/rules_superkernel*/sk/__pycache__/__main__.cpython-*.pyc' 2>/dev/null | sed 's/.*__main__\.//' | sort -u | tr '\n' ' ')
    [ "$pycs" = "cpython-39.pyc " ] || fail "$what: sk's bytecode is '$pycs', not Python 3.9's"
    grep -q '3.9' "$ob"/external/rules_superkernel*sk_python_interpreter/python_version.txt \
      || fail "$what: @sk_python_interpreter is not SK_PYTHON's 3.9"
    if find "$ob/external" -maxdepth 3 \( -name 'pytest' -o -name 'hypothesis' -o -name 'elftools' -o -name '*dev_pypi*' \) | grep -q .; then
      find "$ob/external" -maxdepth 3 \( -name 'pytest' -o -name 'hypothesis' -o -name 'elftools' -o -name '*dev_pypi*' \) >&2
      fail "$what: the test wheels were fetched for a consumer"
    fi
    (cd "$d" && "$bazel" --output_user_root="$iso_root" shutdown > /dev/null 2>&1) || true
    pass "$what: SuperKernel built with sk on Python 3.9, the consumer's py_binary on its own interpreter, no test wheels"
  done
done

# 5. WORKSPACE mode: the same toolchains through rules_superkernel's macros.
# Offline, the rule sets come from the Debian modules tools/bazel provisioned.
rc=${SK_BAZEL_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/rules_superkernel/bazel-7}/etc/bazelrc
share=$(sed -n 's/^common --override_module=rules_python=\(.*\)\/rules\/python$/\1/p' "$rc" 2>/dev/null || true)
if [ -z "$share" ]; then
  printf 'SKIP WORKSPACE mode: needs the rule sets of the Bazel that tools/bazel provisions (%s not found)\n' "$rc"
else
  w=$work/workspace_mode
  mkdir -p "$w/kern"
  {
    echo 'workspace(name = "ws_consumer")'
    echo "local_repository(name = \"rules_superkernel\", path = \"$repo\")"
    for pair in bazel_skylib=tools/skylib platforms=tools/platforms bazel_features=tools/features rules_cc=rules/cc \
                rules_java=rules/java rules_python=rules/python rules_license=rules/license rules_proto=rules/proto; do
      echo "local_repository(name = \"${pair%%=*}\", path = \"$share/${pair#*=}\")"
    done
    echo 'load("@rules_superkernel//toolchain:repositories.bzl", "rules_superkernel_dependencies", "rules_superkernel_register_toolchains")'
    echo 'rules_superkernel_dependencies()'
    echo 'rules_superkernel_register_toolchains()'
  } > "$w/WORKSPACE"
  printf 'common --noenable_bzlmod\ncommon --enable_workspace\nbuild --incompatible_strict_action_env\nbuild --sandbox_add_mount_pair=%s\nbuild --sandbox_add_mount_pair=%s\n' "$repo" "$share" > "$w/.bazelrc"
  cp "$repo/.bazelversion" "$w/"
  fused_package "$w/kern"
  w_root=$work/out_workspace_mode
  roots+=("$w_root")
  (cd "$w" && env -u ASCEND_HOME_PATH "$bazel" --output_user_root="$w_root" build //kern:fused > "$work/6.log" 2>&1) \
    || { cat "$work/6.log" >&2; fail "WORKSPACE mode: build //kern:fused"; }
  [ -s "$w/bazel-bin/kern/fused.o" ] || fail "WORKSPACE mode: fused.o missing"
  pass "WORKSPACE mode: rules_superkernel_dependencies() + rules_superkernel_register_toolchains() build a SuperKernel"
fi
