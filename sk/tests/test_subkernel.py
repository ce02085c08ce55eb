"""SK-mode sub-kernel steps: macros, naming, the CLI, and errors."""

import json
import os

import pytest

from sk.binfmt import ar, objfacts
from sk.cli import main as cli
from sk.toolflow import subkernel
from sk.toolflow import syncscan
from sk.engine import kernel_types
from sk.engine.inherited import inherited
from sk.base.errors import SkError
from sk.tests.harness import HOST_TOOLS, needs_host_tools

HERE = os.path.dirname(os.path.abspath(__file__))
FIX = os.path.join(HERE, "fixtures")
MINI = os.path.join(FIX, "mini_rt")
GXX, LD, OBJCOPY = HOST_TOOLS["g++"], HOST_TOOLS["ld"], HOST_TOOLS["objcopy"]


def test_sk_defines_follow_upstream_per_location_option_and_scan():
    opts = inherited("")
    both = syncscan.SyncCalls(sync_all=False, set_next_task_start=True, wait_pre_task_end=True)
    assert subkernel.sk_defines(8, opts, "", "middle", both) == [
        "-D__ASCENDC_ENABLE_SUPER_KERNEL__", "-D__SUPER_KERNEL_STATIC_BLOCK_NUM__=8",
        "-D__ASCENDC_SUPERKERNEL_EARLY_START_V2", "-D__ASCENDC_ENABLE_SET_NEXT_TASK_START",
        "-D__ASCENDC_ENABLE_WAIT_PRE_TASK_END", "-D__ASCENDC_SUPER_KERNEL_ENABLE_GM_GET_SET_VALUE_DCCI__"]
    # An op that calls neither API gets neither enable (facts §14.3).
    assert subkernel.sk_defines(8, opts, "", "middle") == [
        "-D__ASCENDC_ENABLE_SUPER_KERNEL__", "-D__SUPER_KERNEL_STATIC_BLOCK_NUM__=8",
        "-D__ASCENDC_SUPERKERNEL_EARLY_START_V2", "-D__ASCENDC_SUPER_KERNEL_ENABLE_GM_GET_SET_VALUE_DCCI__"]
    set_only = subkernel.sk_defines(8, opts, "", "middle", both._replace(wait_pre_task_end=False))
    assert "-D__ASCENDC_ENABLE_SET_NEXT_TASK_START" in set_only
    assert "-D__ASCENDC_ENABLE_WAIT_PRE_TASK_END" not in set_only
    start = subkernel.sk_defines(8, opts, "", "start", both)
    assert "-D__ASCENDC_ENABLE_WAIT_PRE_TASK_END" not in start and "-D__ASCENDC_ENABLE_SET_NEXT_TASK_START" in start
    end = subkernel.sk_defines(8, opts, "", "end", both)
    assert "-D__ASCENDC_ENABLE_SET_NEXT_TASK_START" not in end
    off = subkernel.sk_defines(2, inherited("early-start=0:feed-sync-all=1"), "", "middle", both)
    assert off == ["-D__ASCENDC_ENABLE_SUPER_KERNEL__", "-D__SUPER_KERNEL_STATIC_BLOCK_NUM__=2",
                   "-D__ASCENDC_SUPERKERNEL_AUTO_SYNC_ALL__",
                   "-D__ASCENDC_SUPER_KERNEL_ENABLE_GM_GET_SET_VALUE_DCCI__"]
    assert not any("EARLY_START" in d for d in subkernel.sk_defines(2, inherited("early-start=2"), "", "middle", both))
    assert not any("EARLY_START" in d or "TASK" in d
                   for d in subkernel.sk_defines(2, inherited("stream-fusion=1"), "", "middle", both))
    dcci = inherited("dcci-disable-on-kernel=Gmm,Add")
    assert "-D__ASCENDC_SUPER_KERNEL_ENABLE_GM_GET_SET_VALUE_DCCI__" not in subkernel.sk_defines(1, dcci, "Add", "middle")
    assert "-D__ASCENDC_SUPER_KERNEL_ENABLE_GM_GET_SET_VALUE_DCCI__" in subkernel.sk_defines(1, dcci, "Mul", "middle")


def test_function_names_per_flavour_and_kernel_type():
    mix = kernel_types.lookup("MIX_AIC_1_2", "test")
    assert subkernel.func_names("gmm", mix, "host", "middle") == {"cube": "gmm_middle", "vec": "gmm_middle"}
    assert subkernel.func_names("gmm", mix, "cann", "end") == {"cube": "gmm_mix_aic_end", "vec": "gmm_mix_aiv_end"}
    assert subkernel.func_names("k", kernel_types.lookup("KERNEL_TYPE_AIV_ONLY", "test"), "cann", "start") == {
        "vec": "k_start"}
    assert subkernel.compile_units("cann", mix) == ("cube", "vec")
    assert subkernel.compile_units("host", mix) == (None,)


def test_wrapper_source_reads_params_in_order():
    src = subkernel.wrapper_source("kern", ["x_in__", "y_out_"], {None: "kern_middle"},
                                   kernel_types.lookup("AIV_ONLY", "test"))
    assert 'extern "C" __aicore__ void kern_middle(uint64_t args_offset)' in src
    assert src.index("GM_ADDR p0_x_in__ = param_base[args_offset++];") < src.index(
        "GM_ADDR p1_y_out_ = param_base[args_offset++];")
    assert "kern(p0_x_in__, p1_y_out_);" in src


def test_unknown_kernel_type_and_bad_location_are_user_errors():
    with pytest.raises(SkError, match="unsupported kernel type"):
        kernel_types.lookup("VECTORCORE", "test")
    with pytest.raises(SkError, match="scope location"):
        subkernel.check_loc("first")
    with pytest.raises(SkError, match="split mode disagrees"):
        subkernel.check_split_mode(2, "split-mode=4")


@needs_host_tools
@pytest.mark.parametrize("soc, chip", [(None, "c220"), ("Ascend910B2", "c220"), ("Ascend950PR_9579", "c310")])
def test_cli_mix_kernel_on_host_names_both_sides_and_one_object(tmp_path, capsys, soc, chip):
    # pack's --soc (the toolchain's) keys a MIX op's code by its chip, as upstream's sub-kernel compile does.
    doc = _build_kern_a(tmp_path, "KERNEL_TYPE_MIX_AIC_1_2", "split-mode=1", soc=soc)
    assert doc["sub_operator_kernel_name"] == {
        f"dav-{chip}-cube": {"func_name": "kern_a_middle", "obj_files": "kern_a.o"},
        f"dav-{chip}-vec": {"func_name": "kern_a_middle", "obj_files": "kern_a.o"}}
    assert doc["coreType"] == "MIX" and doc["intercoreSync"] == 1 and doc["split_mode"] == 1
    assert [m for m, _ in ar.read_members(str(tmp_path / "out" / "kern_a.o"))] == ["kern_a.o"]


@needs_host_tools
def test_cli_errors_are_one_paragraph_with_exit_2(tmp_path, capsys):
    code = cli.main(["subkernel", "compile", "--toolchain", "host", "--compiler", GXX, "--kernel-type", "AIV_ONLY",
                     "--block-dim", "1", "--options", "", "-o", str(tmp_path / "k.o"),
                     os.path.join(FIX, "helper_a.cpp")])  # no include dir: kernel_operator.h is missing
    assert code == 2
    err = capsys.readouterr().err
    # The preprocess for the sync-call scan is the first step to meet the missing header.
    assert "preprocessing the kernel (sync-call scan) failed" in err and "kernel_operator.h" in err
    assert "Traceback" not in err
    assert not (tmp_path / "k.o").exists()
    code = cli.main(["subkernel", "compile", "--toolchain", "host", "--compiler", GXX, "--kernel-type", "AIV_ONLY",
                     "--block-dim", "1", "--options", "split-mode=99", "-o", str(tmp_path / "k.o"),
                     os.path.join(FIX, "helper_a.cpp")])
    assert code == 2 and "split-mode" in capsys.readouterr().err


@needs_host_tools
def test_packed_facts_spare_gen_the_parse_and_change_nothing(tmp_path):
    from sk.binfmt import objfacts
    from sk.engine import plan
    from sk.engine import platforms
    from sk.engine import subop

    doc = _build_kern_a(tmp_path, "KERNEL_TYPE_AIV_ONLY", "split-mode=2")
    facts = doc[objfacts.FACTS_KEY]
    assert sorted(facts["members"]) == ["kern_a.o", "kern_a_split1.o"]
    assert facts["members"]["kern_a_split1.o"]["functions"] == ["kern_a_middle_split1"]

    def load(meta):
        (tmp_path / "out" / "op.json").write_text(json.dumps(meta))
        infos = {"kernel_name": "sk", "super_kernel_options": "split-mode=2",
                 "op_list": [{"bin_path": "out/kern_a.o", "json_path": "out/op.json", "stream_id": 0}]}
        (tmp_path / "ki.json").write_text(json.dumps(infos))
        ki = subop.load_kernel_infos(str(tmp_path / "ki.json"))
        return ki, plan.build_plan(ki, platforms.get_platform(None))

    with_facts, plan_facts = load(doc)
    assert with_facts.ops[0]._objects._parsed
    without = {k: v for k, v in doc.items() if k != objfacts.FACTS_KEY}
    parsed, plan_parsed = load(without)
    assert not parsed.ops[0]._objects._parsed
    assert with_facts == parsed and plan_facts.to_json() == plan_parsed.to_json()
    # Facts of other bytes are not believed: the archive is parsed and its truth reported.
    stale = json.loads(json.dumps(doc))
    stale[objfacts.FACTS_KEY]["sha256"] = "0" * 64
    stale["sub_operator_kernel_name"]["AiCore"]["func_name"] = "not_there"
    stale[objfacts.FACTS_KEY]["members"]["kern_a.o"]["symbols"].append("not_there")
    stale[objfacts.FACTS_KEY]["members"]["kern_a.o"]["functions"].append("not_there")
    with pytest.raises(SkError, match="does not define the sub-kernel entry symbol"):
        load(stale)


def _build_kern_a(tmp_path, kernel_type: str, options: str, soc=None) -> dict:
    """compile + wrap + pack of fixtures/helper_a.cpp into out/kern_a.o; returns the sub-op JSON."""
    common = ["--toolchain", "host", "--kernel-type", kernel_type, "--block-dim", "2", "--options", options,
              *(["--soc", soc] if soc else [])]
    src = os.path.join(FIX, "helper_a.cpp")
    scan = str(tmp_path / "k.sync.json")
    assert cli.main(["subkernel", "compile", *common, "--compiler", GXX, "--include", MINI,
                     "--sync-out", scan, "-o", str(tmp_path / "k.o"), src]) == 0
    assert cli.main(["subkernel", "wrap", *common, "--compiler", GXX, "--include", MINI, "--entry", "kern_a",
                     "--param", "in", "--param", "out", "--kernel-obj", str(tmp_path / "k.o"),
                     "--sync-scan", scan, "-o", str(tmp_path / "w.o")]) == 0
    assert cli.main(["subkernel", "pack", *common, "--ld", LD, "--objcopy", OBJCOPY, "--entry", "kern_a",
                     "--param", "in", "--param", "out", "--kernel-obj", str(tmp_path / "k.o"), "--sync-scan", scan,
                     "--wrapper-obj", str(tmp_path / "w.o"), "--out-obj", str(tmp_path / "out" / "kern_a.o"),
                     "--out-json", str(tmp_path / "out" / "kern_a.json")]) == 0
    return json.loads((tmp_path / "out" / "kern_a.json").read_text())


# ---------------------------------------------------------------- sync-call scan (facts §14.3)

SCAN_KERNEL = """#include "kernel_operator.h"
extern "C" __global__ __aicore__ void kern(GM_ADDR in, GM_ADDR out) {
    %s
    *(int32_t*)out = *(int32_t*)in + 1;
    %s
}
"""


def _sk_sub(tmp_path, before, after, *, options="", loc="middle", kernel_type="AIV_ONLY", prelude=""):
    """compile + wrap + pack against the twin's own header; returns (sub-op JSON, compile argv).

    prelude: file-scope code after the #include."""
    from sk.toolflow import toolargv
    from sk.twin import binding

    src = tmp_path / "kern.cpp"
    include, body = (SCAN_KERNEL % (before, after)).split("\n", 1)
    src.write_text(f"{include}\n{prelude}\n{body}")
    kt = kernel_types.lookup(kernel_type, "test")
    tools = toolargv.Tools("host", compiler=GXX, linker=LD, objcopy=OBJCOPY)
    inc = [str(binding.INCLUDE_DIR)]
    scan = str(tmp_path / "k.sync.json")
    ran = subkernel.compile_source(tools, str(src), str(tmp_path / "k.o"), kt=kt, block_dim=2, options=options,
                                   loc=loc, include_dirs=inc, sync_out=scan)
    subkernel.wrap(tools, entry="kern", name="kern", params=["in", "out"], kt=kt, block_dim=2, options=options,
                   op_type="", loc=loc, kernel_obj=str(tmp_path / "k.o"), out=str(tmp_path / "w.o"),
                   sync_scan=scan, include_dirs=inc)
    doc = subkernel.pack(tools, kernel_obj=str(tmp_path / "k.o"), wrapper_obj=str(tmp_path / "w.o"), entry="kern",
                         name="kern", kt=kt, block_dim=2, params=["in", "out"], options=options, op_type="", loc=loc,
                         out_obj=str(tmp_path / "out" / "kern.o"), out_json=str(tmp_path / "out" / "kern.json"),
                         sync_scan=scan)
    return doc, ran


@pytest.mark.parametrize("options", ["", "early-start=0", "stream-fusion=1"])
def test_a_tiling_sink_kernel_s_early_start_flags_are_its_scan_s_whatever_the_options(options):
    # The ADK reads them from the preprocessed source of any SK-mode compile, and the SuperKernel refuses
    # a dynamic op with either (upstream gen_dynamic_op_call_func); set only under early-start, the
    # calls would be compiled out silently.
    kt = kernel_types.lookup("KERNEL_TYPE_AIV_ONLY", "test")
    common = dict(stem="d", name="d", kt=kt, block_dim=0, params=["a"], opts=inherited(options), op_type="",
                  loc="middle", units=[], tiling_keys=(1, 2))
    both = syncscan.SyncCalls(sync_all=False, set_next_task_start=True, wait_pre_task_end=True)
    doc = subkernel.sub_op_json(calls=both, **common)
    assert doc["sub_operator_early_start_set_flag"] is True and doc["sub_operator_early_start_wait_flag"] is True
    doc = subkernel.sub_op_json(calls=both._replace(wait_pre_task_end=False), **common)
    assert (doc["sub_operator_early_start_set_flag"], doc["sub_operator_early_start_wait_flag"]) == (True, False)
    doc = subkernel.sub_op_json(calls=syncscan.NONE, **common)
    assert not doc["sub_operator_early_start_set_flag"] and not doc["sub_operator_early_start_wait_flag"]

@needs_host_tools
def test_inline_variables_and_statics_of_inline_functions_are_localised(tmp_path):
    # g++ binds both STB_GNU_UNIQUE, which GNU objcopy does not localise: two sub-kernels (or the two
    # halves of an entry) that both hold one would collide in the SuperKernel's ld -r.
    prelude = ("inline int g_rounds = 3;\n"
               "inline int next_id() { static int n; return ++n; }")
    doc, _ = _sk_sub(tmp_path, "for (int r = 0; r < g_rounds; ++r) next_id();", "", prelude=prelude)
    packed = ar.by_name(ar.read_members(str(tmp_path / "out" / "kern.o")))
    info = objfacts.object_info(packed["kern.o"], "kern.o")
    assert [s.name for s in info.defined_globals()] == [doc["sub_operator_kernel_name"]["AiCore"]["func_name"]]
    kept = {s.name: s.bind for s in info.symbols if s.name in ("g_rounds", "_ZZ7next_idvE1n")}
    assert kept == {"g_rounds": "LOCAL", "_ZZ7next_idvE1n": "LOCAL"}


@needs_host_tools
def test_a_templated_sync_all_call_reaches_the_sub_op_json(tmp_path):
    doc, ran = _sk_sub(tmp_path, "AscendC::SyncAll<true>();", "", options="feed-sync-all=1")
    assert doc["sub_op_with_sync_all"] is True
    assert not doc["sub_operator_early_start_set_flag"] and not doc["sub_operator_early_start_wait_flag"]
    # Preprocess first (its output scanned), then the compile.
    assert [argv[1] for argv in ran] == ["-E", "-E", "-c"]  # cube and vector texts, then the one compile


@needs_host_tools
def test_one_bare_sync_all_call_beats_the_header_declarations(tmp_path):
    doc, _ = _sk_sub(tmp_path, "AscendC::SyncAll();", "")
    assert doc["sub_op_with_sync_all"] is True


@needs_host_tools
def test_a_kernel_without_calls_gets_no_flags_and_no_enables(tmp_path):
    doc, ran = _sk_sub(tmp_path, "", "")
    assert not doc["sub_op_with_sync_all"]
    assert not doc["sub_operator_early_start_set_flag"] and not doc["sub_operator_early_start_wait_flag"]
    assert not any("TASK" in tok for tok in ran[-1])


@needs_host_tools
@pytest.mark.parametrize("loc,set_flag,wait_flag", [("start", True, False), ("middle", True, True),
                                                    ("end", False, True)])
def test_early_start_calls_set_the_flags_and_enables_per_location(tmp_path, loc, set_flag, wait_flag):
    doc, ran = _sk_sub(tmp_path, "AscendC::WaitPreTaskEnd();", "AscendC::SetNextTaskStart();", loc=loc)
    assert (doc["sub_operator_early_start_set_flag"], doc["sub_operator_early_start_wait_flag"]) == (set_flag,
                                                                                                       wait_flag)
    assert ("-D__ASCENDC_ENABLE_SET_NEXT_TASK_START" in ran[-1]) == set_flag
    assert ("-D__ASCENDC_ENABLE_WAIT_PRE_TASK_END" in ran[-1]) == wait_flag
    # The preprocess ran without the enables it decides.
    assert not any("ENABLE_SET_NEXT" in tok or "ENABLE_WAIT_PRE" in tok for tok in ran[0])
    assert not doc["sub_op_with_sync_all"]


@needs_host_tools
def test_stream_fusion_keeps_early_start_calls_from_the_flags(tmp_path):
    doc, ran = _sk_sub(tmp_path, "AscendC::WaitPreTaskEnd();", "AscendC::SetNextTaskStart();",
                       options="stream-fusion=1")
    assert not doc["sub_operator_early_start_set_flag"] and not doc["sub_operator_early_start_wait_flag"]
    assert not any("EARLY_START" in tok or "TASK" in tok for tok in ran[-1])


@needs_host_tools
def test_the_object_cross_check_fails_loudly_when_the_scan_misses_a_call(tmp_path):
    """A kernel that calls the twin runtime directly hides the call from the scan: pack says so on the host."""
    with pytest.raises(SkError, match="calls sk_twin_sync_all but the preprocessed source shows no sync_all"):
        _sk_sub(tmp_path, "::sk_twin_sync_all(1, 0);", "")


@needs_host_tools
def test_cli_plain_compile_refuses_a_scan_output(tmp_path, capsys):
    code = cli.main(["subkernel", "compile", "--toolchain", "host", "--compiler", GXX, "--kernel-type", "AIV_ONLY",
                     "--block-dim", "1", "--plain", "--sync-out", str(tmp_path / "s.json"),
                     "-o", str(tmp_path / "k.o"), os.path.join(FIX, "helper_a.cpp")])
    assert code == 2 and "a plain compile is not scanned" in capsys.readouterr().err


FAKE_BISHENG = """#!/bin/sh
# Stands in for bisheng, which cannot run here: logs its argv; -E writes the
# source as its "preprocessed" text (plus what Ascend C's headers contribute),
# -c writes an empty object.
printf '%s\\n' "$*" >> "$LOG"
out=""; src=""; mode=""
while [ $# -gt 0 ]; do
  case "$1" in
    -o) out="$2"; shift ;;
    -E|-c) mode="$1" ;;
    *.cpp) src="$1" ;;
  esac
  shift
done
if [ "$mode" = "-E" ]; then
  { cat "$src"; echo "void SyncAll(); void SetNextTaskStart(); void WaitPreTaskEnd();"; } > "$out"
else
  : > "$out"
fi
"""


def _fake_bisheng(tmp_path, monkeypatch):
    """(a bisheng that logs its argv, the log): the CANN argv without a toolkit."""
    bisheng = tmp_path / "bisheng"
    bisheng.write_text(FAKE_BISHENG)
    bisheng.chmod(0o755)
    log = tmp_path / "argv.log"
    monkeypatch.setenv("LOG", str(log))
    return bisheng, log


def test_cann_compile_preprocesses_each_side_then_compiles_with_the_scan(tmp_path, monkeypatch):
    """The CANN order of steps and argv, run by a logging stand-in for bisheng."""
    from sk.toolflow import toolargv

    bisheng, log = _fake_bisheng(tmp_path, monkeypatch)
    src = tmp_path / "gmm.cpp"
    src.write_text(SCAN_KERNEL % ("AscendC::WaitPreTaskEnd();", "AscendC::SyncAll<false>();"))
    mix = kernel_types.lookup("MIX_AIC_1_2", "test")
    tools = toolargv.Tools("cann", compiler=str(bisheng))
    scan = tmp_path / "gmm.sync.json"
    ran = subkernel.compile_source(tools, str(src), str(tmp_path / "gmm.o"), kt=mix, block_dim=24, options="",
                                   loc="middle", include_dirs=["/cann/asc/include"], sync_out=str(scan))
    assert [line.split() for line in log.read_text().splitlines()] == [argv[1:] for argv in ran]
    base = ["-D__ASCENDC_ENABLE_SUPER_KERNEL__", "-D__SUPER_KERNEL_STATIC_BLOCK_NUM__=24",
            "-D__ASCENDC_SUPERKERNEL_EARLY_START_V2"]
    dcci = ["-D__ASCENDC_SUPER_KERNEL_ENABLE_GM_GET_SET_VALUE_DCCI__"]
    work = [os.path.dirname(argv[argv.index("-o") + 1]) for argv in ran]
    # A MIX 1:2 kernel ends each side's compile as upstream's op compile does (ADK compile_op).
    mix_tail = ["-D__MIX_CORE_MACRO__=1", "-DTILING_KEY_VAR=0UL"]
    assert ran == [
        toolargv.preprocess_argv(tools, str(src), os.path.join(work[0], "cube.i"), arch="cube",
                                 defines=base + dcci + mix_tail, include_dirs=["/cann/asc/include"]),
        toolargv.preprocess_argv(tools, str(src), os.path.join(work[1], "vec.i"), arch="vec",
                                 defines=base + dcci + mix_tail, include_dirs=["/cann/asc/include"]),
        toolargv.compile_argv(tools, str(src), os.path.join(work[2], "cube.o"), arch="cube",
                              defines=base + ["-D__ASCENDC_ENABLE_WAIT_PRE_TASK_END"] + dcci,
                              include_dirs=["/cann/asc/include"], tail=mix_tail),
        toolargv.compile_argv(tools, str(src), os.path.join(work[3], "vec.o"), arch="vec",
                              defines=base + ["-D__ASCENDC_ENABLE_WAIT_PRE_TASK_END"] + dcci,
                              include_dirs=["/cann/asc/include"], tail=mix_tail),
    ]
    assert ran[2][-2:] == mix_tail
    doc = json.loads(scan.read_text())
    assert (doc["sync_all"], doc["set_next_task_start"], doc["wait_pre_task_end"]) == (True, False, True)
    assert sorted(doc["counts"]) == ["cube", "vec"]


def test_cann_scan_of_a_vector_kernel_joins_both_sides_and_finds_one_bare_call(tmp_path, monkeypatch):
    """Upstream preprocesses cube and vector for every kernel and counts in the two texts joined, where
    Ascend C's headers hold one declaration each: one `SetNextTaskStart();` is then found."""
    from sk.toolflow import toolargv

    bisheng, _ = _fake_bisheng(tmp_path, monkeypatch)
    src = tmp_path / "add.cpp"
    src.write_text(SCAN_KERNEL % ("", "AscendC::SetNextTaskStart();"))
    scan = tmp_path / "add.sync.json"
    ran = subkernel.compile_source(toolargv.Tools("cann", compiler=str(bisheng)), str(src), str(tmp_path / "add.o"),
                                   kt=kernel_types.lookup("AIV_ONLY", "test"), block_dim=8, options="",
                                   loc="middle", sync_out=str(scan))
    assert [(argv[1], next(a for a in argv if a.startswith("--cce-aicore-arch="))) for argv in ran] == [
        ("-E", "--cce-aicore-arch=dav-c220-cube"), ("-E", "--cce-aicore-arch=dav-c220-vec"),
        ("-c", "--cce-aicore-arch=dav-c220-vec")]
    doc = json.loads(scan.read_text())
    assert doc["set_next_task_start"] is True and doc["sync_all"] is False
    assert "-D__ASCENDC_ENABLE_SET_NEXT_TASK_START" in ran[-1]


def test_cann_compile_of_a_tiling_sink_kernel_builds_one_variant_per_key(tmp_path, monkeypatch):
    """As the ADK compiles a multi-tiling-key kernel: one compile per key with TILING_KEY_VAR=<key>UL and
    the entry renamed per key; SK mode with the dynamic block number, no early start and no GetValue dcci."""
    from sk.toolflow import toolargv

    bisheng, log = _fake_bisheng(tmp_path, monkeypatch)
    src = tmp_path / "gmm.cpp"
    src.write_text(SCAN_KERNEL % ("", ""))
    aiv = kernel_types.lookup("AIV_ONLY", "test")
    tools = toolargv.Tools("cann", compiler=str(bisheng))
    ran = subkernel.compile_source(tools, str(src), str(tmp_path / "gmm.o"), kt=aiv, block_dim=24, options="",
                                   loc="middle", include_dirs=["/cann/asc/include"],
                                   sync_out=str(tmp_path / "gmm.sync.json"), tiling_keys=[2, 5], entry="gmm")
    assert [line.split() for line in log.read_text().splitlines()] == [argv[1:] for argv in ran]
    compiles = [argv for argv in ran if "-c" in argv]
    assert len(compiles) == 2
    for key, argv in zip((2, 5), compiles):
        assert argv[-1:] == [f"-DTILING_KEY_VAR={key}UL"] and f"-Dgmm=gmm_{key}" in argv
        assert "-D__SUPER_KERNEL_DYNAMIC_BLOCK_NUM__" in argv
        assert not any(a.startswith(("-D__SUPER_KERNEL_STATIC_BLOCK_NUM__", "-D__ASCENDC_SUPERKERNEL_EARLY_START",
                                     "-D__ASCENDC_SUPER_KERNEL_ENABLE_GM_GET_SET_VALUE_DCCI__")) for a in argv)
    assert ar.is_archive((tmp_path / "gmm.o").read_bytes())
    assert sorted(n for n, _ in ar.members((tmp_path / "gmm.o").read_bytes(), "gmm.o")) == ["vec.k2.o", "vec.k5.o"]


def test_a_tiling_sink_kernel_packs_upstream_s_dynamic_form(tmp_path):
    """Host flavour end to end: compile per key, wrap, pack -> dynamic_func_names only, split copies with
    every key's function renamed, no early start, dcci before and after."""
    from sk.toolflow import toolargv

    src = tmp_path / "k.cpp"
    src.write_text('#include "kernel_operator.h"\nextern "C" __global__ __aicore__ void k(GM_ADDR x, GM_ADDR w, '
                   'GM_ADDR t) { if (TILING_KEY_IS(1)) { x[0] = 1; } else if (TILING_KEY_IS(4)) { x[0] = 4; } }\n')
    aiv = kernel_types.lookup("AIV_ONLY", "test")
    from sk.twin import binding as twin

    from sk.tests.harness import HOST_TOOLS

    if not all(HOST_TOOLS.values()):
        pytest.skip("needs g++, ld and objcopy on PATH")
    tools = toolargv.Tools("host", compiler=HOST_TOOLS["g++"], linker=HOST_TOOLS["ld"], objcopy=HOST_TOOLS["objcopy"])
    common = dict(kt=aiv, block_dim=8, options="split-mode=2", op_type="G", loc="middle")
    inc = [str(twin.INCLUDE_DIR)]
    subkernel.compile_source(tools, str(src), str(tmp_path / "k.o"), include_dirs=inc, sync_out=str(tmp_path / "s.json"),
                             tiling_keys=[1, 4], entry="k", **common)
    subkernel.wrap(tools, entry="k", name="k", params=["x", "workspace", "tiling"], kernel_obj=str(tmp_path / "k.o"),
                   out=str(tmp_path / "w.o"), include_dirs=inc, sync_scan=str(tmp_path / "s.json"), tiling_keys=[1, 4],
                   **common)
    doc = subkernel.pack(tools, kernel_obj=str(tmp_path / "k.o"), wrapper_obj=str(tmp_path / "w.o"), entry="k",
                         name="k", params=["x", "workspace", "tiling"], out_obj=str(tmp_path / "k_middle.o"),
                         out_json=str(tmp_path / "k_middle.json"), sync_scan=str(tmp_path / "s.json"),
                         tiling_keys=[1, 4], **common)
    assert doc["sub_operator_kernel_name"] == {"dynamic_func_names": {
        "1": {"AiCore": "k_middle_1", "kernel_type": "KERNEL_TYPE_AIV_ONLY"},
        "4": {"AiCore": "k_middle_4", "kernel_type": "KERNEL_TYPE_AIV_ONLY"}}}
    assert (doc["sub_operator_early_start_set_flag"], doc["sub_operator_call_dcci_before_kernel_start"],
            doc["sub_operator_call_dcci_after_kernel_end"]) == (False, True, True)
    members = dict(ar.members((tmp_path / "k_middle.o").read_bytes(), "k_middle.o"))
    assert sorted(members) == ["k_middle.o", "k_middle_split1.o"]
    copy = objfacts.object_info(members["k_middle_split1.o"], "copy", "copy", sub_kernel=True)
    assert {"k_middle_1_split1", "k_middle_4_split1"} <= set(copy.defined_functions)
