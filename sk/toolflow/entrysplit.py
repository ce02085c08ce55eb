"""A split SuperKernel half: copies of its object and the entry stub that calls them (split-mode > 1).

Upstream (facts §6.6, ADK `split_spk_kernel_objs`, `super_kernel_gen_entry`,
`gen_spk_kernel_call`) does this to each compiled half `<k>.o` (k =
`<name>_mix_aic` / `<name>_mix_aiv`) before the link:

1. copies `<k>.o.split<i>.o` for i = 1 .. split-1, in each the entry renamed
   `<k>` -> `_sk_<suffix>_<i>` and `g_opSystemRunCfg` stripped;
2. the original's entry renamed `<k>` -> `_sk_<suffix>`;
3. an entry stub `sk_<n>.cpp` (n: the half's place among the SuperKernel's
   objects, cube first) that defines `<k>`: nine fixed instruction words and
   one `CALLR` per copy, and the one definition of `g_opSystemRunCfg` (the
   generated source defines it only at split-mode 1), compiled for the half's
   core side;
4. the link takes `sk_<n>.o, <k>.o, <k>.o.split1.o, ...` where it took `<k>.o`.

The same objects are made here with the same commands, once per half in the
cached `sk entry compile` action (upstream makes them in its link step, all
copies first, then the stubs). The stub has a second branch for the CPU twin
(`__CCE_KT_TEST__`), which the device compile never sees: the instruction
words only run on an AI core, so the twin calls copy `core id mod split`,
as the generated source picks a sub-kernel's copy (so every copy runs in a
launch of more than `split` cores).
"""

from __future__ import annotations

import os
import shutil

from sk.base.toolrun import run_tool
from sk.toolflow import toolargv

# The SuperKernel's system configuration, which an Ascend C kernel reads under L2_CACHE_HINT.
RUN_CFG = "g_opSystemRunCfg"

# The stub's instruction words before the calls (upstream's pre_insts, in order).
STUB_WORDS = ("0x02010880", "0x07020003", "0x00c0100a", "0x0a000000", "0x40200006", "0x0a000001",
              "0x40200005", "0x0a000002", "0x40200004")
CALL_INST = "CALLR"


def local_symbol(kernel_name: str, entry_symbol: str, copy: int) -> str:
    """The name the half's entry takes in copy `copy` (0: the original).

    Upstream replaces the first three `_`-separated words of `<k>` (GE names a
    SuperKernel `te_superkernel_<hash>`) by `_sk`; here the kernel name is
    replaced, which is the same for those names and keeps the two halves apart
    for any name. The names are localised in the final object.
    """
    base = "_sk" + entry_symbol[len(kernel_name):]
    return base if copy == 0 else f"{base}_{copy}"


def run_cfg_side(kernel_type: str) -> str:
    """The core side whose stub defines g_opSystemRunCfg: vector for a vector-only SuperKernel, else cube
    (upstream's gen_system_run_cfg, as the generated source does at split-mode 1)."""
    return "vec" if kernel_type in ("KERNEL_TYPE_AIV_ONLY", "KERNEL_TYPE_MIX_AIV_1_0") else "cube"


def stub_source(entry_symbol: str, copies: list[str], run_cfg_arch: str) -> str:
    """sk_<n>.cpp: `entry_symbol` calls the copies; g_opSystemRunCfg defined on `run_cfg_arch`'s side."""
    guard = "__DAV_VEC__" if run_cfg_arch == "vec" else "__DAV_CUBE__"
    lines = [
        '#include "kernel_operator.h"',
        f"#if (defined({guard}) && __NPU_ARCH__ == 2201)",
        f"    __gm__ struct OpSystemRunCfg {RUN_CFG} = {{0}};",
        "#else",
        f"    extern __gm__ struct OpSystemRunCfg {RUN_CFG};",
        "#endif",
        "",
    ]
    lines += [f'extern "C" __aicore__ void {fn}(void);' for fn in copies]
    lines += [f'extern "C" __aicore__ void {entry_symbol}(void) {{', "#if defined(__CCE_KT_TEST__)",
              f"    switch (get_coreid() % {len(copies)}) {{"]
    lines += [f"    case {i}: {fn}(); break;" for i, fn in enumerate(copies)]
    lines += ["    }", "#else", '    __asm__ volatile("\\n\\']
    lines += [f"        .long {word}\\n\\" for word in STUB_WORDS]
    lines += [f"        {CALL_INST} %{i}\\n\\" for i in range(len(copies))]
    lines += ['        "', "        :", "        : " + ", ".join(f'"l"(((int64_t){fn})/4)' for fn in copies),
              '        : "X0", "X1");', "#endif", "}", ""]
    return "\n".join(lines)


def split_half(tools: toolargv.Tools, obj: str, work: str, *, kernel_name: str, entry_symbol: str, arch: str,
               index: int, split: int, run_cfg_arch: str, include_dirs=(), stub_compiler: str | None = None,
               label: str = "") -> list[str]:
    """Makes the split set of the compiled half `obj` (named `<entry_symbol>.o`) in `work`.

    Returns the objects in link order: the stub sk_<index>.o, `obj` (renamed in
    place), its copies. Needs the toolchain's objcopy and compiler (the stub's: stub_compiler, upstream's
    `ccec`, else the compiler). The stub's
    source is written to `work` too and compiled from there by its bare name:
    the compiler records the source's path in the object, which must not be
    the scratch directory's random name, and nothing is ever written beside
    the outputs (a kill during the compile leaves no source there).
    """
    where = label or obj
    copies = [local_symbol(kernel_name, entry_symbol, i) for i in range(split)]
    made = []
    for i in range(1, split):
        copy = f"{obj}.split{i}.o"
        shutil.copyfile(obj, copy)
        run_tool(toolargv.redefine_in_place_argv(tools, copy, entry_symbol, copies[i]),
                 step=f"making split copy {i} of the SuperKernel half", where=where)
        run_tool(toolargv.strip_symbol_argv(tools, copy, RUN_CFG),
                 step=f"making split copy {i} of the SuperKernel half", where=where)
        made.append(copy)
    run_tool(toolargv.redefine_in_place_argv(tools, obj, entry_symbol, copies[0]),
             step="renaming the SuperKernel half for its entry stub", where=where)
    src, stub = f"sk_{index}.cpp", f"sk_{index}.o"
    with open(os.path.join(work, src), "w", encoding="utf-8", newline="\n") as f:
        f.write(stub_source(entry_symbol, copies, run_cfg_arch))
    # Run in `work`, so the paths the command had relative to ours are made absolute (they name no output).
    rooted = tools._replace(compiler=_absolute(tools.compiler))
    run_tool(toolargv.stub_compile_argv(rooted, src, stub, arch=arch,
                                        include_dirs=[os.path.abspath(d) for d in include_dirs],
                                        stub_compiler=_absolute(stub_compiler)),
             step="compiling the SuperKernel entry stub", where=where, cwd=work)
    return [os.path.join(work, stub), obj, *made]


def _absolute(tool: str | None) -> str | None:
    """A tool path relative to the working directory made absolute; a bare name (found on PATH) kept."""
    return os.path.abspath(tool) if tool and os.sep in tool else tool


def split_names(entry_object: str, index: int, split: int) -> list[str]:
    """The file names split_half leaves for the half `entry_object` (`<k>.o`), in link order."""
    return [f"sk_{index}.o", entry_object, *(f"{entry_object}.split{i}.o" for i in range(1, split))]
