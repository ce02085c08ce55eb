"""End to end on the CPU twin: build sub-kernels, generate, link, run separately and fused.

Models: a mixed cube/vector chain whose
kernels define colliding global helpers (models/mixed), cube and vector ops on two streams joined by an
event (models/streams), a sub-kernel that
calls SyncAll on fewer cores than the SuperKernel (models/syncall) and a
split-mode 4 SuperKernel (models/split), a tiling-sink kernel that calls SyncAll fused
with feed-sync-all=1 (models/tiling_syncall), and kernels written the way Ascend C
is taught (models/ascendc: TPipe/TQue double buffering on half, a leaky ReLU
with TBuf scratch, a block reduction with ReduceSum + DataCopyPad + SyncAll),
with seeded bugs that the twin's hardware rules must catch.
"""

import json
import os
import struct

import pytest

from sk.twin import model as model_mod
from sk.binfmt import objfacts
from sk.twin import run
from sk.twin import binding as _twin
from sk.base.errors import SkError
from sk.tests.harness import HOST_TOOLS, needs_host_tools, needs_twin_sources

# One twin runtime per process: share the build every other test uses, so the
# whole suite can run in one pytest process.
RUNTIME_DIR = str(_twin.default_build_dir())

HERE = os.path.dirname(os.path.abspath(__file__))
MODELS = os.path.join(HERE, "models")
REPO = os.path.dirname(os.path.dirname(HERE))
pytestmark = [needs_host_tools, needs_twin_sources]


@pytest.fixture(scope="session")
def build_root(tmp_path_factory):
    return tmp_path_factory.mktemp("sk-e2e")


def model_variant(model_dir, tmp_path, name, edit):
    """A copy of models/<model_dir>/model.json under tmp_path/name, changed by edit(doc), kernels where they are."""
    src = os.path.join(MODELS, model_dir)
    doc = json.loads(open(os.path.join(src, "model.json")).read())
    for k in doc["kernels"].values():
        k["src"] = os.path.join(src, k["src"])
    edit(doc)
    path = tmp_path / name / "model.json"
    path.parent.mkdir()
    path.write_text(json.dumps(doc))
    return str(path)


def run_model(path, build_root, capsys, **kw):
    name = os.path.basename(os.path.dirname(path))
    prof = build_root / f"prof-{name}"
    report = run.run_model(path, build_dir=str(build_root / name), seed=kw.pop("seed", 1),
                           repeat=kw.pop("repeat", 1), compiler=HOST_TOOLS["g++"], ld=HOST_TOOLS["ld"],
                           objcopy=HOST_TOOLS["objcopy"], runtime_dir=RUNTIME_DIR)
    run.write_profile(report, str(prof))
    run.write_trace(report, str(prof / "trace.json"))
    return (0 if report.identical else 1), "\n".join(report.lines()), prof


def test_profile_and_trace_of_a_model_run(build_root, capsys):
    code, out, prof = run_model(os.path.join(MODELS, "syncall", "model.json"), build_root / "profile", capsys,
                                repeat=2)
    assert code == 0, out
    assert "superkernel benefit:" in out
    no_sk = (prof / "no_sk_model" / "op_statistic.csv").read_text().splitlines()
    sk = (prof / "sk_model" / "op_statistic.csv").read_text().splitlines()
    assert no_sk[0].startswith("OP Type,Core Type,Count,Total Time(us)")
    assert sorted(line.split(",")[2] for line in no_sk[1:]) == ["2"] * (len(no_sk) - 1)  # each op x 2 rounds
    assert sk[1].startswith("SuperKernel,") and sk[1].split(",")[2] == "2"
    trace = json.loads((prof / "trace.json").read_text())
    cats = {e.get("cat") for e in trace["traceEvents"] if e["ph"] == "X"}
    assert {"kernel", "sub_kernel"} <= cats


def bit_exact(path, build_root, capsys, outputs: int, scope: str):
    """Runs the model, which must end bit-exact over `outputs` output tensors; the build directory of its
    SuperKernel `scope`."""
    code, out, _ = run_model(path, build_root, capsys)
    assert code == 0, out
    assert f"outputs identical: {outputs} output tensors" in out
    return build_root / os.path.basename(os.path.dirname(path)) / "sk" / scope


def test_mixed_cube_vector_with_colliding_helpers(build_root, capsys):
    root = bit_exact(os.path.join(MODELS, "mixed", "model.json"), build_root, capsys, 3, "mixed_sk")
    meta = json.loads((root / "mixed_sk.json").read_text())
    assert meta["taskRation"] == "1:2"
    # Both sub-kernels' helper() are in the object, as local symbols.
    assert len(local_copies(root / "mixed_sk.o", "_Z6helperi")) >= 2


def local_copies(fused_obj, name):
    """The symbols `name` of a SuperKernel whose globals are its two entries and g_opSystemRunCfg (as
    upstream's), each checked local."""
    fused = objfacts.read_object(str(fused_obj))
    assert sorted(s.name for s in fused.defined_globals()) == ["g_opSystemRunCfg", "mixed_sk_mix_aic",
                                                                "mixed_sk_mix_aiv"]
    copies = [s for s in fused.symbols if s.name == name]
    assert all(s.bind == "LOCAL" for s in copies), copies
    return copies


def test_profiling_in_both_halves_of_a_mixed_superkernel(build_root, tmp_path, capsys):
    # profiling=1 gives each half its own inline thread_local g_profiling_* (g++: STB_GNU_UNIQUE),
    # which must end up local in each half instead of colliding in the link.
    path = model_variant("mixed", tmp_path, "profiled",
                         lambda doc: doc["super_kernels"][0].update(options="stream-fusion=1:profiling=1"))
    root = bit_exact(path, build_root / "profiled", capsys, 3, "mixed_sk")
    # Two halves, each in its object and that object's 3 split copies (split-mode 4, as upstream copies it).
    assert len(local_copies(root / "mixed_sk.o", "g_profiling_task_id")) == 2 * 4


def test_two_real_streams_with_an_event_between_them(build_root, capsys):
    # c0, c1 on the cube stream, v0, v1 on the vector stream; event 5 orders c1 (writes c) before v1 (reads
    # it): the two-stream shape (facts §14.1) with the cross-core edge that event makes (facts §5.3).
    root = bit_exact(os.path.join(MODELS, "streams", "model.json"), build_root, capsys, 4, "streams_sk")
    plan = json.loads((root / "plan.json").read_text())
    assert plan["mode"] == "two_stream"
    assert {"from": 2, "to": 3, "kind": "cub:vec"} in plan["sync_edges"]
    infos = json.loads((root / "kernel_infos.json").read_text())["op_list"]
    assert [(o["stream_id"], o["send_event_list"], o["recv_event_list"]) for o in infos] == [
        (0, [], []), (1, [], []), (0, [5], []), (1, [], [5])]


def test_sync_all_on_fewer_cores_runs_with_feed_sync_all(build_root, capsys):
    code, out, _ = run_model(os.path.join(MODELS, "syncall", "model.json"), build_root, capsys)
    assert code == 0, out
    sub = json.loads((build_root / "syncall" / "sk" / "syncall_sk" / "subs" / "gather_end" / "gather_end.json")
                     .read_text())
    assert sub["sub_op_with_sync_all"] is True


def test_sync_all_on_fewer_cores_without_feed_sync_all_is_refused(build_root, tmp_path, capsys, monkeypatch):
    # It would deadlock (the idle cores never reach the SyncAll); the plan refuses it before any launch.
    path = model_variant("syncall", tmp_path, "nofeed",
                         lambda doc: doc["super_kernels"][0].update(options="feed-sync-all=0"))
    monkeypatch.setenv("SK_TWIN_TIMEOUT_MS", "1500")
    with pytest.raises(SkError) as err:
        run_model(path, build_root, capsys)
    text = str(err.value)
    assert "op_list[1] (gather)" in text and "SyncAll<true>" in text and "hangs" in text
    assert "feed-sync-all=1" in text


def test_tiling_sink_op_calling_sync_all_runs_fed_and_bit_exact(build_root):
    # models/tiling_syncall: route -> gather (static, SyncAll on 4 of the SK's vector cores: fed) -> syncsum
    # (tiling-sink, SyncAll<true> over every launched vector core), feed-sync-all=1. Upstream's rule
    # left syncsum out of the SuperKernel (feed configuration, no call): y stayed zero in the fused run.
    m = model_mod.load(os.path.join(MODELS, "tiling_syncall", "model.json"))
    built = run.build(m, str(build_root / "tiling_syncall"), compiler=HOST_TOOLS["g++"], ld=HOST_TOOLS["ld"],
                      objcopy=HOST_TOOLS["objcopy"], runtime_dir=RUNTIME_DIR)
    scope = built.scopes["syncsum_sk"]
    assert [(op["kernel_name"], op["task_type"], op["sync_all"], op["feed_sync_all"]) for op in scope.plan["ops"]] \
        == [("route", "normal", False, False), ("gather", "normal", True, True), ("syncsum", "dynamic", True, False)]
    source = (build_root / "tiling_syncall" / "sk" / "syncsum_sk" / "gen" / "syncsum_sk_kernel.cpp").read_text()
    assert source.count("call_func_of_syncsum(") == 2   # its definition and the one call
    session = run.Session(m, built, seed=3)
    results = session.run(session.separate(trace=False)[0])
    assert all(r.ok for r in results)
    separate = session.memory.snapshot()
    results = session.run(session.fused(trace=False)[0])
    assert all(r.ok for r in results)
    fused = session.memory.snapshot()
    assert fused == separate
    # Independently: rows = how many x > 0; y[i] = 2 v[i] + sum(v[:rows]) below rows, else 0.
    x = struct.unpack("<1024f", fused["x"])
    v = struct.unpack("<1024i", fused["v"])
    rows = sum(1 for a in x if a > 0.0)
    assert 128 < rows < 1024   # several of the tiling's blocks, fewer than the SK's 48 vector cores
    total = sum(v[:rows])
    assert struct.unpack("<1024i", fused["y"]) == tuple([2 * a + total for a in v[:rows]] + [0] * (1024 - rows))
    blocks = (rows + 127) // 128
    assert struct.unpack("<64i", fused["partial"])[:blocks] == tuple(
        sum(v[b * 128:min(b * 128 + 128, rows)]) for b in range(blocks))
    g = struct.unpack("<512i", fused["g"])
    assert struct.unpack("<4i", fused["gout"]) == tuple(sum(g) + b for b in range(4))


def test_split_mode_4_dispatches_copies_by_core_id(build_root, capsys):
    path = os.path.join(MODELS, "split", "model.json")
    m = model_mod.load(path)
    built = run.build(m, str(build_root / "split"), compiler=HOST_TOOLS["g++"], ld=HOST_TOOLS["ld"],
                      objcopy=HOST_TOOLS["objcopy"], runtime_dir=RUNTIME_DIR)
    session = run.Session(m, built, seed=0)
    session.run([session.scope_launch(m.scopes[0], False)])
    addrs = struct.unpack("<8q", session.memory.tensors["addrs"].read())
    ids = struct.unpack("<8q", session.memory.tensors["ids"].read())
    by_class = {}
    for addr, core in zip(addrs, ids):
        by_class.setdefault(core % 4, set()).add(addr)
    # One copy per core-id class, four different copies.
    assert all(len(v) == 1 for v in by_class.values())
    assert len({a for v in by_class.values() for a in v}) == len(by_class) == 4


def test_a_fused_result_that_differs_is_reported(build_root, capsys):
    # raw_blocks reads the launch's block count, which fusion changes: sk run must say so and fail.
    code, out, _ = run_model(os.path.join(MODELS, "split", "model.json"), build_root, capsys)
    assert code == 1
    assert "MISMATCH raw:" in out and "outputs differ" in out


ASCENDC = os.path.join(MODELS, "ascendc")


def test_ascendc_kernels_fuse_bit_exact(build_root, capsys):
    code, out, _ = run_model(os.path.join(ASCENDC, "model.json"), build_root, capsys)
    assert code == 0, out
    assert "outputs identical: 3 output tensors" in out


# kernel, define, the parts of the error: the call and its values.
SEEDED_BUGS = {
    "unaligned_copy": ("half_add", "SEED_UNALIGNED_COPY",
                       ["DataCopy<half>(GM->UB, count 100)", "200 bytes is not a multiple of 32"]),
    "ub_overflow": ("leaky_relu", "SEED_UB_OVERFLOW",
                    ["TPipe::InitBuffer(buf, len 196608)", "196608 bytes", "bytes are left"]),
    "double_deque": ("block_sum", "SEED_DOUBLE_DEQUE", ["TQue::DeQue", "is empty", "DeQue exactly once per EnQue"]),
}


@pytest.mark.parametrize("bug", sorted(SEEDED_BUGS))
def test_ascendc_seeded_bug_fails_with_the_rule(build_root, tmp_path, capsys, bug):
    kernel, define, parts = SEEDED_BUGS[bug]
    path = model_variant("ascendc", tmp_path, bug, lambda doc: doc["kernels"][kernel].update(copts=[f"-D{define}"]))
    doc = json.loads(open(path).read())
    with pytest.raises(SkError) as err:
        run_model(path, build_root, capsys)
    text = str(err.value)
    # The separate launch of the op fails first: the message names that kernel, its block and the call.
    assert f"kernel '{doc['ops'][[o['kernel'] for o in doc['ops']].index(kernel)]['name']}'" in text, text
    assert "AIV 0 (block 0)" in text, text
    for part in parts:
        assert part in text, text
