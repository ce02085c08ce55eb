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

from collections import namedtuple

from sk.base.errors import SkError

HOST = "host"
CANN = "cann"
FLAVORS = (HOST, CANN)

# Core sides a translation unit can be compiled for. "cube" and "vec" are the
# two halves of an AI core (dav-c220-cube / dav-c220-vec upstream).
ARCHES = ("cube", "vec")

# Upstream's per-arch compile tail (facts §6.3, ADK _gen_compile_cmd_v220).
CANN_ARCH_FLAG = {"cube": "--cce-aicore-arch=dav-c220-cube", "vec": "--cce-aicore-arch=dav-c220-vec"}
CANN_MLLVM_TAIL = (
    "-mllvm", "-cce-aicore-stack-size=0x8000",
    "-mllvm", "-cce-aicore-function-stack-size=0x8000",
    "-mllvm", "-cce-aicore-record-overflow=false",
    "-mllvm", "-cce-aicore-addr-transform",
    "-mllvm", "-cce-aicore-dcci-insert-for-scalar=false",
)
# Extra flags when sub-kernels are copied (split-mode > 1): calls may jump far
# (facts §6.2).
CANN_SPLIT_FLAGS = (
    "-mllvm", "-cce-aicore-jump-expand=true",
    "--cce-long-call=true",
    "-mllvm", "-cce-aicore-long-call",
)

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


# A tuple, not a dataclass: importing dataclasses took 10 ms of every `sk link`.
class Tools(namedtuple("Tools", "flavor compiler linker objcopy")):
    """The tool paths of one toolchain flavour (any may be None if unused)."""

    __slots__ = ()

    def __new__(cls, flavor: str, compiler: str | None = None, linker: str | None = None,
                objcopy: str | None = None):
        if flavor not in FLAVORS:
            raise SkError("unknown toolchain flavour", where="--toolchain", value=flavor,
                          allowed="use one of: " + ", ".join(FLAVORS))
        return super().__new__(cls, flavor, compiler, linker, objcopy)

    def need(self, tool: str) -> str:
        path = getattr(self, tool)
        if not path:
            flag = {"compiler": "--compiler", "linker": "--ld", "objcopy": "--objcopy"}[tool]
            raise SkError(f"the {self.flavor} toolchain needs a {tool} for this step", where=flag,
                          allowed=f"pass {flag} PATH")
        return path


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
    split_calls: sub-kernel copies are linked in (split-mode > 1).
    host_opt: the host's optimisation flag, HOST_OPT unless given (the CANN
              argv is upstream's whatever it is).
    """
    _check_arch(arch, tools.flavor)
    compiler = tools.need("compiler")
    includes = [f"-I{d}" for d in include_dirs]
    if tools.flavor == CANN:
        argv = [compiler, "-c", "-O3", "-x", "cce", *includes, "--cce-disable-kernel-global-attr-check",
                *defines, *extra]
        if split_calls:
            argv += CANN_SPLIT_FLAGS
        argv += [src, CANN_ARCH_FLAG[arch], "--cce-aicore-only", "-o", out, *CANN_MLLVM_TAIL,
                 "-std=c++17", *tail]
        return argv
    # Host: -x c++ because Ascend sources are often named *.cce or *.asc.
    return [compiler, "-c", "-std=c++17", host_opt or HOST_OPT, "-fPIC", "-x", "c++", *includes,
            *HOST_TWIN_DEFINES, *HOST_ARCH_DEFINES.get(arch, ()), *defines, *extra, *tail, src, "-o", out]


def entry_compile_argv(tools: Tools, src: str, out: str, *, arch: str, defines=(), include_dirs=(), extra=(),
                       tail=()) -> list[str]:
    """One half of the generated SuperKernel source (`sk entry compile`).

    CANN: compile_argv's, upstream's entry compile (facts §6.3). Host: the
    same at HOST_ENTRY_OPT; user copts in `extra` still come after it.
    """
    return compile_argv(tools, src, out, arch=arch, defines=defines, include_dirs=include_dirs, extra=extra,
                        tail=tail, host_opt=HOST_ENTRY_OPT)


def translate_flags(flavor: str, flags) -> list[str]:
    """The engine's SK compile flags (upstream's bisheng flags) for this flavour.

    The CANN argv adds --cce-disable-kernel-global-attr-check at its fixed
    place, so the copy in the list is dropped; the host compiler gets neither
    bisheng's --cce-* options nor -mllvm pairs (they tune the NPU backend).
    """
    out, skip = [], False
    for flag in flags:
        if skip:
            skip = False
            continue
        if flag == "--cce-disable-kernel-global-attr-check":
            continue
        if flavor == HOST and flag == "-mllvm":
            skip = True
            continue
        if flavor == HOST and flag.startswith("--cce-"):
            continue
        out.append(flag)
    return out


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
                  strip_groups: bool) -> list[str]:
    """One objcopy that makes the symbols listed in symbols_file local.

    strip_groups removes the COMDAT group sections, keeping their members as
    ordinary sections. That is what makes localised inline/template functions
    safe: otherwise `ld -r` of two objects (two sub-kernels, two split copies,
    the cube and vector halves) would keep one group and leave the other
    object's now-local references pointing into a discarded section, or pick
    one copy of an inline compiled with different macros (block num!).
    """
    objcopy = tools.need("objcopy")
    argv = [objcopy]
    if symbols_file:
        argv.append(f"--localize-symbols={symbols_file}")
    if strip_groups:
        argv.append("--remove-section=.group")
    return argv + [src, dst]


def redefine_argv(tools: Tools, src: str, dst: str, renames) -> list[str]:
    """One objcopy that writes a copy of src with symbols renamed (old, new)."""
    objcopy = tools.need("objcopy")
    return [objcopy, *[f"--redefine-sym={old}={new}" for old, new in renames], src, dst]
