"""Exact argv of both flavours; CANN's is pinned to facts §6 token by token."""

import pathlib

import pytest

from sk.toolflow import toolargv
from sk.base.errors import SkError

CANN = toolargv.Tools("cann", compiler="/cann/bin/bisheng", linker="/cann/bin/ld.lld",
                      objcopy="/cann/bin/llvm-objcopy")
HOST = toolargv.Tools("host", compiler="/usr/bin/g++", linker="/usr/bin/ld", objcopy="/usr/bin/objcopy")

MLLVM_TAIL = [
    "-mllvm", "-cce-aicore-stack-size=0x8000",
    "-mllvm", "-cce-aicore-function-stack-size=0x8000",
    "-mllvm", "-cce-aicore-record-overflow=false",
    "-mllvm", "-cce-aicore-addr-transform",
    "-mllvm", "-cce-aicore-dcci-insert-for-scalar=false",
]


def test_cann_sk_entry_compile_cube_half_matches_upstream():
    # The plan's list as upstream's compile_super_kernel holds it: SK defines, the user's
    # compile-options, the attr-check flag (compile_pre_process), the dump size, the long-call flags.
    plan_flags = ["-D__ASCENDC_ENABLE_SET_NEXT_TASK_START", "-D__ASCENDC_ENABLE_WAIT_PRE_TASK_END",
                  "-D__ASCENDC_SUPERKERNEL_EARLY_START_V2", "-DASCENDC_DUMP", "-g",
                  "--cce-disable-kernel-global-attr-check", "-DONE_CORE_DUMP_SIZE=1048576.0",
                  *toolargv.CANN_SPLIT_FLAGS]
    defines, split_calls = toolargv.translate_flags("cann", plan_flags)
    assert split_calls
    argv = toolargv.entry_compile_argv(
        CANN, "te_sk_kernel.cpp", "out/te_sk_mix_aic.o", arch="cube", include_dirs=["/cann/asc/include"],
        defines=defines, split_calls=split_calls,
        tail=["-Dauto_gen_te_sk_kernel=te_sk_mix_aic", "-D__MIX_CORE_MACRO__=1", "-DTILING_KEY_VAR=0UL",
              toolargv.tiling_key_rename("te_sk")])
    assert argv == [
        "/cann/bin/bisheng", "-c", "-O3", "-x", "cce", "-I/cann/asc/include",
        "-D__ASCENDC_ENABLE_SET_NEXT_TASK_START", "-D__ASCENDC_ENABLE_WAIT_PRE_TASK_END",
        "-D__ASCENDC_SUPERKERNEL_EARLY_START_V2", "-DASCENDC_DUMP", "-g",
        "--cce-disable-kernel-global-attr-check", "-DONE_CORE_DUMP_SIZE=1048576.0",
        "te_sk_kernel.cpp", "--cce-aicore-arch=dav-c220-cube", "--cce-aicore-only", "-o", "out/te_sk_mix_aic.o",
        *MLLVM_TAIL,
        "-mllvm", "-cce-aicore-jump-expand=true", "--cce-long-call=true", "-mllvm", "-cce-aicore-long-call",
        "-std=c++17",
        "-Dauto_gen_te_sk_kernel=te_sk_mix_aic", "-D__MIX_CORE_MACRO__=1", "-DTILING_KEY_VAR=0UL",
        "-Dte_sk=te_sk_0_tilingkey",
    ]


def test_cann_c310_compile_names_the_chip_and_expands_jumps():
    c310 = toolargv.Tools("cann", compiler="/cann/bin/bisheng", chip="c310")
    argv = toolargv.compile_argv(c310, "k.cpp", "k.o", arch="vec")
    assert argv == ["/cann/bin/bisheng", "-c", "-O3", "-x", "cce", "--cce-disable-kernel-global-attr-check",
                    "k.cpp", "--cce-aicore-arch=dav-c310-vec", "-D__DAV_C310__", "--cce-aicore-only", "-o", "k.o",
                    *MLLVM_TAIL[:8], "-mllvm", "--cce-aicore-jump-expand=true", *MLLVM_TAIL[8:], "-std=c++17"]
    with pytest.raises(SkError, match="unknown chip"):
        toolargv.Tools("cann", compiler="/cann/bin/bisheng", chip="c100")


def test_host_flags_drop_the_npu_only_ones_and_report_the_long_calls():
    flags, split_calls = toolargv.translate_flags("host", ["-DX", "--cce-disable-kernel-global-attr-check",
                                                           *toolargv.CANN_SPLIT_FLAGS, "-mllvm", "-foo", "-g"])
    assert (flags, split_calls) == (["-DX", "-g"], True)
    assert toolargv.translate_flags("cann", ["-DX"]) == (["-DX"], False)


def test_split_entry_stub_and_copies_argv_are_upstreams():
    # Upstream (ADK gen_spk_kernel_call) runs ccec for the stub; the halves keep bisheng.
    assert toolargv.stub_compile_argv(CANN, "d/sk_0.cpp", "d/sk_0.o", arch="cube", include_dirs=["/i", "/j"],
                                      stub_compiler="/cann/bin/ccec") == [
        "/cann/bin/ccec", "-x", "cce", "-I/i", "-I/j", "-O3", "--cce-aicore-arch=dav-c220-cube", "--cce-aicore-only",
        "-mllvm", "-cce-aicore-addr-transform", "-mllvm", "-cce-aicore-dcci-insert-for-scalar=false",
        "-mllvm", "-cce-aicore-stack-size=0x8000", "-std=c++17", "-DTILING_KEY_VAR=0", "-o", "d/sk_0.o",
        "-c", "d/sk_0.cpp"]
    # Without a stub compiler the toolchain's compiler runs it.
    assert toolargv.stub_compile_argv(CANN._replace(chip="c310"), "s.cpp", "s.o", arch="vec")[:6] == [
        "/cann/bin/bisheng", "-x", "cce", "-D__DAV_C310__", "-O3", "--cce-aicore-arch=dav-c310-vec"]
    assert toolargv.redefine_in_place_argv(CANN, "k.o.split1.o", "k", "_sk_1") == [
        "/cann/bin/llvm-objcopy", "--redefine-sym", "k=_sk_1", "k.o.split1.o"]
    assert toolargv.strip_symbol_argv(CANN, "k.o.split1.o", "g_opSystemRunCfg") == [
        "/cann/bin/llvm-objcopy", "--strip-symbol=g_opSystemRunCfg", "k.o.split1.o"]


def test_cann_vec_compile_without_split_has_no_long_call_flags():
    argv = toolargv.compile_argv(CANN, "k.cpp", "k.o", arch="vec")
    assert argv == ["/cann/bin/bisheng", "-c", "-O3", "-x", "cce", "--cce-disable-kernel-global-attr-check",
                    "k.cpp", "--cce-aicore-arch=dav-c220-vec", "--cce-aicore-only", "-o", "k.o", *MLLVM_TAIL,
                    "-std=c++17"]


def test_cann_needs_an_arch():
    with pytest.raises(SkError, match="unknown core side"):
        toolargv.compile_argv(CANN, "k.cpp", "k.o", arch=None)


def test_cann_fatbin_link_is_upstream_ld_lld_r():
    assert toolargv.relocatable_link_argv(CANN, ["a.o", "b.o"], "sk.o", discard_locals=True) == [
        "/cann/bin/ld.lld", "-m", "aicorelinux", "-r", "-Ttext=0", "-q", "-x", "a.o", "b.o", "-static", "-o", "sk.o"]
    assert toolargv.relocatable_link_argv(CANN, ["a.o"], "sk.o") == [
        "/cann/bin/ld.lld", "-m", "aicorelinux", "-r", "-Ttext=0", "-q", "a.o", "-static", "-o", "sk.o"]


def test_cann_final_link_is_upstream_link_relocatable():
    assert toolargv.final_link_argv(CANN, "sk.o", "placed.o") == [
        "/cann/bin/ld.lld", "-m", "aicorelinux", "-Ttext=0", "sk.o", "-static", "-o", "placed.o", "-q"]
    assert toolargv.final_link_argv(HOST, "sk.o", "placed.o") is None


def test_cann_objcopy_split_copy_and_localise():
    assert toolargv.redefine_argv(CANN, "a.o", "a_split1.o", [("f", "f_split1")]) == [
        "/cann/bin/llvm-objcopy", "--redefine-sym=f=f_split1", "a.o", "a_split1.o"]
    assert toolargv.localize_argv(CANN, "in.o", "out.o", symbols_file="syms.txt", strip_groups=True) == [
        "/cann/bin/llvm-objcopy", "--localize-symbols=syms.txt", "--remove-section=.group", "in.o", "out.o"]


def test_host_compile_defines_the_twin_and_arch_macros():
    argv = toolargv.compile_argv(HOST, "k.cpp", "k.o", arch="vec", include_dirs=["rt/include"],
                                 defines=["-DX=1"], extra=["-O0"])
    assert argv == ["/usr/bin/g++", "-c", "-std=c++17", "-O2", "-fPIC", "-x", "c++", "-Irt/include",
                    "-D__CCE_KT_TEST__=1", "-D__CCE_AICORE__=220", "-D__DAV_C220__", "-D__NPU_ARCH__=2201",
                    "-D__DAV_C220_VEC__", "-D__DAV_VEC__", "-DX=1", "-O0", "k.cpp", "-o", "k.o"]
    both = toolargv.compile_argv(HOST, "k.cpp", "k.o", arch=None)
    assert not {"-D__DAV_C220_VEC__", "-D__DAV_C220_CUBE__", "-D__DAV_VEC__", "-D__DAV_CUBE__"} & set(both)


def test_host_link_and_objcopy():
    assert toolargv.relocatable_link_argv(HOST, ["a.o", "b.o"], "o.o") == ["/usr/bin/ld", "-r", "a.o", "b.o", "-o", "o.o"]
    assert toolargv.localize_argv(HOST, "i.o", "o.o", symbols_file=None, strip_groups=True) == [
        "/usr/bin/objcopy", "--remove-section=.group", "i.o", "o.o"]


def test_gnu_ld_hash_size_on_host_only():
    assert toolargv.relocatable_link_argv(HOST, ["a.o"], "o.o", hash_size=31) == [
        "/usr/bin/ld", "-r", "--hash-size=31", "a.o", "-o", "o.o"]
    assert "--hash-size=31" not in toolargv.relocatable_link_argv(CANN, ["a.o"], "o.o", hash_size=31)


def test_missing_tool_and_unknown_flavour_are_user_errors():
    with pytest.raises(SkError, match="--ld"):
        toolargv.relocatable_link_argv(toolargv.Tools("host"), ["a.o"], "o.o")
    with pytest.raises(SkError, match="unknown toolchain flavour"):
        toolargv.Tools("gcc")


RUNTIME_BZL = pathlib.Path(__file__).resolve().parents[1] / "runtime" / "copts.bzl"
TWIN_FLAGS = ["-std=c++17", "-fPIC", "-g", "-Wall", "-Wextra"]


def test_bazel_runtime_flags_are_rendered_from_here():
    assert RUNTIME_BZL.read_text() == toolargv.render_runtime_bzl(), (
        "sk/runtime/copts.bzl is stale: python -m sk.toolflow.toolargv > sk/runtime/copts.bzl")
    assert '"-std=c++17",\n    "-Wall",\n    "-Wextra",\n    "-Werror",\n]' in RUNTIME_BZL.read_text()
    assert 'RUNTIME_LINKOPTS = [\n    "-pthread",\n]' in RUNTIME_BZL.read_text()


def test_twin_cflags_plain_and_tsan():
    assert toolargv.twin_cflags("/rt/include") == [*TWIN_FLAGS, "-O2", "-I/rt/include", "-D__CCE_KT_TEST__=1"]
    assert toolargv.twin_cflags("/rt/include", tsan=True) == [
        *TWIN_FLAGS, "-O1", "-fsanitize=thread", "-I/rt/include", "-D__CCE_KT_TEST__=1"]


def test_twin_runtime_build_argv():
    assert toolargv.twin_runtime_compile_argv("g++", "src/a.cc", "t/a.o", include_dir="inc", source_dir="src") == [
        "g++", *TWIN_FLAGS, "-O2", "-Iinc", "-D__CCE_KT_TEST__=1", "-Werror", "-Isrc", "-c", "src/a.cc", "-o", "t/a.o"]
    assert toolargv.twin_runtime_link_argv("g++", ["a.o", "b.o"], "libskrt.so") == [
        "g++", "-shared", "-o", "libskrt.so", "a.o", "b.o", "-pthread"]
    assert toolargv.twin_runtime_link_argv("g++", ["a.o"], "libskrt_tsan.so", tsan=True) == [
        "g++", "-fsanitize=thread", "-shared", "-o", "libskrt_tsan.so", "a.o", "-pthread"]


def test_twin_kernel_library_compiles_and_links_symbolic():
    argv = toolargv.twin_kernel_library_argv("g++", ["k.cc", "h.o"], "k.so", include_dir="inc", include_dirs=["x"],
                                             defines=["BARRIER=1"], extra=["-DEXTRA"], tsan=True)
    assert argv == ["g++", *TWIN_FLAGS, "-O1", "-fsanitize=thread", "-Iinc", "-D__CCE_KT_TEST__=1",
                    "-D__CCE_AICORE__=220", "-D__NPU_ARCH__=2201", "-Ix", "-DBARRIER=1", "-include", "sk_twin_builtin_types.h", "-DEXTRA", "-shared", "-Wl,-Bsymbolic", "-o", "k.so", "k.cc", "h.o"]


def test_twin_compile_and_program_argv():
    assert toolargv.twin_compile_argv("g++", "g.cc", "g.o", include_dir="inc", extra=["-DX"]) == [
        "g++", *TWIN_FLAGS, "-O2", "-Iinc", "-D__CCE_KT_TEST__=1", "-DX", "-c", "g.cc", "-o", "g.o"]
    assert toolargv.twin_program_argv("g++", ["t.cc"], "t", include_dir="inc", runtime_lib="/b/libskrt.so",
                                      include_dirs=["tests"]) == [
        "g++", *TWIN_FLAGS, "-O2", "-Iinc", "-D__CCE_KT_TEST__=1", "-Werror", "-Itests", "t.cc", "-o", "t",
        "-L/b", "-l:libskrt.so", "-Wl,-rpath,/b", "-pthread"]


def test_twin_shared_library_points_the_driver_at_the_linker():
    # Bazel's SkTwinLib: exec-root-relative tools, no PATH in the pinned environment.
    tools = toolargv.Tools("host", compiler="external/h/bin/c++", linker="external/h/bin/ld")
    assert toolargv.twin_shared_argv(tools, ["a.o", "b.o"], "k.so") == [
        "external/h/bin/c++", "-Bexternal/h/bin/", "-shared", "-Wl,-Bsymbolic", "-o", "k.so", "a.o", "b.o"]
    # `sk run` without --ld: the driver's own ld; ThreadSanitizer flags after -Bsymbolic.
    assert toolargv.twin_shared_argv(toolargv.Tools("host", compiler="g++"), ["a.o"], "k.so",
                                     extra=toolargv.TSAN_FLAGS) == [
        "g++", "-shared", "-Wl,-Bsymbolic", "-O1", "-fsanitize=thread", "-o", "k.so", "a.o"]


def test_twin_shared_library_is_host_only():
    with pytest.raises(SkError, match="twin libraries are built with the host toolchain") as e:
        toolargv.twin_shared_argv(CANN, ["a.o"], "k.so")
    assert "--toolchain host" in str(e.value)


def test_cann_preprocess_is_the_compile_with_dash_e():
    """bisheng -E with every flag of the compile (facts §14.3: same defines, same arch macros)."""
    argv = toolargv.preprocess_argv(CANN, "add.cpp", "work/vec.i", arch="vec", include_dirs=["/cann/asc/include"],
                                    defines=["-D__ASCENDC_ENABLE_SUPER_KERNEL__",
                                             "-D__SUPER_KERNEL_STATIC_BLOCK_NUM__=8"], extra=["-DMY_FLAG=1"])
    assert argv == [
        "/cann/bin/bisheng", "-E", "-O3", "-x", "cce", "-I/cann/asc/include",
        "--cce-disable-kernel-global-attr-check",
        "-D__ASCENDC_ENABLE_SUPER_KERNEL__", "-D__SUPER_KERNEL_STATIC_BLOCK_NUM__=8", "-DMY_FLAG=1",
        "add.cpp", "--cce-aicore-arch=dav-c220-vec", "--cce-aicore-only", "-o", "work/vec.i", *MLLVM_TAIL,
        "-std=c++17",
    ]
    cube = toolargv.preprocess_argv(CANN, "add.cpp", "work/cube.i", arch="cube")
    assert cube[:2] == ["/cann/bin/bisheng", "-E"] and "--cce-aicore-arch=dav-c220-cube" in cube


def test_host_preprocess_is_the_compile_with_dash_e():
    argv = toolargv.preprocess_argv(HOST, "k.cpp", "k.i", arch=None, include_dirs=["rt/include"], defines=["-DX=1"])
    assert argv == ["/usr/bin/g++", "-E", "-std=c++17", "-O2", "-fPIC", "-x", "c++", "-Irt/include",
                    "-D__CCE_KT_TEST__=1", "-D__CCE_AICORE__=220", "-D__DAV_C220__", "-D__NPU_ARCH__=2201",
                    "-DX=1", "k.cpp", "-o", "k.i"]


def test_kernel_type_tail_is_upstream_s_per_type_defines():
    # ADK compile_op: __MIX_CORE_MACRO__ for KernelType 6 and 7, the 1:1 ratio for 6, then TILING_KEY_VAR.
    assert {k: toolargv.kernel_type_tail(k) for k in ("KERNEL_TYPE_AIV_ONLY", "KERNEL_TYPE_MIX_AIC_1_0",
                                                       "KERNEL_TYPE_MIX_AIC_1_1", "KERNEL_TYPE_MIX_AIC_1_2")} == {
        "KERNEL_TYPE_AIV_ONLY": ["-DTILING_KEY_VAR=0UL"],
        "KERNEL_TYPE_MIX_AIC_1_0": ["-DTILING_KEY_VAR=0UL"],
        "KERNEL_TYPE_MIX_AIC_1_1": ["-D__MIX_CORE_MACRO__=1", "-D__MIX_CORE_AIC_RATION__=1", "-DTILING_KEY_VAR=0UL"],
        "KERNEL_TYPE_MIX_AIC_1_2": ["-D__MIX_CORE_MACRO__=1", "-DTILING_KEY_VAR=0UL"],
    }
