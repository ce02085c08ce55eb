"""Rendering: the templates spell out exactly the steps of the plan, deterministically."""

import re

import jinja2
import pytest

from sk.render import codegen
from sk.tests.scenario import dynamic_op, scenario_plan

AIV = "KERNEL_TYPE_AIV_ONLY"


def source(tmp_path, ops, options="", **kw):
    plan = scenario_plan(tmp_path, ops, options, **kw)
    return plan, codegen.render_source(plan)


def test_single_stream_default_structure(tmp_path):
    plan, src = source(tmp_path, [("a", {"block_dim": 8}, {}), ("b", {"block_dim": 2}, {})])
    assert src.startswith('\n#if 1\n#include "kernel_operator.h"\n') and src.endswith("#endif\n#endif\n")
    assert 'extern "C"  __global__ __attribute__((aligned(512))) __aicore__ void auto_gen_te_superkernel_t_kernel(void) {' in src
    for i in range(1, 4):
        assert f'extern "C"  __aicore__ void a__kernel0_middle_split{i}(uint64_t args_offset);' in src
    assert src.count("//begin func call of sub operator") == 2
    assert "if ((coreid % 4) == 3)" not in src and "} else {\n          b__kernel0_middle_split3(4);" in src
    assert "AscendC::WaitPreTaskEndImpl<0>();" in src
    assert src.index("preload((const void *)b__kernel0_middle, 2);") < src.index("a__kernel0_middle(1);")


def test_func_align_and_split_mode_two(tmp_path):
    _, src = source(tmp_path, [("a", {"split_mode": 2}, {}), ("b", {"split_mode": 2}, {})],
                    "func-align=0:split-mode=2", split=2)
    assert '__global__ __aicore__ void auto_gen' in src and "aligned(" not in src
    assert "if ((coreid % 2) == 0) {\n          a__kernel0_middle(1);\n        } else {\n          a__kernel0_middle_split1(1);" in src


def test_split_mode_one_has_run_cfg_and_no_switch(tmp_path):
    _, src = source(tmp_path, [("a", {"split_mode": 1}, {}), ("b", {"kernel_type": AIV, "split_mode": 1}, {})],
                    "split-mode=1", split=1)
    assert "__gm__ struct OpSystemRunCfg g_opSystemRunCfg = {0};" in src
    assert "coreid" not in src and "_split" not in src


def test_preload_modes(tmp_path):
    ops = [("a", {}, {}), ("b", {}, {})]
    _, none = source(tmp_path / "n", ops, "preload-code=none")
    _, mx = source(tmp_path / "m", ops, "preload-code=max")
    assert "preload(" not in none and "PreLoad" not in none
    assert mx.count("AscendC::PreLoad(8);") == 1 and "preload((const void" not in mx


def _between(src, start, end):
    i = src.index(start)
    return src[i:src.index(end, i)]


def test_preload_max_placement_single_stream(tmp_path):
    # In the global entry, after the dynamic-op locals, before the first sub-op.
    _, src = source(tmp_path, [("a", {}, {}), ("b", dynamic_op("b"), {"task_type": "dynamic"})], "preload-code=max")
    entry = _between(src, "void auto_gen_te_superkernel_t_kernel(void) {", "\n}\n")
    assert entry.count("AscendC::PreLoad(8);") == 1 == src.count("AscendC::PreLoad(8);")
    assert entry.index("uint64_t dy_blockNum = 0;") < entry.index("AscendC::PreLoad(8);") \
        < entry.index("//begin func call of sub operator")


def test_preload_max_placement_two_streams(tmp_path):
    # In each queue function after param_base and the dynamic-op locals, before its first sub-op
    # (facts §14.2); the entry holds only the set-up and the two calls.
    ops = [("a", {}, {}), ("v", dynamic_op("v", AIV), {"stream_id": 1, "task_type": "dynamic"})]
    _, src = source(tmp_path, ops, "stream-fusion=1:preload-code=max")
    assert src.count("AscendC::PreLoad(8);") == 2
    for arch in ("aic", "aiv"):
        body = _between(src, f"inline void auto_gen_te_superkernel_t_kernel_{arch}(void) {{", "\n}\n")
        lines = [line.strip() for line in body.splitlines()[1:] if line.strip()]
        head = lines.index("AscendC::PreLoad(8);")
        assert lines[0] == "GM_ADDR *param_base = (GM_ADDR *)get_para_base();"
        assert all(line.startswith("uint64_t ") for line in lines[1:head])
        assert lines[head + 1].startswith("//begin func call of sub operator")
    aiv = _between(src, "inline void auto_gen_te_superkernel_t_kernel_aiv(void) {", "\n}\n")
    assert aiv.index("uint64_t dy_blockNum = 0;") < aiv.index("AscendC::PreLoad(8);")
    entry = _between(src, "void auto_gen_te_superkernel_t_kernel(void) {", "\n}\n")
    assert "PreLoad" not in entry and "begin func call" not in entry
    assert entry.count("auto_gen_te_superkernel_t_kernel_aic();") == 1


def test_two_stream_mix_sections_and_functions(tmp_path):
    ops = [("a", {}, {"stream_id": 0}), ("b", {"kernel_type": AIV, "block_dim": 2}, {"stream_id": 1})]
    _, src = source(tmp_path, ops, "stream-fusion=1")
    assert "__aicore__ inline void auto_gen_te_superkernel_t_kernel_aic(void) {" in src
    assert "__aicore__ inline void auto_gen_te_superkernel_t_kernel_aiv(void) {" in src
    assert "#if (defined(__DAV_CUBE__) && __NPU_ARCH__ == 2201)" in src
    assert "K_TYPE_MIX_AIC_MAIN},    {{F_TYPE_MIX_TASK_RATION, sizeof(unsigned int)}, 1, 1} };" in src
    assert "g_super_kernel_early_start_config" not in src


def test_external_events_render_notify_wait_and_reset(tmp_path):
    ops = [("a", {}, {"stream_id": 0, "send_event_list": [100]}),
           ("b", {}, {"stream_id": 1, "recv_event_list": [101]})]
    plan, src = source(tmp_path, ops, "stream-fusion=1:profiling=1")
    assert "NotifyFunc<true>(param_base[4]);" in src and "WaitFunc<true>(param_base[8]);" in src
    assert "RecordProfiling(100, 0x4, true);" in src and "RecordProfiling(101, 12, false);" in src
    assert "*(reinterpret_cast<__gm__ uint64_t*>(param_base[8])) = 0;" in src
    assert "GM_ADDR profilingPtr = param_base[9];" in src


def test_every_step_kind_has_a_template(tmp_path):
    env = codegen.environment()
    macros = env.get_template("steps.j2").module
    with pytest.raises(jinja2.UndefinedError):
        macros.steps([{"kind": "no_such_step"}])


def test_render_is_deterministic(tmp_path):
    ops = [("a", {}, {"stream_id": 0, "send_event_list": [1]}), ("b", {"kernel_type": AIV}, {"stream_id": 1}),
           ("c", {}, {"stream_id": 1, "recv_event_list": [1]})]
    _, one = source(tmp_path / "1", ops, "stream-fusion=1")
    _, two = source(tmp_path / "2", ops, "stream-fusion=1")
    assert one == two
    assert not re.search(r"/tmp|/home|/work", one)


def test_dict_lookups_resolve_as_in_plain_jinja2():
    template = ("{{ d.kind }}|{{ d['kind'] }}|{{ d.items()|list|length }}|{{ d.missing is defined }}|"
                "{{ d.get('kind') }}|{{ o.real }}|{{ d.keys is defined }}")
    d = {"kind": "call", "keys": "shadowed by the method"}
    ours = codegen.environment().from_string(template).render(d=d, o=3)
    plain = jinja2.Environment(undefined=jinja2.StrictUndefined).from_string(template).render(d=d, o=3)
    assert ours == plain == "call|call|2|False|call|3|True"
    with pytest.raises(jinja2.UndefinedError):
        codegen.environment().from_string("{{ d.missing }}").render(d=d)


def test_spellings_match_the_former_macros():
    assert codegen.is_arch("cube") == "ASCEND_IS_AIC" and codegen.is_arch("vec") == "ASCEND_IS_AIV"
    assert codegen.idx("raw") == "get_block_idx()" and codegen.idx("ascendc") == "AscendC::GetBlockIdx()"
    assert codegen.es_cond(None) == "true"
    assert codegen.es_cond([">=", "raw", 8]) == "get_block_idx() >= 8"


def _cache_files(directory):
    return sorted(p.name for p in directory.iterdir()) if directory.exists() else []


def test_compiled_templates_are_cached_and_give_the_same_text(tmp_path, monkeypatch):
    monkeypatch.setattr("sys.dont_write_bytecode", False)
    plan, _ = source(tmp_path / "in", [("a", {}, {}), ("b", {"kernel_type": "KERNEL_TYPE_MIX_AIC_1_2"}, {})])
    cache = tmp_path / "cache"
    compiled = codegen.render_code(plan.code, codegen.environment(codegen.TemplateBytecodeCache(str(cache))))
    written = _cache_files(cache)
    assert len(written) >= 3 and all(name.endswith(".jinja2.cache") for name in written)  # one per template

    cached_env = codegen.environment(codegen.TemplateBytecodeCache(str(cache)))
    compile_calls = []
    real_compile = cached_env.compile
    monkeypatch.setattr(cached_env, "compile", lambda *a, **k: compile_calls.append(a[1]) or real_compile(*a, **k))
    assert codegen.render_code(plan.code, cached_env) == compiled
    assert compile_calls == []  # every template came from the cache
    assert compiled == codegen.render_code(plan.code, jinja2_without_cache())


def jinja2_without_cache():
    env = codegen.environment()
    env.bytecode_cache = None
    return env


def test_a_spoilt_or_foreign_cache_entry_is_recompiled(tmp_path, monkeypatch):
    monkeypatch.setattr("sys.dont_write_bytecode", False)
    plan, _ = source(tmp_path / "in", [("a", {}, {})])
    cache = tmp_path / "cache"
    expected = codegen.render_code(plan.code, codegen.environment(codegen.TemplateBytecodeCache(str(cache))))
    for name in _cache_files(cache):
        (cache / name).write_bytes(b"not a jinja2 bytecode cache entry")
    assert codegen.render_code(plan.code, codegen.environment(codegen.TemplateBytecodeCache(str(cache)))) == expected


def test_the_cache_follows_pythons_bytecode_rules(tmp_path, monkeypatch):
    plan, _ = source(tmp_path / "in", [("a", {}, {})])
    monkeypatch.setattr("sys.dont_write_bytecode", True)
    cache = tmp_path / "cache"
    codegen.render_code(plan.code, codegen.environment(codegen.TemplateBytecodeCache(str(cache))))
    assert _cache_files(cache) == []  # PYTHONDONTWRITEBYTECODE: nothing written
    monkeypatch.setattr("sys.dont_write_bytecode", False)
    blocked = tmp_path / "file"
    blocked.write_text("a file where the cache directory would go")
    text = codegen.render_code(plan.code, codegen.environment(codegen.TemplateBytecodeCache(str(blocked / "c"))))
    assert text == codegen.render_code(plan.code, jinja2_without_cache())  # unwritable: compiled, no error
    monkeypatch.setattr("sys.pycache_prefix", str(tmp_path / "prefix"))
    assert codegen.TemplateBytecodeCache().directory == str(tmp_path / "prefix") + codegen.TEMPLATE_DIR
    monkeypatch.setattr("sys.pycache_prefix", None)
    assert codegen.TemplateBytecodeCache().directory == codegen.TEMPLATE_DIR + "/__pycache__"


# ---------------------------------------------------------------- events in the single-stream shape
# Upstream's gen_sync_and_event_code: a receiving op after a silent one gets its wait block, the extra
# sync of gen_wait_block_extra_sync and then the barrier; after a sending op, the barrier, the notify,
# the wait and "reason3" with the SuperKernel's full sync. External events are carried by block 0 of
# the cube side for the cube-only kinds and of the vector side for every other kind.

MIX11 = "KERNEL_TYPE_MIX_AIC_1_1"


def _segment(src, op_name):
    """The generated text from op `op_name`'s heading up to its call."""
    start = src.index(f"//begin func call of sub operator {op_name}")
    return src[start:src.index(f"{op_name}_middle(", start)]


def test_a_wait_after_a_silent_cube_op_comes_first_then_the_extra_sync_then_the_barrier(tmp_path):
    _, src = source(tmp_path, [("a", {}, {}), ("b", {"kernel_type": AIV}, {"recv_event_list": [7]})])
    seg = _segment(src, "b__kernel0")
    wait = seg.index("WaitFunc<false>(param_base[")
    extra = seg.index("    // extra sync for wait event\n    AscendC::SyncAll<true>();\n\n")
    assert "if ASCEND_IS_AIV {\n        // kernel=b__kernel0, ev=7, param_offset=" in seg
    assert wait < extra < seg.index("// begin inter ops barrier")
    assert "reason3" not in src


def test_a_wait_after_a_silent_vector_op_gets_the_cube_extra_sync(tmp_path):
    _, src = source(tmp_path, [("a", {"kernel_type": AIV}, {}), ("b", {}, {"recv_event_list": [7]})])
    seg = _segment(src, "b__kernel0")
    assert ("WaitFunc<true>(param_base[" in seg and "\n    // extra sync for wait event\n"
            "    ffts_cross_core_sync(PIPE_FIX, AscendC::GetffstMsg(0x0, AscendC::SYNC_AIC_FLAG));\n"
            "    wait_flag_dev(AscendC::SYNC_AIC_FLAG);\n" in seg)
    # Between two ops of one kind there is none.
    _, same = source(tmp_path / "same", [("a", {}, {}), ("b", {}, {"recv_event_list": [7]})])
    assert "extra sync" not in same


def test_a_wait_after_a_send_follows_barrier_and_notify_with_the_sk_full_sync(tmp_path):
    plan, src = source(tmp_path, [("a", {}, {"send_event_list": [100]}),
                                  ("b", {"kernel_type": AIV}, {"recv_event_list": [7]})])
    assert plan.kernel_type in ("KERNEL_TYPE_MIX_AIC_1_1", "KERNEL_TYPE_MIX_AIC_1_2")
    seg = _segment(src, "b__kernel0")
    barrier, notify = seg.index("// begin inter ops barrier"), seg.index("NotifyFunc<true>(param_base[")
    wait = seg.index("WaitFunc<false>(param_base[")
    assert barrier < notify < wait
    assert "}\n// reason3: for continues notify/wait event\n    AscendC::SyncAll<false>();\n\n" in seg
    assert "two stream" not in src and "extra sync" not in src


def test_mix_ops_carry_their_events_on_the_vector_side(tmp_path):
    ops = [("a", {"kernel_type": MIX11}, {"send_event_list": [100, 101]}), ("b", {"kernel_type": MIX11}, {}),
           ("c", {"kernel_type": MIX11}, {"recv_event_list": [7]})]
    _, src = source(tmp_path, ops)
    # One block for all of an op's events, as upstream's notify block.
    assert src.count("NotifyFunc<false>(param_base[") == 2 and "NotifyFunc<true>" not in src
    notify = _between(src, "if ASCEND_IS_AIV {\n        // kernel=a__kernel0, ev=100", "}\n")
    assert "ev=101" in notify
    assert "WaitFunc<false>(param_base[" in src and "WaitFunc<true>" not in src
    # The lock is reset where it was waited for: the vector side's block 0.
    assert re.search(r"if ASCEND_IS_AIV \{\n        if \(AscendC::GetBlockIdx\(\) == 0\) \{\n"
                     r"            \*\(reinterpret_cast<__gm__ uint64_t\*>\(param_base\[\d+\]\)\) = 0;", src)


def test_two_streams_mix_ops_notify_and_wait_on_the_vector_side(tmp_path):
    # Upstream: a MIX op's notify block is its vector queue's (notify_block["aiv"]); its wait block, the
    # vector side's, stands in both queues; reason3 is one SyncAll<false> line.
    ops = [("a", {"kernel_type": MIX11}, {"stream_id": 0, "send_event_list": [100]}),
           ("b", {"kernel_type": AIV}, {"stream_id": 1}),
           ("c", {"kernel_type": MIX11}, {"stream_id": 0, "recv_event_list": [7]})]
    plan, src = source(tmp_path, ops, "stream-fusion=1")
    assert plan.mode == "two_stream"
    aic = _between(src, "void auto_gen_te_superkernel_t_kernel_aic(void) {", "\n}\n")
    aiv = _between(src, "void auto_gen_te_superkernel_t_kernel_aiv(void) {", "\n}\n")
    assert "NotifyFunc" not in aic and "NotifyFunc<false>(param_base[" in aiv and "NotifyFunc<true>" not in src
    for queue in (aic, aiv):
        assert "if ASCEND_IS_AIV {\n        // kernel=c__kernel0, ev=7" in queue and "WaitFunc<false>(param_base[" in queue
        assert ("// two stream when has wait event, add sync by current operator kernel type\n"
                "    AscendC::SyncAll<false>(); // reason3: for continues notify/wait event \n\n") in queue


# ---------------------------------------------------------------- call blocks (upstream gen_call_func*)

def _call_block(src, op_name):
    """The `if ASCEND_IS_X { ... }` block that calls op `op_name` (not its preload)."""
    call = re.search(rf"\n {{10}}{op_name}_middle\(\d+\);", src).start()
    start = src.rindex("\n    if ASCEND_IS_", 0, call) + 1
    return src[start:src.index("\n    }\n", call) + 7]


def test_dcci_before_and_after_a_sub_kernel_are_commented_options_inside_its_block(tmp_path):
    # A static op's own JSON flags decide (its SK-mode compile set them from the options it inherited).
    flags = {"sub_operator_call_dcci_before_kernel_start": True, "sub_operator_call_dcci_after_kernel_end": True}
    ops = [("a", {"sub_operator_op_type": "Add", **flags}, {}), ("b", {"sub_operator_op_type": "Mul"}, {})]
    _, src = source(tmp_path, ops, "dcci-before-kernel-start=Add:dcci-after-kernel-end=Add")
    dcci = "dcci((__gm__ uint64_t*)0, cache_line_t::ENTIRE_DATA_CACHE, dcci_dst_t::CACHELINE_OUT);"
    block = _call_block(src, "a__kernel0")
    assert block.startswith("    if ASCEND_IS_AIC {\n      // option: dcci-before-kernel-start\n      " + dcci +
                            "\n\n      if (get_block_idx() < 8) {\n")
    assert block.endswith("        }\n\n      }\n\n      // option: dcci-after-kernel-end\n      " + dcci +
                          "\n\n    }\n")
    assert "option: dcci" not in _call_block(src, "b__kernel0")
    # The option lists alone do not add calls to a static op whose JSON says none, as upstream's.
    _, plain = source(tmp_path / "plain", [("a", {"sub_operator_op_type": "Add"}, {}), ops[1]],
                      "dcci-before-kernel-start=Add")
    assert "option: dcci" not in plain
    # sub_operator_call_dcci_disable_on_kernel wins over the op's own flags.
    _, off = source(tmp_path / "off", [("a", {"sub_operator_op_type": "Add", **flags,
                                              "sub_operator_call_dcci_disable_on_kernel": True}, {}), ops[1]])
    assert "option: dcci" not in off


@pytest.mark.parametrize("split", [4, 1])
def test_a_fed_static_op_ends_each_core_id_branch_and_its_idle_cores_replay(tmp_path, split):
    ops = [("a", {"split_mode": split}, {}),
           ("b", {"block_dim": 4, "sub_op_with_sync_all": True, "split_mode": split}, {})]
    _, src = source(tmp_path, ops, f"feed-sync-all=1:split-mode={split}", split=split)
    block = _call_block(src, "b__kernel0")
    # Upstream calls EndImpl after each copy's call; with one copy there is no switch and no EndImpl.
    assert block.count("AscendC::SuperKernelAutoSyncAllEndImpl();") == (4 if split == 4 else 0)
    assert block.endswith("      } else {\n        AscendC::SuperKernelAutoSyncAllComplementImpl();\n      }\n    }\n")


def test_two_streams_rule_3_2_comes_before_the_events_of_the_pair(tmp_path):
    # Upstream's gen_sync_and_event_code_for_two_stream: the previous op's flags, this op's Rule 3.2
    # wait, the previous op's notifies, this op's waits.
    ops = [("v", {"kernel_type": AIV}, {"stream_id": 1}),
           ("c", {}, {"stream_id": 0, "send_event_list": [100]}),
           ("w", {"kernel_type": AIV}, {"stream_id": 1, "recv_event_list": [100, 7]})]
    plan, src = source(tmp_path, ops, "stream-fusion=1")
    assert plan.mode == "two_stream"
    aiv = _between(src, "void auto_gen_te_superkernel_t_kernel_aiv(void) {", "\n}\n")
    seg = aiv[aiv.index("//begin func call of sub operator w__kernel0"):]
    assert (seg.index("// Rule 1 : sync all aiv") < seg.index("// Rule 3.2 : sync all c2v")
            < seg.index("WaitFunc<false>(param_base["))


MIX11, MIX12 = "KERNEL_TYPE_MIX_AIC_1_1", "KERNEL_TYPE_MIX_AIC_1_2"


@pytest.mark.parametrize("types,side,size,hand_over", [
    (["KERNEL_TYPE_AIC_ONLY"], "AIC", 4096, False),
    ([AIV], "AIV", 4096, False),
    ([MIX11], "AIV", 4096, True),
    ([MIX12], "AIV", 4096, True),   # 8192 bytes for twice the blocks; each vector core zeroes half a share
])
def test_feed_sync_all_zeroing_side_and_hand_over(tmp_path, types, side, size, hand_over):
    # Upstream gen_clear_syncall_worskspace: the cube side zeroes only in a cube-only SuperKernel; in a MIX
    # 1:1/1:2 one the vector side zeroes and hands over to the cube side with an AIV->AIC flag.
    ops = [(f"k{i}", {"kernel_type": t, "block_dim": 8}, {}) for i, t in enumerate(types * 2)]
    plan, src = source(tmp_path, ops, "feed-sync-all=1")
    zero = _between(src, "uint32_t sizePerCore", "//begin func call")
    assert src[:src.index("uint32_t sizePerCore")].rstrip().endswith(f"if ASCEND_IS_{side} {{")
    assert f"uint32_t sizePerCore = {size} / get_block_num();" in zero
    assert ("AscendC::GetffstMsg(0x02, AscendC::SYNC_AIV_FLAG));\n    }\n\n    if ASCEND_IS_AIC {\n"
            "       wait_flag_dev(AscendC::SYNC_AIV_FLAG);\n    }\n" in zero) == hand_over
    if side == "AIV":
        assert "AscendC::DuplicateImpl((__ubuf__ uint32_t*)(0), (uint32_t)0, 128);" in zero
        assert "copy_ubuf_to_gm((__gm__ void*)(startAddr), (__ubuf__ void*)(0), 0, 1, 16, 1, 1);" in zero


@pytest.mark.parametrize("types,mix", [([MIX11], True), ([MIX12, AIV], True), (["KERNEL_TYPE_AIC_ONLY"], False),
                                       ([AIV, "KERNEL_TYPE_MIX_AIV_1_0"], False)])
def test_a_mix_superkernel_inits_a_mix_dump(tmp_path, types, mix):
    # Upstream gen_super_dump_code: InitDump(true, ...) when the SuperKernel is MIX 1:1 or 1:2.
    ops = [(f"k{i}", {"kernel_type": t, "debugOptions": "printf", "debugBufSize": 1048576}, {})
           for i, t in enumerate(types)]
    _, src = source(tmp_path, ops)
    assert f"AscendC::InitDump({'true' if mix else 'false'}, workspace + 0, ASCENDC_DUMP_SIZE);" in src


def test_two_streams_a_mix_op_notifying_outside_orders_the_next_op_and_moves_to_a_following_cube_op(tmp_path):
    # Upstream insert_sync_for_notify: a MIX op that notifies outside gets a sync pair to the next op when
    # that op is on the other stream, and notifies from the cube queue when the next op is a cube op.
    ops = [("m", {"kernel_type": MIX11}, {"stream_id": 1}),
           ("n", {"kernel_type": MIX11}, {"stream_id": 1, "send_event_list": [100]}),
           ("c", {}, {"stream_id": 0})]
    plan, src = source(tmp_path, ops, "stream-fusion=1")
    assert plan.mode == "two_stream"
    assert {"from": 1, "to": 2, "kind": "vec:cub"} in plan.sync_edges
    aic = _between(src, "void auto_gen_te_superkernel_t_kernel_aic(void) {", "\n}\n")
    aiv = _between(src, "void auto_gen_te_superkernel_t_kernel_aiv(void) {", "\n}\n")
    assert "NotifyFunc<true>(param_base[" in aic and "NotifyFunc" not in aiv
    assert "send_info:{'c__kernel0_2': 'vec:cub'}" in aic and "send sync of V->C" in aiv


def test_two_streams_mix_ops_sync_with_the_cross_core_pair_not_a_pipe_barrier(tmp_path):
    # MIX -> MIX on one stream is "cub:vec;vec:cub" (gen_sync_name): each queue sets its flags and the
    # other waits for them, where an edge model per core side gave a pipe barrier.
    ops = [("m", {"kernel_type": MIX11}, {"stream_id": 1}),
           ("n", {"kernel_type": MIX11}, {"stream_id": 1, "send_event_list": [100]}),
           ("o", {"kernel_type": MIX11}, {"stream_id": 0, "recv_event_list": [101]})]
    _, src = source(tmp_path, ops, "stream-fusion=1")
    aic = _between(src, "void auto_gen_te_superkernel_t_kernel_aic(void) {", "\n}\n")
    seg = aic[aic.index("//begin func call of sub operator o__kernel0"):]
    assert "pipe_barrier(PIPE_ALL);" not in seg
    assert "send_info:{'o__kernel0_2': 'cub:vec;vec:cub'}" in seg
    assert "wait_flag_dev(AscendC::SYNC_AIV_FLAG);" in seg


def test_c310_has_no_ffts_slot_and_zeroes_with_its_copy_and_pipe_waits(tmp_path):
    # Upstream on Ascend950 (c310): no FFTS address in param_base (params from slot 0, workspace right
    # after them, no set_ffts_base_addr), and a MIX SK's feed-sync-all zeroing copies with
    # copy_ubuf_to_gm_align_v2 and waits naming PIPE_S. The platform's facts decide, not its name.
    from sk.engine.plan import build_plan
    from sk.engine.platforms import Platform
    from sk.engine.subop import load_kernel_infos
    from sk.tests.scenario import write_scenario

    c310 = Platform("Ascend950PR_9599", "Ascend950", "c310", 3510, 32, 64, False)
    ops = [("a", {"kernel_type": MIX11, "params": ["x", "y"]}, {}), ("b", {"kernel_type": MIX11}, {})]
    path = write_scenario(tmp_path, ops, options="feed-sync-all=1", chip="c310")
    plan = build_plan(load_kernel_infos(path, c310), c310)
    src = codegen.render_source(plan)
    assert plan.params["ffts_slot"] is None and plan.ops[0]["param_offset"] == 0
    assert "a__kernel0_middle(0);" in src and "b__kernel0_middle(2);" in src
    assert "GM_ADDR workspace = param_base[5];" in src and "ffts_addr" not in src
    zero = _between(src, "uint32_t sizePerCore", "//begin func call")
    assert "copy_ubuf_to_gm_align_v2((__gm__ void*)(startAddr), (__ubuf__ void*)(0), 0, 1, 512, 0, 512, 512);" in zero
    assert "wait_flag_dev(PIPE_S, AscendC::SYNC_AIV_ONLY_ALL);" in zero
    assert "    if ASCEND_IS_AIC {\n        wait_flag_dev(PIPE_S, AscendC::SYNC_AIV_FLAG);\n    }\n" in zero


@pytest.mark.parametrize("soc, chip, slot0", [("Ascend950PR_9579", "c310", 0), (None, "c220", 1)])
def test_sk_gen_fuses_mix_ops_keyed_for_the_socs_chip(tmp_path, soc, chip, slot0):
    # A MIX op's JSON names each side's code under dav-<chip>-cube/vec; `sk gen --soc` reads its SoC's keys
    # (each side's function called under its own guard, parameters from slot 0 on c310, which has no FFTS
    # slot) and refuses the other chip's keys, naming the op and the key.
    import json

    from sk.tests.harness import run_sk
    from sk.tests.objfactory import make_object
    from sk.tests.scenario import write_scenario

    def scenario(root, keyed):
        ops = [("a", {"kernel_type": "KERNEL_TYPE_AIV_ONLY", "block_dim": 4, "split_mode": None}, {}),
               ("m", {"kernel_type": MIX12, "block_dim": 4, "split_mode": None}, {})]
        path = write_scenario(root, ops, options="split-mode=1", split=1, chip=keyed)
        doc = json.loads((root / "m.json").read_text())
        doc["sub_operator_kernel_name"][f"dav-{keyed}-vec"]["func_name"] = "m_vec"
        (root / "m.json").write_text(json.dumps(doc))
        make_object(str(root / "m.o"), ["m__kernel0_middle", "m_vec"], 4080)
        return path

    soc_args = ["--soc", soc] if soc else []
    proc = run_sk("gen", "--kernel-infos", scenario(tmp_path / "ok", chip), "--out-dir", str(tmp_path / "o"),
                  *soc_args)
    assert proc.returncode == 0, proc.stderr
    src = (tmp_path / "o" / "te_superkernel_t_kernel.cpp").read_text()
    m = slot0 + 3  # after a's three parameters
    assert (f"    if ASCEND_IS_AIC {{\n      if (get_block_idx() < 4) {{\n          m__kernel0_middle({m});\n"
            in src), src
    assert f"    if ASCEND_IS_AIV {{\n      if (get_block_idx() < 4) {{\n          m_vec({m});\n" in src, src
    assert f"a__kernel0_middle({slot0});" in src and ("set_ffts_base_addr" in src) == (slot0 == 1)
    other = {"c310": "c220", "c220": "c310"}[chip]
    proc = run_sk("gen", "--kernel-infos", scenario(tmp_path / "bad", other), "--out-dir", str(tmp_path / "p"),
                  *soc_args)
    assert proc.returncode == 2 and not (tmp_path / "p").exists()
    assert f"op_list[1] (m__kernel0) m.json: sub_operator_kernel_name.dav-{other}-cube" in proc.stderr, proc.stderr
    assert f"AiCore, dav-{chip}-cube, dav-{chip}-vec" in proc.stderr and "Traceback" not in proc.stderr
