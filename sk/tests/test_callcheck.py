"""The check `sk gen` runs on every generated entry before writing it (sk/render/callcheck.py): every op
called exactly once per core side it runs on, every tiling lock released, every external notify sent.

Properties over seeded random fusions (every kernel type, static and dynamic ops, SyncAll, early-start
flags, one stream or two with events, every feed-sync-all/debug/profiling/split/preload combination):
what sk generates passes, and the same text with any one op's call taken out fails naming that op.
Over upstream's goldens: the check passes on each golden text against sk's plan, except the one whose
dynamic op upstream leaves out, where it names that op. Rendering with the old rule (a fed dynamic op
not called) is an internal error and writes nothing."""

import os
import random
import pytest

from sk.base.errors import SkError
from sk.engine.kernel_types import TABLE as KERNEL_TYPES
from sk.engine.plan import steps as plan_steps
from sk.render import callcheck
from sk.render.outputs import write_outputs
from sk.tests.scenario import plan_from, write_scenario
from sk.tests.conformance_data import DATA, SCENARIOS, WHY_ABSENT

SEEDS = range(int(os.environ.get("SK_CALLCHECK_SCENARIOS", "160")))
KINDS = sorted(KERNEL_TYPES)
BUGGY_GOLDEN = "test_sk_2_stream_2_ops_dynamic_send_recv_with_synal_all_1_aic_only"


def _dynamic_names(name: str, kernel_type: str, keys: list) -> dict:
    """sub_operator_kernel_name of a dynamic op: its own entry, and one function per side for each key."""
    kt = KERNEL_TYPES[kernel_type]
    arch_keys = kt.arch_keys("c220")
    func = f"{name}__kernel0_middle"
    names = {key: {"func_name": func, "obj_files": f"{name}.o"} for _, key in arch_keys}
    names["dynamic_func_names"] = {
        str(k): {**{key: f"{name}_{arch}_key{k}" for arch, key in arch_keys}, "kernel_type": kernel_type}
        for k in keys}
    return names


def random_scenario(seed: int, root) -> tuple:
    """(kernel_infos path, options) of a random fusion drawn from `seed`."""
    rng = random.Random(seed)
    n = rng.randint(1, 7)
    two = n > 1 and rng.random() < 0.4
    streams = [rng.choice([0, 1]) if two else 0 for _ in range(n)]
    if two and len(set(streams)) == 1:
        streams[-1] ^= 1
    ops = []
    for k in range(n):
        kernel_type = rng.choice(KINDS)
        name = f"k{k}" if rng.random() < 0.8 or not ops else ops[-1][0]
        if ops and name == ops[-1][0]:
            kwargs = dict(ops[-1][1])
        else:
            kwargs = {"kernel_type": kernel_type, "block_dim": rng.choice([1, 2, 4, 8, 16, 24, 32]),
                      "sub_op_with_sync_all": rng.random() < 0.3}
        entry = {"stream_id": streams[k]}
        if rng.random() < 0.3 and not (ops and name == ops[-1][0]):
            keys = sorted(rng.sample([1, 2, 3, 5, 8], rng.randint(1, 3)))
            kwargs["sub_operator_kernel_name"] = _dynamic_names(name, kwargs["kernel_type"], keys)
        elif not (ops and name == ops[-1][0]):
            kwargs["sub_operator_early_start_set_flag"] = rng.random() < 0.2
            kwargs["sub_operator_early_start_wait_flag"] = rng.random() < 0.2
        if "dynamic_func_names" in kwargs.get("sub_operator_kernel_name", {}):
            entry["task_type"] = "dynamic"
        ops.append((name, kwargs, entry))
    event = 100
    for _ in range(rng.randint(0, 3)):
        i, j = sorted(rng.sample(range(n), 2)) if n > 1 else (0, 0)
        if i < j and streams[i] != streams[j]:
            ops[i][2].setdefault("send_event_list", []).append(event)
            ops[j][2].setdefault("recv_event_list", []).append(event)
            event += 1
    opts = ["stream-fusion=1"] if two else []
    for opt in ("feed-sync-all", "debug-dcci-all", "debug-sync-all", "profiling"):
        if rng.random() < 0.4:
            opts.append(f"{opt}=1")
    split = rng.choice([1, 2, 3, 4]) if rng.random() < 0.5 else 4   # 4: the default
    if split != 4:
        opts.append(f"split-mode={split}")
    if rng.random() < 0.3:
        opts.append(f"early-start={rng.choice([0, 1, 2])}")
    if rng.random() < 0.3:
        opts.append(f"preload-code={rng.choice(['max', 'none', 'per-func'])}")
    if rng.random() < 0.2:
        opts.append("allow-mix-1-2-in-1-1=1")
    for opt in ("dcci-before-kernel-start", "dcci-after-kernel-end"):
        if rng.random() < 0.2:
            opts.append(f"{opt}={rng.choice(['Add', 'Mul'])}")
    for _, kwargs, _ in ops:
        kwargs["split_mode"] = split
    return write_scenario(root, ops, options=":".join(opts), split=split), ":".join(opts)


def _take_out_one_call(plan, source: str, rng: random.Random) -> tuple:
    """(the source without the line of one live call of a random op, that op's name as the check reports it)."""
    op = rng.choice(plan.ops)
    offset = str(op["param_offset"])
    if op["task_type"] == "dynamic":
        mine = lambda kind, g: kind == "dyn" and g["dyn"] == op["kernel_name"] and g["dyn_off"] == offset
    else:
        symbols = {sym for f in op["funcs"] for sym in [f["func_name"]] + [s["symbol"] for s in f["splits"]]}
        mine = lambda kind, g: kind == "call" and g["fn"] in symbols and g["off"] == offset
    calls = [pos for kind, g, pos, _ in callcheck.live_tokens(plan.to_json(), source) if mine(kind, g)]
    assert calls, op["kernel_name"]
    pos = rng.choice(calls)
    start, end = source.rfind("\n", 0, pos) + 1, source.index("\n", pos) + 1
    return source[:start] + source[end:], f"op_list[{op['index']}] ({op['kernel_name']})"


def test_random_fusions_pass_and_fail_with_any_call_taken_out(tmp_path):
    built = refused = 0
    kinds = {"dynamic": 0, "dynamic_sync_all_fed": 0, "two_stream": 0}
    for seed in SEEDS:
        root = tmp_path / str(seed)
        path, options = random_scenario(seed, root)
        try:
            plan = plan_from(path)
        except SkError:
            refused += 1
            continue
        out = root / "out"
        out.mkdir()
        files = write_outputs(plan, str(out))      # runs the check: a violation raises here
        built += 1
        dynamic = [op for op in plan.ops if op["task_type"] == "dynamic"]
        kinds["dynamic"] += bool(dynamic)
        kinds["dynamic_sync_all_fed"] += any(op["sync_all"] for op in dynamic) and "feed-sync-all=1" in options
        kinds["two_stream"] += plan.mode == "two_stream"
        source = open(files["source"]).read()
        mutated, who = _take_out_one_call(plan, source, random.Random(seed))
        with pytest.raises(callcheck.EntryCheckError) as err:
            callcheck.check(plan, mutated)
        assert who in str(err.value), (seed, options)
    # The space is wide enough to mean something: most fusions build, all the shapes occur.
    assert built >= len(SEEDS) // 2, (built, refused)
    assert kinds["dynamic"] >= len(SEEDS) // 5 and kinds["two_stream"] >= len(SEEDS) // 10, kinds
    assert kinds["dynamic_sync_all_fed"] >= len(SEEDS) // 40, kinds


def test_a_fed_dynamic_op_rendered_with_the_old_rule_is_an_internal_error_and_nothing_is_written(
        tmp_path, monkeypatch):
    ops = [("d", {"kernel_type": "KERNEL_TYPE_AIV_ONLY", "sub_op_with_sync_all": True,
                  "sub_operator_kernel_name": _dynamic_names("d", "KERNEL_TYPE_AIV_ONLY", [1, 2])},
            {"task_type": "dynamic"}),
           ("s", {"kernel_type": "KERNEL_TYPE_AIV_ONLY", "block_dim": 4, "sub_op_with_sync_all": True}, {})]
    plan = plan_from(write_scenario(tmp_path, ops, options="feed-sync-all=1"))
    out = tmp_path / "out"
    out.mkdir()
    write_outputs(plan, str(out))                  # the rule now: called
    real = plan_steps._call_steps

    def old_rule(ctx, op):   # upstream's feed path for a dynamic op: its configuration, no call
        steps = real(ctx, op)
        if op["task_type"] == "dynamic" and op["sync_all"] and ctx.opts.feed_sync_all:
            steps = [s for s in steps if s["kind"] != "dyn_call"]
        return steps

    monkeypatch.setattr(plan_steps, "_call_steps", old_rule)
    plan = plan_from(tmp_path / "kernel_infos.json")
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    with pytest.raises(callcheck.EntryCheckError) as err:
        write_outputs(plan, str(fresh), str(fresh / "plan.json"))
    text = str(err.value)
    assert "op_list[0] (d__kernel0)" in text and "call_func_of_d__kernel0" in text and "tiling lock" in text
    assert "op_list[1]" not in text
    assert list(fresh.iterdir()) == []


@pytest.mark.parametrize("name", SCENARIOS or ["<no data>"])
def test_every_golden_text_against_sks_plan(name):
    if DATA is None:
        pytest.skip(WHY_ABSENT)
    plan = plan_from(DATA / name / "kernel_infos.json")
    golden = (DATA / name / "expect_sk_code.cc").read_text()
    if name != BUGGY_GOLDEN:
        callcheck.check(plan, golden)
        return
    with pytest.raises(callcheck.EntryCheckError) as err:
        callcheck.check(plan, golden)
    assert "op_list[0] (is_inf__kernel0): calls call_func_of_is_inf__kernel0(1, ...) 0 time(s)" in str(err.value)
    assert "releases its tiling lock param_base[6] 0 time(s)" in str(err.value)


def test_a_call_under_guards_of_both_sides_or_of_the_wrong_side_does_not_count(tmp_path):
    plan = plan_from(write_scenario(tmp_path, [("a", {"block_dim": 8, "split_mode": 1}, {})], options="split-mode=1",
                                    split=1))
    out = tmp_path / "out"
    out.mkdir()
    source = open(write_outputs(plan, str(out))["source"]).read()
    call = "a__kernel0_middle(1);"
    assert source.count(call) == 1
    for wrapped in ("if ASCEND_IS_AIV {\n" + call + "\n}",
                    "if ASCEND_IS_AIC {\n} else {\n" + call + "\n}"):
        with pytest.raises(callcheck.EntryCheckError, match=r"op_list\[0\] \(a__kernel0\)"):
            callcheck.check(plan, source.replace(call, wrapped))
    # A second call, or one in a comment only, is caught too.
    with pytest.raises(callcheck.EntryCheckError, match=r"2 time\(s\) on the cube side"):
        callcheck.check(plan, source.replace(call, call + "\n" + call))
    with pytest.raises(callcheck.EntryCheckError, match=r"0 time\(s\) on the cube side"):
        callcheck.check(plan, source.replace(call, "// " + call))
