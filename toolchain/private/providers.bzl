"""SkToolchainInfo: what an sk toolchain hands to the rules."""

SkToolchainInfo = provider(
    doc = "A compiler/linker set that builds sub-kernels and SuperKernels.",
    fields = {
        "label": "(Label) the sk_toolchain target, for error messages",
        "flavor": "(str) 'cann' (bisheng/ld.lld/llvm-objcopy for the NPU) or 'host' (CPU twin: g++/ld/objcopy)",
        "available": "(bool) False when the toolkit was not found; rules then fail with unavailable_reason",
        "unavailable_reason": "(str) how to point the build at the toolkit",
        "compiler": "(File) the compiler driver (bisheng or g++)",
        "stub_compiler": "(File|None) cann: the compiler of the split entry stubs (ccec, as upstream); None: compiler",
        "linker": "(File) ld.lld or ld",
        "objcopy": "(File) llvm-objcopy or objcopy",
        "runtime_lib": "(File|None) host: the CPU-twin runtime shared library",
        "acl": "(Target|None) cann: a CcInfo target with the toolkit's ACL runtime (acl/acl.h, libascendcl) that launch APIs link against",
        "all_files": "(depset[File]) everything the tools read: binaries, headers, the twin runtime",
        "include_dirs": "(list[str]) exec-root-relative include directories",
        "stub_include_dirs": "(list[str]) exec-root-relative include directories of the entry stubs (empty: include_dirs)",
        "copts": "(list[str]) extra flags appended to every compile",
        "soc": "(str) default SoC (e.g. 'Ascend910_9391')",
        "execution_requirements": "(dict[str,str]) copied onto every action using the tools",
    },
)

SkPythonInfo = provider(
    doc = "The interpreter that runs the sk tool (toolchain type `@rules_superkernel//toolchain:python_toolchain_type`).",
    fields = {
        "interpreter_path": "(str) absolute path of the interpreter on the machines that run the sk tool's actions",
        "version": "(str) its `major.minor`; 3.9 or newer",
    },
)
