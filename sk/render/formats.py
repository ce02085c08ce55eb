"""The fields of the files sk writes for users to read, as tables: the plan (`plan` output group),
the kernel JSON, the fusion report, the launch header and the fake ACL's log lines.

docs/formats.md is rendered from these tables (tools/docgen/formats.py, checked by
//docs:formats_doc_test), and sk/tests/test_formats.py checks each table against what the tools
actually write, so neither the page nor the table can drift from the code. The sk_model data file,
which sk reads, has its table beside its reader (sk/twin/datafile.py).
"""

from __future__ import annotations

from collections import namedtuple

# name: the key (a path below the section); type: JSON type; when: "always" or when it is present;
# doc: what it holds.
Field = namedtuple("Field", "name type when doc")

ALWAYS = "always"

# ------------------------------------------------------------------------------------------- plan
# `bazel build //pkg:sk --output_groups=plan` -> _sk/<name>/plan.json (`sk gen --plan-out`).
PLAN = (
    Field("schema_version", "integer", ALWAYS, "1"),
    Field("kernel_name", "string", ALWAYS, "the SuperKernel's name (binFileName / kernelName of the kernel JSON)"),
    Field("entry_function", "string", ALWAYS, "`auto_gen_<name>_kernel`, the generated global function"),
    Field("entries", "list of objects", ALWAYS,
          "one compile of the generated source per core side: `{arch: \"cube\"|\"vec\", symbol: "
          "\"<name>_mix_aic\"|\"<name>_mix_aiv\", define: \"-Dauto_gen_<name>_kernel=<symbol>\", "
          "object: \"<symbol>.o\"}`"),
    Field("soc", "object", ALWAYS,
          "`{soc, short_soc, chip, npu_arch, ai_core_cnt, vector_core_cnt, has_ffts}` of the SoC it was planned for"),
    Field("options", "object", ALWAYS, "every option, normalised, `{name: value}` (`python -m sk options`)"),
    Field("warnings", "list of strings", ALWAYS, "the planner's warnings (also printed by the build)"),
    Field("kernel_type", "string", ALWAYS, "the SuperKernel's kernel type, e.g. `KERNEL_TYPE_MIX_AIC_1_2`"),
    Field("task_ration", "string", ALWAYS, "cube:vector cores per block: `1:0`, `0:1`, `1:1` or `1:2`"),
    Field("block_dim", "integer", ALWAYS, "blocks the fused kernel is launched with"),
    Field("mode", "string", ALWAYS, "`single_stream` or `two_stream` (facts §14.1)"),
    Field("early_start", "integer", ALWAYS, "the early-start mode in effect: 0, 1 or 2"),
    Field("split_mode", "integer", ALWAYS, "copies of each sub-kernel the cores are spread over"),
    Field("func_align", "integer", ALWAYS, "alignment of the entry (the `func-align` option)"),
    Field("preload_code", "string", ALWAYS, "`per-func` or `max`"),
    Field("compile_options", "list of strings", ALWAYS,
          "flags of the generated source's compile (defines, dump, `compile-options`, long-call flags)"),
    Field("params", "object", ALWAYS, "the argument array of the fused launch, below"),
    Field("ops", "list of objects", ALWAYS, "one record per op, in fusion order, below"),
    Field("events", "list of objects", ALWAYS,
          "`{id, senders: [op index], receivers: [op index], inner}` per event id an op sends or receives"),
    Field("sync_edges", "list of objects", ALWAYS,
          "two streams: the per-op sync parts kept after pruning, `{from: op, to: op, kind}`; else empty"),
    Field("barriers", "list of objects", ALWAYS,
          "`{between: [i, j], kind, reason}` per pair of consecutive ops; kinds `early_start`, `sync_all`, "
          "`pipe_all`, `aic_ffts`, `aiv_ffts`, `c2v_ffts`, `v2c_ffts`, with sync-elision also `elided` and "
          "`aic_aiv_ffts`"),
    Field("link_order", "list of objects", ALWAYS,
          "the objects `sk link` links, in upstream's order: `{kind: \"sk_entry\"|\"sub\", arch, op, object, "
          "symbol, split, derived_from}`"),
    Field("code", "object", ALWAYS, "the step tree the templates render (sk/engine/plan/__init__.py); not an interface"),
)

# The `params` record: where the launch's argument array (param_base) puts what.
PLAN_PARAMS = (
    Field("ffts_slot", "integer or null", ALWAYS,
          "0 where the SoC has an FFTS base address (c220: slot 0 holds it, from `aclrtGetHardwareSyncAddr`); "
          "null on c310"),
    Field("count", "integer", ALWAYS,
          "slots the ops use, the FFTS slot included: the ops' parameters, dynamic words and event words. "
          "It leaves out the SuperKernel's own slots after them (`workspace_index`, `profiling_index`, "
          "`task_id_index`), which exist only with the options that need them: the array has `count` slots, "
          "plus one for each of those that is not null"),
    Field("workspace_index", "integer or null", ALWAYS,
          "the slot of the SuperKernel's own workspace (feed-sync-all or dump), right after `count`; "
          "null when it has none"),
    Field("workspace_size", "integer", ALWAYS,
          "bytes of the SuperKernel's own workspace (feed-sync-all configuration words); 0 when none. "
          "The launch API's workspace holds it at offset 0, then each op's at the next multiple of 512"),
    Field("dump", "boolean", ALWAYS, "whether an op dumps (the workspace then holds the dump area too)"),
    Field("dump_offset", "integer or null", ALWAYS, "where the dump area starts in the SuperKernel's workspace"),
    Field("profiling_index", "integer or null", ALWAYS, "the profiling pointer's slot (`profiling=1`)"),
    Field("task_id_index", "integer or null", ALWAYS, "the task id's slot (`profiling=1`)"),
)

# One record of `ops`.
PLAN_OP = (
    Field("index", "integer", ALWAYS, "the op's position in the SuperKernel, from 0"),
    Field("kernel_name", "string", ALWAYS, "the sub-kernel's kernelName (its sub-op JSON's)"),
    Field("kernel_type", "string", ALWAYS, "its kernel type, e.g. `KERNEL_TYPE_AIV_ONLY`"),
    Field("task_type", "string", ALWAYS, "`normal`, or `dynamic` for a tiling-sink op"),
    Field("block_dim", "integer", ALWAYS, "its own block_dim"),
    Field("cores", "object", ALWAYS, "`{aic, aiv}`: cores of each side it uses"),
    Field("stream_id", "integer", ALWAYS, "its stream (sk_op `stream`)"),
    Field("bin_path", "string", ALWAYS, "its object, relative to the kernel_infos file"),
    Field("json_path", "string", ALWAYS, "its sub-op JSON, relative to the kernel_infos file"),
    Field("param_offset", "integer", ALWAYS, "the slot of its first parameter"),
    Field("params", "list of objects", ALWAYS,
          "`{name, offset}` per parameter of its entry, in order; `name` is the parameter's name with "
          "`_<op index>` appended (`x_0`, `workspace_2`), so the names are unique across the SuperKernel"),
    Field("dynamic_params", "object or null", ALWAYS,
          "a tiling-sink op's `{tiling_key, block_num, wait_lock}` slots (uint64 words its tiling task writes); "
          "null otherwise"),
    Field("notify", "list of objects", ALWAYS,
          "`{event, offset, inner}` per event it sends: the slot of the word it writes; `inner`: both ends in "
          "this SuperKernel, so no word is written"),
    Field("wait", "list of objects", ALWAYS, "`{event, offset, inner}` per event it waits for"),
    Field("funcs", "list of objects", ALWAYS,
          "`{arch, key, func_name, object, text_size, preload_count, splits: [{index, symbol, object, "
          "derived_from}]}` per core side"),
    Field("dynamic_keys", "list of objects", ALWAYS,
          "a tiling-sink op's `{tiling_key, kernel_type, funcs: {arch: symbol}}` per key; else empty"),
    Field("send_events", "list of integers", ALWAYS, "event ids it sends (sk_op `send_events`)"),
    Field("recv_events", "list of integers", ALWAYS, "event ids it waits for (sk_op `recv_events`)"),
    Field("split_mode_json", "integer or null", ALWAYS, "the split_mode its sub-op JSON gives"),
    Field("early_start_set", "boolean", ALWAYS, "it calls SetNextTaskStart"),
    Field("early_start_wait", "boolean", ALWAYS, "it calls WaitPreTaskEnd"),
    Field("dcci_before", "boolean", ALWAYS, "a dcci is emitted before its call (JSON flag or the dcci option)"),
    Field("dcci_after", "boolean", ALWAYS, "a dcci is emitted after its call"),
    Field("dcci_flags_json", "object", ALWAYS, "`{before, after}` as its sub-op JSON gives them"),
    Field("dcci_disable", "boolean or null", ALWAYS, "its sub-op JSON's dcci-disable flag"),
    Field("sync_all", "boolean", ALWAYS, "it calls SyncAll"),
    Field("feed_sync_all", "boolean", ALWAYS, "feed-sync-all feeds its idle cores"),
    Field("debug_option", "string or null", ALWAYS, "its dump options"),
    Field("debug_size", "integer or null", ALWAYS, "its dump buffer bytes"),
    Field("op_type", "string or null", ALWAYS, "its operator type (sk_sub_kernel `op_type`)"),
)

# ------------------------------------------------------------------------------------ kernel JSON
# `bazel build //pkg:sk` -> sk.json beside sk.o (facts §7; field order as upstream writes it).
KERNEL_JSON = (
    Field("binFileName", "string", ALWAYS, "the SuperKernel's name: the object is `<binFileName><binFileSuffix>`"),
    Field("binFileSuffix", "string", ALWAYS, "`.o`"),
    Field("blockDim", "integer", ALWAYS, "blocks to launch it with (the plan's `block_dim`)"),
    Field("coreType", "string", ALWAYS, "`MIX`: a SuperKernel is always a MIX kernel"),
    Field("intercoreSync", "integer", ALWAYS, "1"),
    Field("kernelName", "string", ALWAYS, "the entry's name, the kernel a launch looks up"),
    Field("magic", "string", ALWAYS, "`RT_DEV_BINARY_MAGIC_ELF`"),
    Field("memoryStamping", "list", ALWAYS, "empty"),
    Field("opParaSize", "integer", ALWAYS, "8"),
    Field("parameters", "list", ALWAYS, "empty (the arguments are the plan's `params`)"),
    Field("sha256", "string", "after the link (the built kernel JSON)", "sha256 of the object, hex"),
    Field("taskRation", "string", ALWAYS, "cube:vector cores per block, as the plan's `task_ration`"),
    Field("optionalInputMode", "string", ALWAYS, "`gen_placeholder`"),
    Field("optionalOutputMode", "string", ALWAYS, "`gen_placeholder`"),
    Field("supportSuperKernel", "integer", ALWAYS, "1"),
    Field("debugOptions", "string", "when an op dumps", "the dumping ops' options, each part once"),
    Field("debugBufSize", "integer", "when an op dumps", "the largest dump buffer of those ops"),
    Field("workspace", "object", "when the SuperKernel has its own workspace",
          "`{num: 1, size: [bytes], type: [0]}`: the SuperKernel's own workspace (the plan's `workspace_size`); "
          "a launch's workspace buffer holds it first, then each op's"),
    Field("SuperkernelInfo", "object", ALWAYS, "`{kernelList: {aicore: [one entry per op, below]}}`"),
)

KERNEL_JSON_OP = (
    Field("func_name", "string", ALWAYS, "the op's kernelName"),
    Field("split_mode", "integer or null", ALWAYS, "its sub-op JSON's split_mode"),
    Field("blockDim", "integer", ALWAYS, "its block_dim"),
    Field("sub_operator_op_type", "string", "when the op has an op_type", "its operator type"),
    Field("sub_operator_kernel_type", "string", ALWAYS, "its kernel type"),
    Field("sub_operator_early_start_set_flag", "boolean", ALWAYS, "it calls SetNextTaskStart"),
    Field("sub_operator_early_start_wait_flag", "boolean", ALWAYS, "it calls WaitPreTaskEnd"),
    Field("sub_operator_call_dcci_before_kernel_start", "boolean", ALWAYS, "its sub-op JSON's flag"),
    Field("sub_operator_call_dcci_after_kernel_end", "boolean", ALWAYS, "its sub-op JSON's flag"),
    Field("sub_operator_call_dcci_disable_on_kernel", "boolean", "when its sub-op JSON has it", "its flag"),
    Field("streamid", "integer", ALWAYS, "its stream"),
    Field("send_event_list", "list of integers", ALWAYS, "events it sends"),
    Field("recv_event_list", "list of integers", ALWAYS, "events it waits for"),
    Field("arg_list", "object", ALWAYS,
          "`{param_offset, notify_param_offset, wait_param_offset}`: the slots of its first parameter, first "
          "notify word and first wait word (null when none)"),
    Field("debug_option", "string", "when it dumps", "its dump options"),
    Field("debug_size", "integer", "when it dumps", "its dump buffer bytes"),
)

# ---------------------------------------------------------------------------------- fusion report
# `bazel build //pkg:sk --output_groups=debug` -> sk.report.md (`sk report`): Markdown, these
# sections in this order after the title `# SuperKernel \`<name>\`` and a one-row summary table.
REPORT_SECTIONS = (
    Field("## Options", "code block", ALWAYS, "the options given explicitly, as JSON"),
    Field("## Ops in scope order", "table", ALWAYS,
          "per op: #, kernel, type, block dim, AIC/AIV cores, stream, param offset, .text bytes, preload, "
          "split copies, SyncAll, feed-sync-all"),
    Field("## Barriers (N)", "table", ALWAYS, "per pair of consecutive ops: between, kind, reason (the plan's barriers)"),
    Field("## Link", "text", ALWAYS, "how many objects in upstream's order, and the entry symbols"),
    Field("## Kernel JSON", "table", ALWAYS, "kernelName, blockDim, taskRation, workspace, sha256"),
)

# ---------------------------------------------------------------------------------- launch header
# `<package>/<name>_launch.h` of a super_kernel (sk/render/templates/launch.h.j2, namespace <name>).
LAUNCH_CONSTANTS = (
    Field("kBlockDim", "uint32_t", ALWAYS, "blocks of the fused launch (the largest of the launches below)"),
    Field("kAicPerBlock", "uint32_t", ALWAYS, "cube cores per block"),
    Field("kAivPerBlock", "uint32_t", ALWAYS, "vector cores per block"),
    Field("kCoreRatio", "const char[]", ALWAYS, "`\"<aic>:<aiv>\"`"),
    Field("kWorkspaceBytes", "uint64_t", ALWAYS,
          "bytes `Args::workspace` must hold: the SuperKernel's own workspace at 0, then each op's, each at the "
          "next multiple of 512 (the header's comment lists them)"),
    Field("kMinTilingBytes_<op>", "uint64_t", "per op with `tiling = True`",
          "its kernel's `tiling_size`: `Args::<op>_tiling_bytes` must be at least this"),
    Field("kLaunchCount", "uint32_t", ALWAYS,
          "launches `Launch` makes, in order, on one stream: 1, or more for a scope split around a non-fusable "
          "op (its fused pieces and that op) or bypassed (each op)"),
    Field("kLaunches", "sk_launch::LaunchInfo[kLaunchCount]", ALWAYS, "those launches"),
    Field("kUnfusedLaunches", "sk_launch::LaunchInfo[]", "when every kernel has a standalone build",
          "the launches of `LaunchUnfused`: one per op, its own kernel"),
)

# sk_launch::LaunchInfo (sk/launch/include/sk_launch.h), in declaration order.
LAUNCH_INFO = (
    Field("name", "const char*", ALWAYS, "the kernel launched: the fused entry, or the op's own kernel entry"),
    Field("fused", "bool", ALWAYS, "a SuperKernel (true) or an op on its own"),
    Field("block_dim", "uint32_t", ALWAYS, "its blocks"),
    Field("aic_per_block", "uint32_t", ALWAYS, "cube cores per block"),
    Field("aiv_per_block", "uint32_t", ALWAYS, "vector cores per block"),
    Field("num_params", "uint32_t", ALWAYS, "slots of its argument list (for a fused launch, the plan's param array)"),
)

# ------------------------------------------------------------------------------ fake ACL log lines
# One JSON object per line in $SK_FAKE_ACL_LOG (tests/fake_cann/runtime/acl_recorder.cc): `call`,
# then these keys. Addresses as "0x..." strings; handles as small integers (1, 2, ...: follow them
# from call to call); an options/config/reserved pointer as true when given, else null.
ACL_CALLS = (
    Field("aclrtGetHardwareSyncAddr", "addr", ALWAYS, "the FFTS address it hands out (0xff7500000), slot 0's value"),
    Field("aclrtBinaryLoadFromData", "length, fnv1a64, options, bin", ALWAYS,
          "the embedded binary's bytes and FNV-1a 64 hash, the options pointer, the binary handle made"),
    Field("aclrtBinaryLoadFromFile", "path, bin", ALWAYS, "the file, the handle made"),
    Field("aclrtBinaryUnLoad", "bin", ALWAYS, "the handle unloaded"),
    Field("aclrtBinaryGetFunction", "bin, kernel, func", ALWAYS,
          "the binary, the kernel name looked up (the kernel JSON's kernelName, or an op's entry), the function "
          "handle made"),
    Field("aclrtKernelArgsInit", "func, args", ALWAYS, "the function, the argument-list handle made"),
    Field("aclrtKernelArgsAppend", "args, size, value", ALWAYS,
          "one slot: its size (8) and value (the 8 bytes as a little-endian address; null for another size)"),
    Field("aclrtKernelArgsFinalize", "args", ALWAYS, "the argument list closed"),
    Field("aclrtLaunchKernelWithConfig", "func, blocks, stream, cfg, args, reserve", ALWAYS,
          "the launch: function, block count, the caller's stream, config pointer, argument list, reserved pointer"),
)

# sk_launch::Status (sk/launch/include/sk_launch.h).
LAUNCH_STATUS = (
    Field("code", "int", ALWAYS,
          "`sk_launch::kOk` (0), `kBadArgument` (1: an argument was refused before anything was launched) or "
          "`kLaunchFailed` (2: the CPU twin or ACL reported a failure)"),
    Field("error", "std::string", ALWAYS,
          "empty when ok; else one paragraph naming the SuperKernel target, the op and the parameter"),
)

# ------------------------------------------------------------------------------- the options string
# super_kernel `options` (upstream's grammar, sk/engine/options.py): name, its values (as `type`), its
# default is rendered from sk.engine.options.SkOptions, and what it does.
OPTIONS = (
    Field("func-align", "0 or a power of two >= 2", "", "alignment attribute of the SuperKernel's entry (0: none)"),
    Field("preload-code", "`max`, `none`, `per-func`", "",
          "instruction-cache preload: `per-func`, each op preloads the next op's code (the first its own); "
          "`max`, one preload of the whole kernel at its start; `none`, no preload"),
    Field("early-start", "`0`, `1`, `2`", "",
          "barrier style between ops: 1 early start (SetNextTaskStart/WaitPreTaskEnd), 2 early start without "
          "the sub-kernels' own calls, 0 plain barriers; two real streams force 0"),
    Field("stream-fusion", "`0`, `1`", "", "1: ops on two streams run as two real streams (cube and vector queues)"),
    Field("debug-dcci-all", "`0`, `1`", "", "1: a full pipe barrier and data-cache flush after every op"),
    Field("debug-sync-all", "`0`, `1`", "", "1: a full SyncAll after every op"),
    Field("feed-sync-all", "`0`, `1`", "",
          "1: cores an op leaves idle take part in its SyncAll (the SuperKernel gets a workspace of its own)"),
    Field("profiling", "`0`, `1`", "", "1: in-kernel timestamp records into a profiling buffer (an extra argument)"),
    Field("compile-options", "comma-separated flags", "", "added to the generated source's compile"),
    Field("strict-scope-check", "`bypass`, `abort`", "",
          "a scope with a non-fusable op: `abort` fails the build naming it, `bypass` does not fuse the scope "
          "(a warning); unset: the scope is split around it"),
    Field("dcci-before-kernel-start", "comma-separated op types", "", "a full data-cache flush before those ops"),
    Field("dcci-after-kernel-end", "comma-separated op types", "", "a full data-cache flush after those ops"),
    Field("dcci-disable-on-kernel", "comma-separated op types", "", "no data-cache flush around those ops"),
    Field("split-mode", "1 .. 64", "", "copies of each sub-kernel's code the cores are spread over"),
    Field("debug-aic-num", "a whole number >= 0", "",
          "cube cores of the SuperKernel, overriding the summary (0: no override; with debug-aiv-num the ratio "
          "must be 1:0, 0:1, 1:1 or 1:2)"),
    Field("debug-aiv-num", "a whole number >= 0", "", "vector cores of the SuperKernel, likewise"),
    Field("sync-elision", "`0`, `1`", "",
          "ours: 1 drops barriers that order no tensor hazard and narrows the rest (needs fully bound sk_ops); "
          "0 keeps upstream's output"),
    Field("allow-mix-1-2-in-1-1", "`0`, `1`", "",
          "ours: 1 fuses a MIX_AIC_1_2 op into a MIX_AIC_1_1 SuperKernel as upstream does (its second vector "
          "sub-block never runs); 0 refuses it"),
)
