#!/usr/bin/env bash
# Checks that need their own Bazel workspaces and environments (run by .ci/run):
#  1. examples/ as a consumer module: `bazel build //...` without CANN builds
#     and skips the CANN-only target;
#  2. building that target explicitly fails with the message that says how
#     to point at CANN;
#  3. with a CANN toolkit found through ASCEND_HOME_PATH (tests/fake_cann, a
#     tree of files), `bazel aquery` of the CANN actions has no absolute path;
#  4. a consumer workspace outside the repository (local_path_override)
#     declares its own kernels and SuperKernel, builds and runs them.
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
cat > "$c/kern/scale.cpp" <<'CPP'
#include "kernel_operator.h"
static inline int32_t helper(int32_t v) { return v * 3; }   // same name as in shift.cpp
extern "C" __global__ __aicore__ void scale(GM_ADDR x, GM_ADDR y) {
    __gm__ const int32_t* in = (__gm__ const int32_t*)x;
    __gm__ int32_t* out = (__gm__ int32_t*)y;
    for (int64_t i = AscendC::GetBlockIdx(); i < 256; i += AscendC::GetBlockNum()) out[i] = helper(in[i]);
}
CPP
cat > "$c/kern/shift.cpp" <<'CPP'
#include "kernel_operator.h"
int32_t helper(int32_t v) { return v + 7; }   // a global helper clashing by name with other kernels
extern "C" __global__ __aicore__ void shift(GM_ADDR x, GM_ADDR y) {
    __gm__ const int32_t* in = (__gm__ const int32_t*)x;
    __gm__ int32_t* out = (__gm__ int32_t*)y;
    for (int64_t i = AscendC::GetBlockIdx(); i < 256; i += AscendC::GetBlockNum()) out[i] = helper(in[i]);
}
CPP
cat > "$c/kern/BUILD.bazel" <<'BLD'
load("@rules_superkernel//rules:defs.bzl", "sk_model_test", "sk_op", "sk_sub_kernel", "super_kernel")
sk_sub_kernel(name = "scale", srcs = ["scale.cpp"], kernel_type = "AIV_ONLY", block_dim = 4, inputs = ["x"], outputs = ["y"])
sk_sub_kernel(name = "shift", srcs = ["shift.cpp"], kernel_type = "AIC_ONLY", block_dim = 2, inputs = ["x"], outputs = ["y"])
sk_op(name = "shift_again", kernel = ":shift", bind = {"x": "t2", "y": "t3"})
super_kernel(name = "fused", ops = [":scale", ":shift", ":shift_again"], options = "split-mode=4")
sk_model_test(name = "compare_test", model = "model.json", kernels = {":scale": "scale", ":shift": "shift"},
              super_kernels = {":fused": "fused"}, repeat = 1)
super_kernel(name = "bad_options", ops = [":scale"], options = "stream-funsion=1", tags = ["manual"])
BLD
cat > "$c/kern/model.json" <<'JSON'
{"name": "consumer",
 "tensors": {"t0": {"dtype": "int32", "shape": [256]}, "t1": {"dtype": "int32", "shape": [256]},
             "t2": {"dtype": "int32", "shape": [256]}, "t3": {"dtype": "int32", "shape": [256]}},
 "kernels": {"scale": {"src": "scale.cpp", "kernel_type": "AIV_ONLY", "block_dim": 4, "inputs": ["x"], "outputs": ["y"]},
             "shift": {"src": "shift.cpp", "kernel_type": "AIC_ONLY", "block_dim": 2, "inputs": ["x"], "outputs": ["y"]}},
 "ops": [{"name": "a", "kernel": "scale", "bind": {"x": "t0", "y": "t1"}},
         {"name": "b", "kernel": "shift", "bind": {"x": "t1", "y": "t2"}},
         {"name": "c", "kernel": "shift", "bind": {"x": "t2", "y": "t3"}}],
 "super_kernels": [{"name": "fused", "ops": ["a", "b", "c"], "options": "split-mode=4"}]}
JSON
c_root=$work/out_consumer
roots+=("$c_root")
# Bazel's sandbox mounts an empty /tmp (hermetic tmp); a local_path_override
# into /tmp (a CI clone) must be mounted explicitly to stay visible.
printf 'build --sandbox_add_mount_pair=%s\n' "$repo" >> "$c/.bazelrc"
(cd "$c" && env -u ASCEND_HOME_PATH "$bazel" --output_user_root="$c_root" build //kern:fused > "$work/4.log" 2>&1) \
  || { cat "$work/4.log" >&2; fail "consumer workspace: build //kern:fused"; }
[ -s "$c/bazel-bin/kern/fused.o" ] && [ -s "$c/bazel-bin/kern/fused.json" ] || fail "consumer workspace: fused.o / fused.json missing"
(cd "$c" && env -u ASCEND_HOME_PATH "$bazel" --output_user_root="$c_root" test //kern:compare_test > "$work/5.log" 2>&1) \
  || { cat "$work/5.log" >&2; cat "$c"/bazel-testlogs/kern/compare_test/test.log >&2 2>/dev/null; fail "consumer workspace: fused run differs or failed"; }
grep -h "outputs identical" "$c"/bazel-testlogs/kern/compare_test/test.log
if (cd "$c" && env -u ASCEND_HOME_PATH "$bazel" --output_user_root="$c_root" build //kern:bad_options > "$work/7.log" 2>&1); then
  fail "consumer workspace: a misspelt option built"
fi
grep -q "//kern:bad_options" "$work/7.log" && grep -q "did you mean 'stream-fusion'" "$work/7.log" \
  || { cat "$work/7.log" >&2; fail "consumer workspace: the misspelt option's error names neither the target nor the fix"; }
grep -h "stream-funsion" "$work/7.log" | head -1
pass "consumer workspace: a misspelt option fails the build naming the target, the option and the fix"
pass "consumer workspace (local_path_override): own kernels with clashing helpers fused, run, bit-exact"

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
  cp "$c/kern/scale.cpp" "$w/kern/"
  cat > "$w/kern/BUILD.bazel" <<'BLD'
load("@rules_superkernel//rules:defs.bzl", "sk_sub_kernel", "super_kernel")
sk_sub_kernel(name = "scale", srcs = ["scale.cpp"], kernel_type = "AIV_ONLY", block_dim = 4, inputs = ["x"], outputs = ["y"])
super_kernel(name = "fused", ops = [":scale"])
BLD
  w_root=$work/out_workspace_mode
  roots+=("$w_root")
  (cd "$w" && env -u ASCEND_HOME_PATH "$bazel" --output_user_root="$w_root" build //kern:fused > "$work/6.log" 2>&1) \
    || { cat "$work/6.log" >&2; fail "WORKSPACE mode: build //kern:fused"; }
  [ -s "$w/bazel-bin/kern/fused.o" ] || fail "WORKSPACE mode: fused.o missing"
  pass "WORKSPACE mode: rules_superkernel_dependencies() + rules_superkernel_register_toolchains() build a SuperKernel"
fi
