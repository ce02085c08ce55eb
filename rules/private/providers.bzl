"""Providers of rules_superkernel."""

SkSubKernelInfo = provider(
    doc = "A kernel compiled for use inside SuperKernels (and standalone).",
    fields = {
        "label": "(Label) the sk_sub_kernel target, for error messages",
        "kernel_name": "(str) the kernel's entry function as written in its source",
        "kernel_type": "(str) KERNEL_TYPE_* of the kernel",
        "block_dim": "(int) number of blocks the kernel is launched with",
        "inputs": "(list[str]) input parameter names, in signature order",
        "outputs": "(list[str]) output parameter names, after the inputs",
        "output_shape": "(bool) an output-shape tensor parameter (`output_shape`) follows the outputs",
        "workspace": "(int) workspace bytes (0 = no workspace parameter)",
        "tiling": "(bool) a `tiling` parameter follows `workspace` (a dynamic-shape op)",
        "tiling_size": "(int) bytes of the tiling struct the launch API requires (0: unknown, any non-empty buffer)",
        "op_type": "(str) operator type, used by dcci-* options and reports",
        "fusable": "(bool) False keeps the kernel out of SuperKernels (the scope is split around it)",
        "sk_objects": "(dict[str, struct(object, json)]) per scope location ('start', 'middle', 'end'): the SK-mode archive (entry `<entry>_<loc>(uint64_t args_offset)`, split copies included) and its sub-op JSON",
        "standalone_object": "(File|None) the ordinary object for separate launches (None for prebuilt kernels)",
        "inherited_options": "(str) the SuperKernel options this object was compiled with: the keys of sk/engine/inherited.py (early-start, stream-fusion, feed-sync-all, split-mode, dcci-*)",
        "src": "(File|None) the kernel source (None for prebuilt kernels)",
        "hdrs": "(list[File]) the headers its source includes (empty for prebuilt kernels)",
        "copts": "(list[str]) the extra compiler flags it was compiled with",
        "tiling_keys": "(list[int]) a tiling-sink kernel's TILING_KEY_IS keys, one compiled variant each (empty: an ordinary kernel)",
        "tiling_function": "(str) a tiling-sink kernel's host tiling function (sk_tiling.h), '' otherwise",
        "tiling_srcs": "(list[File]) the sources of its tiling function",
        "tiling_bytes": "(int) bytes of the tiling buffer the tiling function fills",
        "cann": "a CANN-style operator instance (sk_cann_op, docs/cann-ops.md): struct(kernel, binary_config (File or None), variant, tpl_args); None otherwise",
    },
)

SkTaskInfo = provider(
    doc = "A task of another engine that a SuperKernel talks to through memory-semantic GM words (facts section 15).",
    fields = {
        "label": "(Label) the sk_tiling_task or sk_prefetch_task target",
        "kind": "(str) 'tiling' (AI CPU tiling of a tiling-sink op) or 'prefetch' (SDMA load into L2)",
        "op": "(Label|None) tiling: the sk_op of the tiling-sink op whose tiling it computes",
        "wait_event": "(int|None) the event it waits for before it runs (sent by an op of the SuperKernel)",
        "send_event": "(int|None) prefetch: the event it sends when done (received by an op of the SuperKernel)",
        "tensor": "(str|None) prefetch: the tensor it loads",
    },
)

SkOpInfo = provider(
    doc = "One op instance: a kernel plus the tensors it reads and writes and its stream placement.",
    fields = {
        "label": "(Label) the sk_op target (or the sk_sub_kernel when used directly)",
        "kernel": "(SkSubKernelInfo) the compiled kernel",
        "bindings": "(dict[str,str]) parameter name -> tensor name (unbound parameters map to their own name; \"\": an absent optional parameter)",
        "tensors": "(struct(reads, writes)|None) tensors the op reads and writes, for sync-elision; None unless every parameter is bound explicitly (a guessed name could hide a dependency)",
        "stream": "(int) stream id (two real streams need stream-fusion=1)",
        "send_events": "(list[int]) events sent after this op",
        "recv_events": "(list[int]) events waited for before this op",
    },
)

SuperKernelInfo = provider(
    doc = "A fused SuperKernel.",
    fields = {
        "label": "(Label) the super_kernel target",
        "kernel_name": "(str) name of the fused kernel (its entry symbol)",
        "object": "(File|None) <name>.o, the fused relocatable object (None unless exactly one segment)",
        "meta": "(File|None) <name>.json, the kernel JSON with sha256 (None unless exactly one segment)",
        "generated_src": "(File|None) the generated SuperKernel source (None unless exactly one segment)",
        "plan": "(File|None) the fusion plan as JSON (None unless exactly one segment)",
        "report": "(File|None) human-readable fusion report",
        "ops": "(list[SkOpInfo]) op instances of the scope, in order",
        "segments": "(list[struct]) one per fused piece (kernel_name, object, meta, generated_src, plan, kernel_infos, compile_options, report, ops, first: the index of its first op in `ops`); several when non-fusable ops split the scope into <name>_split_<a>_<b>, none under strict-scope-check=bypass; the ops outside every segment launch on their own",
        "options": "(str) the option string as written in the BUILD file",
        "toolchain_flavor": "(str) 'cann' or 'host'",
        "launch_header": "(File) <name>_launch.h, the launch API the target's CcInfo provides",
    },
)
