"""Dynamic (tiling-sink) ops in the generated source, as upstream's generator writes them (facts §15.2,
§14.1): the dynamic_func_names form, dcci options by op type, the tiling-key search, the syncs around
the switch, and what a dynamic op may not be."""

import pytest

from sk.base.errors import SkError
from sk.render import codegen
from sk.tests.harness import needs_host_tools, needs_twin_sources
from sk.tests.scenario import scenario_plan, write_scenario

AIC, AIV = "KERNEL_TYPE_AIC_ONLY", "KERNEL_TYPE_AIV_ONLY"


def dyn_only(name, keys, kernel_type=AIC, **extra):
    """sub_op_json kwargs of a dynamic op in upstream's form: the tiling-key table and nothing else."""
    table = {str(k): {"AiCore": f"{name}_{k}", "kernel_type": kernel_type} for k in keys}
    return {"kernel_type": kernel_type, "sub_operator_kernel_name": {"dynamic_func_names": table},
            "params": ("x", "y", "workspace", "tiling"), **extra}


def render(tmp_path, ops, options=""):
    plan = scenario_plan(tmp_path, ops, options)
    return plan, codegen.render_source(plan)


def test_a_json_with_only_dynamic_func_names_is_a_dynamic_op(tmp_path):
    plan, src = render(tmp_path, [("a", {}, {}), ("d", dyn_only("d", [5, 1]), {"task_type": "dynamic"})])
    d = plan.ops[1]
    assert [k["tiling_key"] for k in d["dynamic_keys"]] == [5, 1]   # the table's order
    assert d["funcs"][0]["object"] == "d.o" and d["funcs"][0]["func_name"] == "d_5"
    # Declared in the table's order, each with its split copies, and no per-core-type entry.
    assert src.index("void d_5(uint64_t") < src.index("void d_5_split3(uint64_t") < src.index("void d_1(uint64_t")
    assert "d__kernel0_middle" not in src
    assert "switch_func_of_d__kernel0(param_base[8], param_base[9], param_base[10]" in src


def test_a_tiling_key_symbol_missing_from_bin_path_is_named(tmp_path):
    ops = [("a", {}, {}), ("d", dyn_only("d", [1]), {"task_type": "dynamic"})]
    from sk.tests.scenario import write_scenario
    from sk.tests.objfactory import make_object
    path = write_scenario(tmp_path, ops)
    make_object(tmp_path / "d.o", ["other"])
    from sk.tests.scenario import plan_from
    with pytest.raises(SkError, match=r"dynamic_func_names\.1\.AiCore.*d_1"):
        plan_from(path)


def test_dcci_options_naming_a_dynamic_op_s_type_reach_its_call(tmp_path):
    ops = [("a", {}, {}), ("d", dyn_only("d", [1], sub_operator_op_type="GroupedMatmul"), {"task_type": "dynamic"})]
    _, src = render(tmp_path, ops, "dcci-before-kernel-start=GroupedMatmul:dcci-after-kernel-end=GroupedMatmul")
    dcci = "dcci((__gm__ uint64_t*)0, cache_line_t::ENTIRE_DATA_CACHE, dcci_dst_t::CACHELINE_OUT);"
    call = src.index("    call_func_of_d__kernel0(")
    assert src[:call].endswith(f"    // option: dcci-before-kernel-start\n    {dcci}\n\n")
    after = src[call:]
    assert after.split("\n", 1)[1].startswith(f"    // option: dcci-after-kernel-end\n    {dcci}\n\n    if ASCEND_IS_AIC")
    _, plain = render(tmp_path / "p", ops, "dcci-before-kernel-start=Add")
    assert "dcci-before" not in plain and "dcci-after" not in plain


def _switch(src):
    start = src.index("    dcci(lockAddr, 0, 2);\n    }\n\n") + len("    dcci(lockAddr, 0, 2);\n    }\n\n")
    return src[start:src.index("    return;\n}", start)]


def test_several_tiling_keys_are_searched_with_a_fallback_else(tmp_path):
    one_copy = {"split_mode": 1}
    ops = [("a", one_copy, {}), ("d", dyn_only("d", [7, 2, 30, 11, 5], **one_copy), {"task_type": "dynamic"})]
    sw = _switch(render(tmp_path, ops, "split-mode=1")[1])
    # Sorted keys 2 5 7 11 30: `<` at the middle key, two keys as `==` and its `else` (the fallback).
    heads = [(len(line) - len(line.lstrip()), line.strip()) for line in sw.splitlines()
             if line.strip().startswith(("if", "}"))]
    assert heads == [(4, "if (*tilingKeyAddr < 7) {"), (4, "if (*tilingKeyAddr == 2) {"), (4, "} else {"),
                     (4, "}"), (0, "} else {"), (4, "if (*tilingKeyAddr < 11) {"), (8, "if (*tilingKeyAddr == 7) {"),
                     (8, "}"), (4, "} else {"), (8, "if (*tilingKeyAddr == 11) {"), (8, "} else {"), (8, "}"),
                     (4, "}"), (0, "}")]
    order = [sw.index(f"(uint64_t)(d_{k});") for k in (2, 5, 7, 11, 30)]
    assert order == sorted(order)
    one = _switch(render(tmp_path / "one", [("a", one_copy, {}),
                                            ("d", dyn_only("d", [3], **one_copy), {"task_type": "dynamic"})],
                         "split-mode=1")[1])
    assert one == ("    if (*tilingKeyAddr == 3) {\n\n    aic_func_addr = (uint64_t)(d_3);\n"
                   "    dy_block_num = ((uint64_t)1) << 32 | (*blockNumAddr);\n\n}\n")


FIRST_SYNC = "    pipe_barrier(PIPE_ALL);\n    AscendC::SyncAll<false>(); // reason3: dynamic gen_switch_case_block when no pre op\n"
SWITCH_SYNC = "AscendC::SyncAll<false>(); // reason: double stream need syncall to wait switch func"


def test_switch_syncs_follow_the_stream_decision(tmp_path):
    dyn = ("d", dyn_only("d", [1]), {"task_type": "dynamic", "send_event_list": [100]})
    # Streams 0 and 1 joined by an event are one logical stream (facts §14.1).
    _, joined = render(tmp_path / "j", [dyn, ("b", {}, {"stream_id": 1, "recv_event_list": [100]})])
    assert SWITCH_SYNC not in joined and FIRST_SYNC in joined
    assert joined.index(FIRST_SYNC) < joined.index("preload((const void *)b__kernel0_middle")
    # Two real streams: the call waits for every core to pass the switch; no first-op sync.
    _, two = render(tmp_path / "t", [("d", dyn_only("d", [1]), {"task_type": "dynamic"}), ("b", {}, {"stream_id": 1})],
                    "stream-fusion=1")
    assert SWITCH_SYNC in two and "reason3: dynamic" not in two
    # One stream, the dynamic op not first: its barrier orders it, so neither.
    _, later = render(tmp_path / "l", [("b", {}, {}), ("d", dyn_only("d", [1]), {"task_type": "dynamic"})])
    assert SWITCH_SYNC not in later and "reason3: dynamic" not in later


def test_a_vector_superkernel_preloads_the_dynamic_op_whatever_preload_code_says(tmp_path):
    ops = [("d", dyn_only("d", [1], AIV), {"task_type": "dynamic"}), ("b", {"kernel_type": AIV}, {})]
    for mode in ("per-func", "max", "none"):
        _, src = render(tmp_path / mode, ops, f"preload-code={mode}")
        assert src.count("preload((const void *)aiv_func_addr, 8);") == 1, mode
    mixed = [("d", dyn_only("d", [1], AIV), {"task_type": "dynamic"}), ("b", {}, {})]
    _, src = render(tmp_path / "mix", mixed)
    assert "aiv_func_addr, 8" not in src


@pytest.mark.parametrize("flag", ["sub_operator_early_start_set_flag", "sub_operator_early_start_wait_flag"])
def test_a_dynamic_op_with_early_start_flags_is_refused(tmp_path, flag):
    ops = [("a", {}, {}), ("d", dyn_only("d", [1], **{flag: True}), {"task_type": "dynamic"})]
    with pytest.raises(SkError, match=r"op_list\[1\] \(d__kernel0\).*dynamic op does not support early start"):
        scenario_plan(tmp_path, ops)


MIX11 = "KERNEL_TYPE_MIX_AIC_1_1"


@needs_host_tools
@needs_twin_sources
@pytest.mark.parametrize("kernel_type, keys", [(AIC, {5: ["d_5"], 1: ["d_1"]}),
                                               (MIX11, {3: ["d_3_aic", "d_3_aiv"], 7: ["d_7_aic", "d_7_aiv"]})])
def test_sk_link_renames_every_tiling_key_function_in_a_derived_split_copy(tmp_path, kernel_type, keys):
    # A dynamic op given only dynamic_func_names and no split_mode: each split copy is made from its
    # bin_path at link time and must rename every function of every tiling key (upstream's
    # gen_symbol_rename_file), both sides' of a MIX op; renaming only the first left the others defined
    # twice.
    import subprocess

    from sk.tests.harness import HOST_TOOLS, run_sk
    from sk.tests.objfactory import make_object
    from sk.twin import binding

    sides = ["AiCore"] if kernel_type == AIC else ["dav-c220-cube", "dav-c220-vec"]
    table = {str(k): {"kernel_type": kernel_type, **dict(zip(sides, syms))} for k, syms in keys.items()}
    dyn = {"kernel_type": kernel_type, "sub_operator_kernel_name": {"dynamic_func_names": table},
           "params": ("x", "y", "workspace", "tiling"), "split_mode": None}
    path = write_scenario(tmp_path, [("a", {"split_mode": None}, {}), ("d", dyn, {"task_type": "dynamic"})],
                          options="split-mode=3", split=1)
    symbols = [s for syms in keys.values() for s in syms]
    make_object(tmp_path / "d.o", symbols)  # the key functions only
    plan, gen = str(tmp_path / "plan.json"), tmp_path / "gen"
    assert run_sk("gen", "--kernel-infos", path, "--out-dir", str(gen), "--plan-out", plan).returncode == 0
    proc = run_sk("entry", "compile", "--toolchain", "host", "--compiler", HOST_TOOLS["g++"], "--objcopy",
                  HOST_TOOLS["objcopy"], "--include", str(binding.INCLUDE_DIR), "--plan", plan,
                  "--src", str(gen / "te_superkernel_t_kernel.cpp"), "--out-dir", str(tmp_path / "entry"))
    assert proc.returncode == 0, proc.stderr
    runtime = binding.build_runtime(binding.default_build_dir())
    out = tmp_path / "sk.o"
    proc = run_sk("link", "--toolchain", "host", "--ld", HOST_TOOLS["ld"], "--objcopy", HOST_TOOLS["objcopy"],
                  "--plan", plan, "--entry-dir", str(tmp_path / "entry"), "--sub-obj", str(tmp_path / "a.o"),
                  "--sub-obj", str(tmp_path / "d.o"), "--meta-in", str(gen / "te_superkernel_t.json"),
                  "--out-obj", str(out), "--out-json", str(tmp_path / "sk.json"), "--runtime-lib", str(runtime))
    assert proc.returncode == 0, proc.stderr
    nm = subprocess.run(["nm", str(out)], capture_output=True, text=True, check=True).stdout.split("\n")
    defined = {line.split()[-1] for line in nm if line.strip() and line.split()[-2] in "tT"}
    assert {f"{s}{suffix}" for s in symbols for suffix in ("", "_split1", "_split2")} <= defined
