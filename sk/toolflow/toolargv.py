"""The one place that builds command lines for the compiler, linker and objcopy.

Two flavours share every function here:

* ``host`` — the CPU twin: g++ compiles sub-kernels and the generated
  SuperKernel source against sk/runtime's Ascend C surface; binutils ``ld`` and
  ``objcopy`` fuse and localise the objects.
* ``cann`` — the Ascend toolkit: ``bisheng`` (or ``ccec``), ``ld.lld -m
  aicorelinux`` and ``llvm-objcopy`` with the flags upstream uses
  (superkernel-facts.md §6). CANN cannot run on our machines, so these argv are
  pinned by unit tests, token by token.

Tools are always passed in as paths (Bazel hands in label-provided files);
nothing here looks at PATH. Callers add defines and include directories; the
flags that belong to a flavour (arch selection, CPU-twin macros, upstream's
mllvm options) are added here and nowhere else.
"""

from __future__ import annotations

import os
from collections import namedtuple

from sk.base.errors import SkError

HOST = "host"
CANN = "cann"
FLAVORS = (HOST, CANN)

# Core sides a translation unit can be compiled for. "cube" and "vec" are the
# two halves of an AI core (dav-<chip>-cube / dav-<chip>-vec upstream).
ARCHES = ("cube", "vec")
# The chips a CANN compile targets (sk.engine.platforms' `chip`): c220 is
# Atlas A2/A3, c310 Ascend950 (upstream's CommonUtility.get_chip_version).
CHIPS = ("c220", "c310")
DEFAULT_CHIP = "c220"

# Upstream's per-arch compile tail (facts §6.3, ADK _gen_compile_cmd_v220;
# c310: _gen_compile_cmd_c310 adds jump-expand before the dcci flag).
CANN_MLLVM_TAIL = (
    "-mllvm", "-cce-aicore-stack-size=0x8000",
    "-mllvm", "-cce-aicore-function-stack-size=0x8000",
    "-mllvm", "-cce-aicore-record-overflow=false",
    "-mllvm", "-cce-aicore-addr-transform",
    "-mllvm", "-cce-aicore-dcci-insert-for-scalar=false",
)
CANN_MLLVM_TAIL_C310 = CANN_MLLVM_TAIL[:8] + ("-mllvm", "--cce-aicore-jump-expand=true") + CANN_MLLVM_TAIL[8:]
# c310's compile names the chip right after the arch flag (facts §6.3).
C310_DEFINE = "-D__DAV_C310__"
# Upstream appends it to the compile options of every kernel (ADK compile_pre_process); the SK's
# list carries it where upstream's does (after the user's compile-options), other units get it here.
ATTR_CHECK_FLAG = "--cce-disable-kernel-global-attr-check"
# Extra flags when sub-kernels are copied (split-mode > 1): calls may jump far
# (facts §6.2). Upstream passes them as "mllvm options": after the mllvm tail, before -std.
CANN_SPLIT_FLAGS = (
    "-mllvm", "-cce-aicore-jump-expand=true",
    "--cce-long-call=true",
    "-mllvm", "-cce-aicore-long-call",
)


def cann_arch_flag(arch: str, chip: str = DEFAULT_CHIP) -> str:
    """`--cce-aicore-arch=dav-<chip>-<cube|vec>`."""
    return f"--cce-aicore-arch=dav-{chip}-{arch}"


# The CPU twin pretends to be a c220 (Atlas A2/A3) part, like Ascend's own CPU
# debug library (facts §9), so sources that test __NPU_ARCH__ take the A2 path.
HOST_TWIN_DEFINES = ("-D__CCE_KT_TEST__=1", "-D__CCE_AICORE__=220", "-D__DAV_C220__", "-D__NPU_ARCH__=2201")
# What bisheng predefines for each arch; on the host we define them ourselves
# so `#if defined(__DAV_C220_VEC__)` in kernels and in generated code means the
# same thing on both flavours.
HOST_ARCH_DEFINES = {
    "cube": ("-D__DAV_C220_CUBE__", "-D__DAV_CUBE__"),
    "vec": ("-D__DAV_C220_VEC__", "-D__DAV_VEC__"),
}
HOST_OPT = "-O2"
# The twin's generated SuperKernel entry is glue: branches on the core and block,
# preloads and one call per sub-kernel, all in one function that grows with the
# SuperKernel. g++ -O2 spends a minute on it at 1,200 sub-kernels (optimising what
# runs once per launch), -O0 a few seconds; the sub-kernels keep -O2.
HOST_ENTRY_OPT = "-O0"

# The CPU twin's own builds outside the host toolchain (sk.twin.binding builds
# libskrt.so and kernel libraries for `python -m pytest` and `sk run`), and
# Bazel's cc rules building the same runtime: render_runtime_bzl() hands them
# the flags both builds must agree on.
TWIN_STD = "-std=c++17"
TWIN_WARNINGS = ("-Wall", "-Wextra")
# The runtime's own sources build warning-free; kernels (upstream code) need not.
WERROR = "-Werror"
TWIN_THREADS = "-pthread"
# The runtime headers take this path (kernel_operator.h defines it otherwise).
TWIN_KT_TEST_DEFINE = "-D__CCE_KT_TEST__=1"
# What bisheng predefines for the part the twin models (Atlas A2/A3, dav-c220): kernels test them BEFORE they
# include kernel_operator.h (weight_quant_batch_matmul_v2 wraps its whole body in `#if __CCE_AICORE__ == 220`),
# so a kernel compile names them on the command line; kernel_operator.h keeps the same values as a fallback.
TWIN_ARCH_DEFINES = ("-D__CCE_AICORE__=220", "-D__NPU_ARCH__=2201")
# The types bisheng knows without an include (half, bfloat16_t): kernels name them before their first #include
# (weight_quant_batch_matmul_v2), so a twin kernel compile forces the runtime's header for them in front.
TWIN_BUILTIN_TYPES = ("-include", "sk_twin_builtin_types.h")
TSAN = "-fsanitize=thread"
# ThreadSanitizer builds: every object and library the race check loads.
TSAN_FLAGS = ("-O1", TSAN)
TWIN_OPT = {False: ("-O2",), True: TSAN_FLAGS}
# Kernel libraries are loaded next to each other, and two may both define
# `helper`: -Bsymbolic makes calls inside a library bind to its own definitions.
SYMBOLIC_SHARED = ("-shared", "-Wl,-Bsymbolic")


# A tuple, not a dataclass: importing dataclasses took 10 ms of every `sk link`.
class Tools(namedtuple("Tools", "flavor compiler linker objcopy chip")):
    """The tool paths of one toolchain flavour (any may be None if unused), and the chip a CANN
    compile targets (CHIPS; the host twin is always a c220)."""

    __slots__ = ()

    def __new__(cls, flavor: str, compiler: str | None = None, linker: str | None = None,
                objcopy: str | None = None, chip: str = DEFAULT_CHIP):
        if flavor not in FLAVORS:
            raise SkError("unknown toolchain flavour", where="--toolchain", value=flavor,
                          allowed="use one of: " + ", ".join(FLAVORS))
        _check_chip(chip)
        return super().__new__(cls, flavor, compiler, linker, objcopy, chip)

    def need(self, tool: str) -> str:
        path = getattr(self, tool)
        if not path:
            flag = {"compiler": "--compiler", "linker": "--ld", "objcopy": "--objcopy"}[tool]
            raise SkError(f"the {self.flavor} toolchain needs a {tool} for this step", where=flag,
                          allowed=f"pass {flag} PATH")
        return path


def _check_chip(chip: str) -> None:
    if chip not in CHIPS:
        raise SkError("unknown chip", where="soc: chip", value=chip, allowed="one of " + ", ".join(CHIPS))


def _check_arch(arch: str | None, flavor: str) -> None:
    if arch is None and flavor == HOST:
        return
    if arch not in ARCHES:
        raise SkError("unknown core side", where="--arch", value=arch, allowed="use cube or vec")


def compile_argv(tools: Tools, src: str, out: str, *, arch: str | None, defines=(), include_dirs=(),
                 extra=(), tail=(), split_calls: bool = False, host_opt: str | None = None) -> list[str]:
    """A compile of one translation unit for one core side.

    arch: "cube" or "vec"; None (host only) for a unit that serves both sides,
          which the twin tells apart at run time.
    src:  a path, or "-" for standard input.
    defines: "-DX[=v]" tokens (SK-mode macros, entry renames) in order.
    extra:   user copts and SK `compile-options`, after the defines.
    tail:    tokens upstream puts after the mllvm tail (entry rename, MIX
             macros, TILING_KEY_VAR), so the CANN argv matches facts §6.3.
    split_calls: sub-kernel copies are linked in (split-mode > 1): upstream's
             long-call "mllvm options", after the mllvm tail.
    host_opt: the host's optimisation flag, HOST_OPT unless given (the CANN
              argv is upstream's whatever it is).
    The CANN target chip is the tools' (c310: its arch, define and mllvm tail).
    """
    _check_arch(arch, tools.flavor)
    compiler = tools.need("compiler")
    includes = [f"-I{d}" for d in include_dirs]
    if tools.flavor == CANN:
        chip = tools.chip
        options = [*defines, *extra]
        if ATTR_CHECK_FLAG not in options:
            options = [ATTR_CHECK_FLAG, *options]
        c310 = chip == "c310"
        return [compiler, "-c", "-O3", "-x", "cce", *includes, *options, src, cann_arch_flag(arch, chip),
                *([C310_DEFINE] if c310 else []), "--cce-aicore-only", "-o", out,
                *(CANN_MLLVM_TAIL_C310 if c310 else CANN_MLLVM_TAIL), *(CANN_SPLIT_FLAGS if split_calls else ()),
                "-std=c++17", *tail]
    # Host: -x c++ because Ascend sources are often named *.cce or *.asc.
    return [compiler, "-c", "-std=c++17", host_opt or HOST_OPT, "-fPIC", "-x", "c++", *includes,
            *HOST_TWIN_DEFINES, *HOST_ARCH_DEFINES.get(arch, ()), *defines, *extra, *tail, src, "-o", out]


def kernel_type_tail(kernel_type: str, tiling_key: int = 0) -> list[str]:
    """The defines upstream's per-arch compile of a kernel of this type ends with (ADK compile_op, facts
    §6.3): the MIX macros for MIX_AIC_1_1/1_2 (and the ratio for 1:1), then TILING_KEY_VAR (the key a
    multi-tiling-key kernel is compiled for, one compile per key: ADK compile_single_tiling_v220)."""
    # Imported here: kernel_types loads dataclasses, which `sk link` (a toolargv user) does without.
    from sk.engine.kernel_types import lookup

    kt, tail = lookup(kernel_type, "plan: kernel_type"), []
    if len(kt.sides) == 2:  # MIX 1:1 and 1:2, upstream's KernelType values 6 and 7
        tail.append("-D__MIX_CORE_MACRO__=1")
        if kt.ration == (1, 1):
            tail.append("-D__MIX_CORE_AIC_RATION__=1")
    return tail + [f"-DTILING_KEY_VAR={tiling_key}UL"]


def entry_compile_argv(tools: Tools, src: str, out: str, *, arch: str, defines=(), include_dirs=(), extra=(),
                       tail=(), split_calls: bool = False) -> list[str]:
    """One half of the generated SuperKernel source (`sk entry compile`).

    CANN: compile_argv's, upstream's entry compile (facts §6.3). Host: the
    same at HOST_ENTRY_OPT; user copts in `extra` still come after it.
    """
    return compile_argv(tools, src, out, arch=arch, defines=defines, include_dirs=include_dirs, extra=extra,
                        tail=tail, host_opt=HOST_ENTRY_OPT, split_calls=split_calls)


def tiling_key_rename(kernel_name: str) -> str:
    """The define upstream's compile of a static kernel ends with (ADK compile_op, tiling key 0)."""
    return f"-D{kernel_name}={kernel_name}_0_tilingkey"


def preprocess_argv(tools: Tools, src: str, out: str, *, arch: str | None, defines=(), include_dirs=(),
                    extra=()) -> list[str]:
    """`-E` instead of `-c` in the compile of the same unit: upstream scans the
    kernel's preprocessed text for inter-core API calls (facts §14.3), and only
    the same flags give the same predefined macros (-O, arch, twin defines)."""
    argv = compile_argv(tools, src, out, arch=arch, defines=defines, include_dirs=include_dirs, extra=extra)
    if argv[1] != "-c":
        raise AssertionError(f"compile_argv no longer starts with the compiler and -c: {argv[:2]}")
    return [argv[0], "-E", *argv[2:]]


def translate_flags(flavor: str, flags) -> tuple[list[str], bool]:
    """The engine's SK compile flags (upstream's bisheng flags) for this flavour: (flags, split_calls).

    split_calls: the list holds upstream's long-call flags (CANN_SPLIT_FLAGS), which
    compile_argv puts where upstream does (after the mllvm tail), so they leave the list.
    The CANN list keeps --cce-disable-kernel-global-attr-check where the engine put it
    (upstream's place); the host compiler gets neither bisheng's --cce-* options nor
    -mllvm pairs (they tune the NPU backend).
    """
    flags = list(flags)
    split_calls = False
    n = len(CANN_SPLIT_FLAGS)
    for i in range(len(flags) - n + 1):
        if tuple(flags[i:i + n]) == CANN_SPLIT_FLAGS:
            del flags[i:i + n]
            split_calls = True
            break
    if flavor == CANN:
        return flags, split_calls
    out, skip = [], False
    for flag in flags:
        if skip:
            skip = False
            continue
        if flag == "-mllvm":
            skip = True
            continue
        if flag.startswith("--cce-"):
            continue
        out.append(flag)
    return out, split_calls


def relocatable_link_argv(tools: Tools, inputs, out: str, *, discard_locals: bool = False,
                          hash_size: int | None = None) -> list[str]:
    """`ld -r`: merge objects into one relocatable object, in the given order.

    CANN: upstream's fatbin step `ld.lld -m aicorelinux -r -Ttext=0 -q [-x]
    <objs> -static -o out` (facts §6.7).
    hash_size: GNU ld's `--hash-size` (host only; only GNU ld's BFD linker has it).
    """
    linker = tools.need("linker")
    if tools.flavor == CANN:
        return [linker, "-m", "aicorelinux", "-r", "-Ttext=0", "-q", *(["-x"] if discard_locals else []),
                *inputs, "-static", "-o", out]
    return [linker, "-r", *([f"--hash-size={hash_size}"] if hash_size else []), *(["-x"] if discard_locals else []),
            *inputs, "-o", out]


def whole_archive(path: str) -> list[str]:
    """Linker tokens that take every member of an archive, in archive order."""
    return ["--whole-archive", path, "--no-whole-archive"]


def driver_whole_archive(path: str) -> list[str]:
    """whole_archive through the compiler driver (a twin shared library's link)."""
    return ["-Wl,--whole-archive", path, "-Wl,--no-whole-archive"]


def final_link_argv(tools: Tools, src: str, out: str) -> list[str] | None:
    """Upstream's `link_relocatable` (facts §6.8), CANN only.

    The device binary is a placed image that keeps its relocations (-q). The
    host object stays relocatable because the twin links it into a shared
    library with the runtime, so there is no second step: returns None.
    """
    if tools.flavor == CANN:
        return [tools.need("linker"), "-m", "aicorelinux", "-Ttext=0", src, "-static", "-o", out, "-q"]
    return None


def localize_argv(tools: Tools, src: str, dst: str, *, symbols_file: str | None,
                  strip_groups: bool, weaken=()) -> list[str]:
    """One objcopy that makes the symbols listed in symbols_file local.

    strip_groups removes the COMDAT group sections, keeping their members as
    ordinary sections. That is what makes localised inline/template functions
    safe: otherwise `ld -r` of two objects (two sub-kernels, two split copies,
    the cube and vector halves) would keep one group and leave the other
    object's now-local references pointing into a discarded section, or pick
    one copy of an inline compiled with different macros (block num!).
    weaken: symbols that stay global but weak.
    """
    objcopy = tools.need("objcopy")
    argv = [objcopy]
    if symbols_file:
        argv.append(f"--localize-symbols={symbols_file}")
    argv += [f"--weaken-symbol={sym}" for sym in weaken]
    if strip_groups:
        argv.append("--remove-section=.group")
    return argv + [src, dst]


def redefine_argv(tools: Tools, src: str, dst: str, renames) -> list[str]:
    """One objcopy that writes a copy of src with symbols renamed (old, new)."""
    objcopy = tools.need("objcopy")
    return [objcopy, *[f"--redefine-sym={old}={new}" for old, new in renames], src, dst]


def redefine_in_place_argv(tools: Tools, path: str, old: str, new: str) -> list[str]:
    """One objcopy that renames one symbol of `path` in place, in upstream's form (split_spk_kernel_objs)."""
    return [tools.need("objcopy"), "--redefine-sym", f"{old}={new}", path]


def strip_symbol_argv(tools: Tools, path: str, symbol: str) -> list[str]:
    """One objcopy that drops `symbol` from `path` in place (upstream's split copies of the SK object)."""
    return [tools.need("objcopy"), f"--strip-symbol={symbol}", path]


# Upstream compiles the entry stub of a split SuperKernel with this tail (ADK gen_spk_kernel_call).
CANN_STUB_MLLVM = (
    "-mllvm", "-cce-aicore-addr-transform",
    "-mllvm", "-cce-aicore-dcci-insert-for-scalar=false",
    "-mllvm", "-cce-aicore-stack-size=0x8000",
)


def stub_compile_argv(tools: Tools, src: str, out: str, *, arch: str, include_dirs=(),
                      stub_compiler: str | None = None) -> list[str]:
    """The entry stub of a split SuperKernel half (sk_<i>.cpp, facts §6.6).

    CANN: upstream's argv token for token (ADK gen_spk_kernel_call), run by
    stub_compiler: the toolkit's `ccec`, which upstream runs for the stub where
    the SuperKernel's own halves get `bisheng` (the toolchain's compiler, used
    when no stub compiler is given). include_dirs: upstream's list for the stub.
    Host: the entry's compile (HOST_ENTRY_OPT), which the twin's branch of the
    stub needs; a host toolchain has one compiler.
    """
    _check_arch(arch, tools.flavor)
    if tools.flavor == CANN:
        c310 = tools.chip == "c310"
        return [stub_compiler or tools.need("compiler"), "-x", "cce", *(f"-I{d}" for d in include_dirs),
                *([C310_DEFINE] if c310 else []), "-O3", cann_arch_flag(arch, tools.chip), "--cce-aicore-only",
                *CANN_STUB_MLLVM, "-std=c++17", "-DTILING_KEY_VAR=0", "-o", out, "-c", src]
    return compile_argv(tools, src, out, arch=arch, include_dirs=include_dirs, host_opt=HOST_ENTRY_OPT)


def twin_cflags(include_dir: str, *, tsan: bool = False) -> list[str]:
    """Flags of every twin compile outside Bazel: kernels, SK entries, the runtime, its C++ tests.

    include_dir: sk/runtime/include (the Ascend C surface of the twin).
    tsan: ThreadSanitizer; the runtime and every kernel loaded with it must agree.
    """
    return [TWIN_STD, "-fPIC", "-g", *TWIN_WARNINGS, *TWIN_OPT[tsan], f"-I{include_dir}", TWIN_KT_TEST_DEFINE]


def twin_compile_argv(compiler: str, src: str, out: str, *, include_dir: str, extra=(),
                      tsan: bool = False) -> list[str]:
    """`-c` of one source for the twin (a golden SuperKernel source, a harness)."""
    return [compiler, *twin_cflags(include_dir, tsan=tsan), *extra, "-c", src, "-o", out]


def twin_check_argv(compiler: str, src: str, *, include_dir: str, include_dirs=(), defines=(), forced_includes=(),
                    preprocess_to: str | None = None) -> list[str]:
    """A kernel checked for the twin without an object (`sk twin survey`): the twin's flags, -fsyntax-only (every
    template the unit instantiates is still compiled), or -E into preprocess_to.

    defines are complete -D flags (the ADK's variant defines); forced_includes are headers compiled in front (-include).
    """
    mode = ["-E", "-o", preprocess_to] if preprocess_to else ["-fsyntax-only"]
    return [compiler, *twin_cflags(include_dir), *TWIN_ARCH_DEFINES, *(f"-I{d}" for d in include_dirs), *defines,
            *TWIN_BUILTIN_TYPES, *(x for h in forced_includes for x in ("-include", h)), *mode, src]


def twin_runtime_compile_argv(compiler: str, src: str, out: str, *, include_dir: str, source_dir: str,
                              tsan: bool = False) -> list[str]:
    """One of the runtime's own sources (libskrt.so), warnings as errors."""
    return [compiler, *twin_cflags(include_dir, tsan=tsan), WERROR, f"-I{source_dir}", "-c", src, "-o", out]


def twin_runtime_link_argv(compiler: str, objects, out: str, *, tsan: bool = False) -> list[str]:
    """libskrt.so from the runtime's objects (no -Bsymbolic: kernels bind to its symbols)."""
    return [compiler, *([TSAN] if tsan else []), "-shared", "-o", out, *objects, TWIN_THREADS]


def twin_kernel_library_argv(compiler: str, sources, out: str, *, include_dir: str, include_dirs=(), defines=(),
                             extra=(), tsan: bool = False) -> list[str]:
    """Compile and link kernel sources (or objects) into one library the twin loads.

    defines are NAME or NAME=VALUE (without -D). Runtime symbols stay
    undefined: they resolve against the runtime loaded first.
    """
    return [compiler, *twin_cflags(include_dir, tsan=tsan), *TWIN_ARCH_DEFINES, *(f"-I{d}" for d in include_dirs),
            *(f"-D{d}" for d in defines), *TWIN_BUILTIN_TYPES, *extra, *SYMBOLIC_SHARED, "-o", out, *sources]


def twin_program_argv(compiler: str, sources, out: str, *, include_dir: str, runtime_lib: str,
                      include_dirs=()) -> list[str]:
    """An executable linked against libskrt.so (the runtime's C++ tests outside Bazel)."""
    lib_dir, lib_name = os.path.split(runtime_lib)
    return [compiler, *twin_cflags(include_dir), WERROR, *(f"-I{d}" for d in include_dirs), *sources,
            "-o", out, f"-L{lib_dir}", f"-l:{lib_name}", f"-Wl,-rpath,{lib_dir}", TWIN_THREADS]


def tiling_key_defines(entry: str, tiling_key: int) -> list[str]:
    """The entry of a multi-tiling-key kernel renamed for one key: `<entry>_<key>` (each key's compile
    defines its own function, as ADK's `-D<func>=<func>_<key>_tilingkey`)."""
    return [f"-D{entry}={entry}_{tiling_key}"]


def tiling_function_argv(compiler: str, sources, out: str, *, include_dir: str, include_dirs=(), extra=(),
                         linker: str | None = None) -> list[str]:
    """A host tiling function (sk_tiling.h) as a shared library the twin calls: host C++, not kernel code.
    With a linker the driver is pointed at its directory (-B), as in twin_shared_argv."""
    driver_dir = [f"-B{os.path.dirname(linker)}/"] if linker and os.path.dirname(linker) else []
    return [compiler, *driver_dir, "-std=c++17", HOST_OPT, "-fPIC", "-shared", f"-I{include_dir}",
            *(f"-I{d}" for d in include_dirs), *extra, *sources, "-o", out]


def twin_shared_argv(tools: Tools, objects, out: str, *, extra=()) -> list[str]:
    """A shared library the CPU twin loads, from objects the host toolchain made (SkTwinLib, `sk run`).

    With a linker, the compiler driver is pointed at its directory (-B): under
    Bazel's pinned environment there is no PATH to find `ld` on.
    """
    if tools.flavor != HOST:
        raise SkError("twin libraries are built with the host toolchain", where="--toolchain", value=tools.flavor,
                      allowed="use --toolchain host")
    compiler = tools.need("compiler")
    driver_dir = [f"-B{os.path.dirname(tools.linker)}/"] if tools.linker and os.path.dirname(tools.linker) else []
    return [compiler, *driver_dir, *SYMBOLIC_SHARED, *extra, "-o", out, *objects]


def render_runtime_bzl() -> str:
    """sk/runtime/copts.bzl: the flags Bazel's cc rules build the twin runtime with."""
    def items(flags):
        return "".join(f'    "{f}",\n' for f in flags)
    return ("# Generated from sk/toolflow/toolargv.py (python -m sk.toolflow.toolargv > this file);\n"
            "# //sk:toolargv_test fails when the two differ.\n"
            '"""Flags of the twin runtime that sk.twin.binding builds with the same values."""\n\n'
            f"RUNTIME_COPTS = [\n{items((TWIN_STD, *TWIN_WARNINGS, WERROR))}]\n\n"
            f"RUNTIME_LINKOPTS = [\n{items((TWIN_THREADS,))}]\n")


if __name__ == "__main__":
    print(render_runtime_bzl(), end="")
