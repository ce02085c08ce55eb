"""Tiling-sink ops and memory-semantic events on the CPU twin (facts §15): the AI CPU tiling task and
the SDMA prefetch task run as threads beside the SuperKernel, the unfused run calls the same tiling
function on the host between launches, and both give the same bytes; what cannot work is refused
when the model is read, and what fails at run time ends in bounded time naming op, word and task."""

import json
import os
import shutil
import struct
import time

import pytest

from sk.base.errors import SkError
from sk.tests.harness import HOST_TOOLS
from sk.twin import model as model_mod
from sk.twin import run

REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
MODEL = os.path.join(REPO, "tests", "e2e", "models", "tiling_sink")
KERNELS = os.path.join(REPO, "examples", "moe_dynamic", "kernels")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    if not all(HOST_TOOLS.values()):
        pytest.skip("needs g++, ld and objcopy on PATH")
    from sk.twin import binding as twin

    root = tmp_path_factory.mktemp("sink")
    m = model_mod.load(os.path.join(MODEL, "model.json"))
    b = run.build(m, str(root / "build"), compiler=HOST_TOOLS["g++"], ld=HOST_TOOLS["ld"],
                  objcopy=HOST_TOOLS["objcopy"], runtime_dir=str(twin.default_build_dir()))
    return root, m, b


def floats(data):
    return struct.unpack(f"<{len(data) // 4}f", data)


def test_fused_with_tasks_equals_separate_and_takes_both_tiling_keys(built):
    _, m, b = built
    session = run.Session(m, b, seed=0)
    results = session.run(session.separate(trace=False)[0])
    separate = session.memory.snapshot()
    fused_specs = session.fused(trace=False)[0]
    assert [type(s).__name__ for s in fused_specs] == ["TaskLaunch", "TaskLaunch"]
    results = session.run(fused_specs)
    fused = session.memory.snapshot()
    assert all(r.ok for r in results) and fused == separate
    x1, w = floats(fused["x1"]), floats(fused["w"])
    rows = struct.unpack("<i", fused["c1"][:4])[0]
    assert 0 < rows < 1024   # random tokens: key 1, `rows` tokens scaled, in ceil(rows / 128) blocks
    z1 = floats(fused["z1"])
    assert z1[:rows] == floats(struct.pack(f"<{rows}f", *(a * 2.0 * c for a, c in zip(x1[:rows], w))))
    assert all(v == 0.0 for v in z1[rows:])
    # All tokens routed (x2 = ones): key 2, every token shifted by one.
    z2 = floats(fused["z2"])
    assert z2 == floats(struct.pack("<1024f", *(2.0 * c for c in w)))
    # The SuperKernel's tiling words were written by the tasks (key 2, 8 blocks for moe_b) and its
    # lock reset by the kernel.
    words = session.memory._sk_buffers[("moe_b", "words")][0].read()
    # The words in param_base order: route's notify, then the tiling key, block count and lock.
    key, blocks, lock = (struct.unpack_from("<Q", words, 64 * i)[0] for i in range(1, 4))
    assert (key, blocks, lock) == (2, 8, 0)


def test_a_tiling_function_that_fails_ends_the_launch_at_once_naming_the_task_and_its_value(built, monkeypatch):
    root, m, b = built
    broken = root / "broken"
    os.makedirs(broken, exist_ok=True)
    shutil.copy(os.path.join(KERNELS, "grouped.h"), broken / "grouped.h")
    src = broken / "grouped_tiling.cpp"
    src.write_text(open(os.path.join(KERNELS, "grouped_tiling.cpp")).read().replace("return 0;", "return 7;"))
    k = m.kernels["grouped"]
    lib = run.build_tiling_function(HOST_TOOLS["g++"], type(k)(**{**k.__dict__, "tiling_srcs": (str(src),)}),
                                    str(broken / "grouped_tiling.so"))
    # Known when the function returns: the launch does not wait out the watchdog's 60 s.
    monkeypatch.setenv("SK_TWIN_TIMEOUT_MS", "60000")
    session = run.Session(m, type(b)(runtime=b.runtime, standalone=b.standalone, scopes=b.scopes,
                                     tiling={"grouped": lib}), seed=0)
    start = time.monotonic()
    with pytest.raises(SkError) as err:
        session.run(session.fused(trace=False)[0])
    assert time.monotonic() - start < 20
    text = str(err.value)
    assert "task 'tiling_a' failed: its tiling function grouped_tiling of op 2 (grouped_a) returned 7, so it " \
           "wrote no tiling and did not release GM word " in text, text
    assert "(__ac_wait_lock_2, the tiling lock of op 2 (grouped_a) of moe_a: " in text, text
    assert "deadlock" not in text.lower(), text
    # Unfused, the host call fails the same function, naming it and the op.
    with pytest.raises(SkError, match=r"tiling function grouped_tiling of op 2 \(grouped_a\) returned 7"):
        session.run(session.separate(trace=False)[0])


# Faulty tiling functions: the fault comes first in grouped_tiling, so op 2 (grouped_a)'s task fails.
TILING_FAULTS = {
    "segfault": ("*(volatile int*)nullptr = 1;", "crashed: SIGSEGV, invalid memory write at 0x0"),
    "abort": ("abort();", "crashed: SIGABRT, abort() called"),
    "trap": ("__builtin_trap();", "crashed: SIGILL, illegal instruction"),
    "throw": ("throw std::runtime_error(\"no rows\");", "threw: no rows"),
    "endless_loop": ("for (volatile int k = 0;; k = k + 1) {}", "never returned: it ran for"),
}


def _faulty_tiling(root, built_model, fault):
    _, m, _ = built_model
    d = root / f"tiling_{fault}"
    os.makedirs(d, exist_ok=True)
    shutil.copy(os.path.join(KERNELS, "grouped.h"), d / "grouped.h")
    src = d / "grouped_tiling.cpp"
    code = open(os.path.join(KERNELS, "grouped_tiling.cpp")).read()
    code = code.replace('#include "sk_tiling.h"', '#include <cstdlib>\n#include <stdexcept>\n#include "sk_tiling.h"')
    code = code.replace("extern \"C\" int grouped_tiling(SkTilingContext* ctx) {",
                        "extern \"C\" int grouped_tiling(SkTilingContext* ctx) {\n    " + TILING_FAULTS[fault][0])
    src.write_text(code)
    k = m.kernels["grouped"]
    return run.build_tiling_function(HOST_TOOLS["g++"], type(k)(**{**k.__dict__, "tiling_srcs": (str(src),)}),
                                     str(d / "grouped_tiling.so"))


@pytest.mark.parametrize("fault", sorted(TILING_FAULTS))
def test_a_faulty_tiling_function_fails_the_launch_naming_it_and_the_twin_goes_on(built, monkeypatch, fault):
    """In the tiling task (fused) and on the host (unfused): an error naming the op, the task or launch
    and the fault, within the watchdog's time; then the same process runs the model again."""
    root, m, b = built
    lib = _faulty_tiling(root, built, fault)
    monkeypatch.setenv("SK_TWIN_TIMEOUT_MS", "500")
    session = run.Session(m, type(b)(runtime=b.runtime, standalone=b.standalone, scopes=b.scopes,
                                     tiling={"grouped": lib}), seed=0)
    limit = 5 if fault == "endless_loop" else 2

    def fails(specs, what):
        start = time.monotonic()
        with pytest.raises(SkError) as err:
            session.run(specs, what)
        took = time.monotonic() - start
        assert took < limit, took
        return str(err.value), took

    text, took = fails(session.fused(trace=False)[0], "SuperKernel run")
    assert "SuperKernel run, launch 1 of 2: kernel moe_a" in text, text
    assert "task 'tiling_a' failed: its tiling function grouped_tiling of op 2 (grouped_a) " \
           + TILING_FAULTS[fault][1] in text, text
    assert "detached" not in text, text  # taken back (a hang) or ended by the fault, and joined
    print(f"\n{fault}: {text} ({took:.2f} s)")
    text, took = fails(session.separate(trace=False)[0], "separate run")
    assert "Separate run, launch 3 of 8: tiling function grouped_tiling of op 2 (grouped_a)" in text, text
    assert "the tiling function grouped_tiling of op 2 (grouped_a) " + TILING_FAULTS[fault][1] in text, text
    print(f"\n{fault}: {text} ({took:.2f} s)")
    good = run.Session(m, b, seed=0)
    assert all(r.ok for r in good.run(good.fused(trace=False)[0]))


def _model(tmp_path, edit):
    doc = json.loads(open(os.path.join(MODEL, "model.json")).read())
    for k in doc["kernels"].values():
        k["src"] = os.path.normpath(os.path.join(MODEL, k["src"]))
        k["tiling_srcs"] = [os.path.normpath(os.path.join(MODEL, x)) for x in k.get("tiling_srcs", [])] or None
        if k["tiling_srcs"] is None:
            del k["tiling_srcs"]
    edit(doc)
    path = tmp_path / "model.json"
    path.write_text(json.dumps(doc))
    return model_mod.load(str(path))


def test_a_tiling_sink_op_without_its_tiling_task_is_refused(tmp_path):
    with pytest.raises(SkError, match=r"tasks: .*needs a tiling task.*grouped_b"):
        _model(tmp_path, lambda d: d["tasks"].pop(2))


def test_a_tiling_task_waiting_for_the_op_right_before_is_refused(tmp_path):
    def edit(d):
        d["ops"][1]["send_events"] = [7]
        del d["ops"][0]["send_events"]
    with pytest.raises(SkError, match=r"tasks\[0\]\.wait_event.*right before its tiling-sink op"):
        _model(tmp_path, edit)


def _build_section(edit):
    """The model as sk_model's manifest gives it: BUILD's kernels, ops, scopes and tasks, each with its label."""
    doc = json.loads(open(os.path.join(MODEL, "model.json")).read())
    edit(doc)
    for key, k in doc["kernels"].items():
        k.update(label=f"//m:{key}", entry=k.get("entry", key), output_shape=k.get("output_shape", False),
                 workspace=k.get("workspace", False), tiling=k.get("tiling", False), op_type="", copts=[])
    for o in doc["ops"]:
        o.update(label=f"//m:{o['name']}", workspace_bytes=o.get("workspace_bytes", 0), stream=o.get("stream", 0),
                 send_events=o.get("send_events", []), recv_events=o.get("recv_events", []))
        o.pop("tiling", None)
    for s in doc["super_kernels"]:
        s.update(label=f"//m:{s['name']}", options=s.get("options", ""))
    for t in doc["tasks"]:
        t["label"] = f"//m:{t['name']}"
    return dict(doc, data="data.json"), {"tensors": doc["tensors"], "ops": []}


def test_a_late_tiling_task_from_build_names_its_target_not_the_data_file(tmp_path):
    def edit(d):
        d["ops"][1]["send_events"] = [7]
        del d["ops"][0]["send_events"]
    section, data = _build_section(edit)
    (tmp_path / "data.json").write_text(json.dumps(data))
    with pytest.raises(SkError) as err:
        model_mod.from_build(section, MODEL, str(tmp_path / "data.json"))
    text = str(err.value)
    assert text.startswith("sk_tiling_task //m:tiling_a (attribute wait_event): the tiling task waits for an event "
                           "the op right before"), \
        text
    assert "data.json" not in text and "tasks[" not in text, text
    # The same BUILD, its events right, is a model.
    section, data = _build_section(lambda d: None)
    assert [t.name for t in model_mod.from_build(section, MODEL, str(tmp_path / "data.json")).tasks] == \
        ["tiling_a", "prefetch_a", "tiling_b", "prefetch_b"]


def test_an_event_no_one_sends_or_receives_is_refused(tmp_path):
    with pytest.raises(SkError, match=r"tasks\[1\]\.send_event.*recv_events"):
        _model(tmp_path, lambda d: d["tasks"][1].update(send_event=11))
    with pytest.raises(SkError, match=r"waits for an event nothing sends.*combine_a: 9"):
        _model(tmp_path, lambda d: d["tasks"].pop(1))
