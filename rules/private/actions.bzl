"""One function per action kind; every action runs the sk tool or a toolchain tool.

Argv is built here only, so analysis tests and `bazel aquery` see exactly
what runs. Paths are exec-root-relative; the environment is pinned.
"""

load("//toolchain:defs.bzl", "SK_TOOLCHAIN_TYPE")

# The sk tool must not depend on the user's environment or hash seed.
SK_ENV = {
    "LC_ALL": "C",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONHASHSEED": "0",
    "PYTHONNOUSERSITE": "1",
    "SOURCE_DATE_EPOCH": "0",
    "TZ": "UTC",
}

# sk is a persistent worker (sk/cli/worker.py, JSON protocol): Bazel keeps one warm
# process per action kind instead of starting Python, importing sk and
# compiling its templates for each of a large SuperKernel's thousands of
# actions. `--strategy=SkGen=sandboxed` (or any strategy list without
# `worker`) runs an action kind as plain processes; the outputs are the same.
SK_WORKER_REQUIREMENTS = {
    "requires-worker-protocol": "json",
    "supports-workers": "1",
}

def _run_sk(ctx, tc, mnemonic, progress, args, inputs, outputs, tools = []):
    # A worker takes its arguments from a param file, so every sk action has one
    # (aquery and the analysis tests still see the whole argv).
    args.use_param_file("@%s", use_always = True)
    args.set_param_file_format("multiline")
    requirements = dict(tc.execution_requirements)
    requirements.update(SK_WORKER_REQUIREMENTS)
    ctx.actions.run(
        executable = ctx.executable._sk,
        arguments = [args],
        inputs = depset(inputs, transitive = [tc.all_files]),
        outputs = outputs,
        tools = tools,
        mnemonic = mnemonic,
        progress_message = progress,
        env = SK_ENV,
        execution_requirements = requirements,
        toolchain = SK_TOOLCHAIN_TYPE,
    )

def _tool_args(args, tc, compiler = False, linker = False, objcopy = False, soc = False):
    args.add("--toolchain", tc.flavor)
    if compiler:
        args.add("--compiler", tc.compiler)
        args.add_all(tc.include_dirs, before_each = "--include")
    if soc:
        # The toolchain's SoC picks the CANN compile target of a sub-kernel (dav-<chip>-*) and
        # the core-type keys of its sub-op JSON; a SuperKernel's halves take theirs from its plan.
        args.add("--soc", tc.soc)
    if linker:
        args.add("--ld", tc.linker)
    if objcopy:
        args.add("--objcopy", tc.objcopy)

def _kernel_args(args, kernel_type, block_dim, options, op_type, loc):
    args.add("--kernel-type", kernel_type)
    args.add("--block-dim", str(block_dim))
    args.add("--options", options)
    if op_type:
        args.add("--op-type", op_type)
    args.add("--loc", loc)

def _tiling_key_args(args, tiling_keys):
    # A tiling-sink kernel: one TILING_KEY_IS(k) variant per key (sk compiles each key, as the ADK does).
    for k in tiling_keys:
        args.add("--tiling-key", str(k))

def _cann_args(args, cann, entry, params):
    # One instance of a CANN-style operator (docs/cann-ops.md): sk generates its entry and reads its
    # variant's defines and tiling key from the binary config and the kernel's ASCENDC_TPL_* macros.
    args.add("--entry", entry)
    args.add("--cann-kernel", cann.kernel)
    if cann.binary_config:
        args.add("--binary-config", cann.binary_config)
        args.add("--variant", cann.variant)
    if cann.tpl_args:
        args.add("--tpl-args", cann.tpl_args)
    args.add_all(params, before_each = "--param")

def compile_sub_kernel(ctx, tc, src, out, kernel_type, block_dim, options, copts, hdrs, op_type = "", loc = None, sync_out = None, tiling_keys = [], entry = None, cann = None, params = []):
    """SkCompile: the user's kernel source, in SK mode at scope location `loc`, or plain when loc is None.

    In SK mode the one action preprocesses the source, scans it for
    SyncAll/SetNextTaskStart/WaitPreTaskEnd calls (the scan decides macros of
    the compile that follows) and writes the scan to `sync_out` for SkWrap
    and SkSubOp.
    """
    args = ctx.actions.args()
    args.add("subkernel")
    args.add("compile")
    _tool_args(args, tc, compiler = True, soc = True)
    if loc:
        _kernel_args(args, kernel_type, block_dim, options, op_type, loc)
        args.add("--sync-out", sync_out)
    else:
        args.add("--kernel-type", kernel_type)
        args.add("--block-dim", str(block_dim))
        args.add("--plain")
    if tiling_keys:
        args.add("--entry", entry)
        _tiling_key_args(args, tiling_keys)
    if cann:
        _cann_args(args, cann, entry, params)
    args.add("-o", out)
    args.add(src)
    extra = tc.copts + copts
    if extra:
        args.add("--")
        args.add_all(extra)
    _run_sk(
        ctx,
        tc,
        "SkCompile",
        "Compiling %s%s" % (src.short_path, " (SK mode, %s)" % loc if loc else ""),
        args,
        [src] + hdrs + ([cann.binary_config] if cann and cann.binary_config else []),
        [out] + ([sync_out] if loc else []),
    )

def wrap_sub_kernel(ctx, tc, kernel_obj, sync_scan, out_obj, kernel_name, kernel_type, block_dim, params, options, op_type, loc, tiling_keys = []):
    """SkWrap: generates and compiles the SK-mode entry `void <entry>_<loc>(uint64_t args_offset)`."""
    args = ctx.actions.args()
    args.add("subkernel")
    args.add("wrap")
    _tool_args(args, tc, compiler = True, soc = True)
    _kernel_args(args, kernel_type, block_dim, options, op_type, loc)
    args.add("--entry", kernel_name)
    args.add_all(params, before_each = "--param")
    args.add("--kernel-obj", kernel_obj)
    args.add("--sync-scan", sync_scan)
    _tiling_key_args(args, tiling_keys)
    args.add("-o", out_obj)
    _run_sk(ctx, tc, "SkWrap", "Wrapping %{label} for SuperKernel calls", args, [kernel_obj, sync_scan], [out_obj])

def pack_sub_kernel(ctx, tc, kernel_obj, wrapper_obj, sync_scan, out_obj, out_json, kernel_name, kernel_type, block_dim, params, options, op_type, loc, tiling_keys = []):
    """SkSubOp: one archive with the split copies, plus its sub-op JSON."""
    args = ctx.actions.args()
    args.add("subkernel")
    args.add("pack")
    _tool_args(args, tc, linker = True, objcopy = True, soc = True)
    _kernel_args(args, kernel_type, block_dim, options, op_type, loc)
    args.add("--kernel-obj", kernel_obj)
    args.add("--wrapper-obj", wrapper_obj)
    args.add("--sync-scan", sync_scan)
    args.add("--entry", kernel_name)
    args.add_all(params, before_each = "--param")
    _tiling_key_args(args, tiling_keys)
    args.add("--out-obj", out_obj)
    args.add("--out-json", out_json)
    _run_sk(ctx, tc, "SkSubOp", "Packing sub-kernel %{label}", args, [kernel_obj, wrapper_obj, sync_scan], [out_obj, out_json])

def gen_super_kernel(ctx, tc, kernel_infos, inputs, out_dir_files, plan, soc):
    """SkGen: options -> plan -> generated source, kernel JSON, compile options."""
    args = ctx.actions.args()
    args.add("gen")
    args.add("--kernel-infos", kernel_infos)
    args.add("--out-dir", out_dir_files[0].dirname)
    args.add("--plan-out", plan)
    args.add("--soc", soc)
    _run_sk(ctx, tc, "SkGen", "Generating SuperKernel %{label}", args, [kernel_infos] + inputs, out_dir_files + [plan])

def compile_entry(ctx, tc, plan, src, compile_options, out_dir, side):
    """SkCompileEntry: the generated source's `side` half (cube or vec) into out_dir, if the plan has one;
    the half leaves localised (objcopy) as SkLink takes it."""
    args = ctx.actions.args()
    args.add("entry")
    args.add("compile")
    _tool_args(args, tc, compiler = True, objcopy = True)
    if tc.stub_compiler:
        # Upstream compiles the split entry stubs with ccec (ADK gen_spk_kernel_call), the halves with bisheng.
        args.add("--stub-compiler", tc.stub_compiler)
    args.add_all(tc.stub_include_dirs, before_each = "--stub-include")
    args.add("--plan", plan)
    args.add("--src", src)
    args.add("--compile-options", compile_options)
    args.add("--arch", side)
    args.add("--out-dir", out_dir.path)
    if tc.copts:
        args.add("--")
        args.add_all(tc.copts)
    _run_sk(ctx, tc, "SkCompileEntry", "Compiling SuperKernel entry %%{label} (%s half)" % side, args, [plan, src, compile_options], [out_dir])

def link_super_kernel(ctx, tc, plan, entry_dirs, sub_objects, meta_in, out_obj, out_json):
    """SkLink: link in upstream order, localise, verify, fill sha256."""
    args = ctx.actions.args()
    args.add("link")
    _tool_args(args, tc, linker = True, objcopy = True)
    args.add("--plan", plan)
    for entry_dir in entry_dirs:
        args.add("--entry-dir", entry_dir.path)
    args.add_all(sub_objects, before_each = "--sub-obj")
    args.add("--meta-in", meta_in)
    args.add("--out-obj", out_obj)
    args.add("--out-json", out_json)
    if tc.runtime_lib:
        args.add("--runtime-lib", tc.runtime_lib)
    _run_sk(ctx, tc, "SkLink", "Linking SuperKernel %{output}", args, [plan, meta_in] + entry_dirs + sub_objects, [out_obj, out_json])

def twin_shared_library(ctx, tc, objects, out):
    """SkTwinLib: a shared library the CPU twin loads (`sk twin lib`; its argv is sk's)."""
    args = ctx.actions.args()
    args.add("twin")
    args.add("lib")
    args.add("--toolchain", tc.flavor)
    args.add("--compiler", tc.compiler)
    args.add("--ld", tc.linker)
    args.add_all(objects, before_each = "--obj")
    args.add("-o", out)
    _run_sk(ctx, tc, "SkTwinLib", "Linking CPU-twin library %{output}", args, objects, [out])

def tiling_function_library(ctx, tc, srcs, hdrs, out):
    """SkTiling: a tiling-sink kernel's host tiling function (sk_tiling.h) as a library the CPU twin calls."""
    args = ctx.actions.args()
    args.add("twin")
    args.add("tiling")
    args.add("--compiler", tc.compiler)
    args.add("--ld", tc.linker)
    args.add_all(tc.include_dirs, before_each = "--include")
    args.add_all(sorted({h.dirname: None for h in hdrs + srcs}.keys()), before_each = "--include")
    args.add("-o", out)
    args.add_all(srcs)
    _run_sk(ctx, tc, "SkTiling", "Compiling tiling function %{output}", args, srcs + hdrs, [out])

def write_model(ctx, tc, manifest, data, out, data_files = []):
    """SkModel: an sk_model's BUILD-declared model merged with its data file into one self-contained model file.

    data_files: the files the data file names (tensor contents, references, tiling), read by the action."""
    args = ctx.actions.args()
    args.add("model")
    args.add("--built", manifest)
    args.add("--data", data)
    args.add("-o", out)
    _run_sk(ctx, tc, "SkModel", "Writing model file %{output}", args, [manifest, data] + data_files, [out])

def report_super_kernel(ctx, tc, plan, meta, out):
    """SkReport: what was fused, the barriers, sizes."""
    args = ctx.actions.args()
    args.add("report")
    args.add("--plan", plan)
    args.add("--meta", meta)
    args.add("-o", out)
    _run_sk(ctx, tc, "SkReport", "Writing fusion report %{output}", args, [plan, meta], [out])

def render_launch(ctx, tc, flavor, manifest, inputs, include, header, src, twin_objects = []):
    """SkLaunch: a super_kernel's launch API, its header and its implementation for `flavor` (host: twin, cann);
    on the twin also the kernel objects it links, (binary, copy) pairs, their launched symbols renamed."""
    args = ctx.actions.args()
    args.add("launch")
    args.add("--manifest", manifest)
    args.add("--flavor", flavor)
    args.add("--include", include)
    args.add("--header", header)
    args.add("--src", src)
    if twin_objects:
        args.add("--objcopy", tc.objcopy)
        args.add_all(["%s=%s" % (binary.path, copy.path) for binary, copy in twin_objects], before_each = "--twin-obj")
    _run_sk(
        ctx,
        tc,
        "SkLaunch",
        "Writing launch API %{output}",
        args,
        [manifest] + inputs + [binary for binary, _ in twin_objects],
        [header, src] + [copy for _, copy in twin_objects],
    )
