"""Nothing half-written: a failing sk command leaves no new output and keeps the previous good one.

Each writer is run once successfully, its outputs are recorded, then it is
run again with a bad input (or a destination that cannot be replaced); the
outputs must be byte-identical to the good ones and no temp file may remain.
`sk link` has the same check in sk/tests/test_link.py
(test_unresolved_symbol_names_the_object_and_symbol_and_writes_nothing).
"""

from __future__ import annotations

import os
import shutil

import pytest

from badinputs import edit_json, fusion, make_object, no_calls_scan, sk
from sk.base.errors import SkError
from sk.base.toolrun import write_files_atomic

LD, OBJCOPY = shutil.which("ld"), shutil.which("objcopy")


def snapshot(directory):
    """{relative path: bytes} of every file under directory (temp files included, so leftovers show)."""
    out = {}
    for base, _, names in os.walk(directory):
        for name in names:
            path = os.path.join(base, name)
            with open(path, "rb") as f:
                out[os.path.relpath(path, directory)] = f.read()
    return out


def no_temp_files(directory):
    return not [p for p in snapshot(directory) if os.path.basename(p).startswith(".sk-")]


def test_write_files_atomic_all_or_nothing(tmp_path):
    a, b, c = tmp_path / "a.txt", tmp_path / "b.bin", tmp_path / "c.txt"
    write_files_atomic({str(a): "A1", str(b): b"B1"})
    assert a.read_text() == "A1" and b.read_bytes() == b"B1"
    c.mkdir()  # a directory in the way of the last output: refused before a and b are touched
    (c / "keep").write_text("x")
    with pytest.raises(SkError, match="is a directory"):
        write_files_atomic({str(a): "A2", str(b): b"B2", str(c): "C2"})
    assert a.read_text() == "A1" and b.read_bytes() == b"B1"  # rolled back
    assert (c / "keep").read_text() == "x"
    assert no_temp_files(tmp_path)
    new = tmp_path / "new.txt"
    with pytest.raises(SkError, match="is a directory"):
        write_files_atomic({str(new): "N", str(c): "C2"})
    assert not new.exists()  # created by the failed call, so removed again
    assert no_temp_files(tmp_path)


def _gen(tmp, ki, plan_out=None):
    argv = ["gen", "--kernel-infos", ki, "--out-dir", os.path.join(tmp, "out")]
    if plan_out:
        argv += ["--plan-out", plan_out]
    return sk(argv)


def test_gen_failure_keeps_previous_outputs_and_writes_none(tmp_path):
    ki = fusion(tmp_path / "in")
    plan = str(tmp_path / "out" / "plan.json")
    assert _gen(str(tmp_path), ki, plan).rc == 0
    good = snapshot(tmp_path / "out")
    assert len(good) == 4
    edit_json(ki, lambda d: d.update(super_kernel_options="split-mode=0"))
    res = _gen(str(tmp_path), ki, plan)
    assert res.rc == 2 and "split-mode" in res.err
    assert snapshot(tmp_path / "out") == good

    fresh = tmp_path / "fresh"
    res = sk(["gen", "--kernel-infos", ki, "--out-dir", str(fresh / "out")])
    assert res.rc == 2
    assert not fresh.exists() or not snapshot(fresh)


def test_gen_failure_midway_through_writing_restores_every_file(tmp_path):
    """The plan file cannot be replaced (a directory is in the way): refused by the output gate before
    the source, kernel JSON and compile options are touched; all three stay the previous good ones."""
    ki = fusion(tmp_path / "in")
    out = tmp_path / "out"
    assert _gen(str(tmp_path), ki, str(out / "plan.json")).rc == 0
    edit_json(ki, lambda d: d.update(super_kernel_options="profiling=1"))  # different outputs
    blocker = tmp_path / "blocked"
    blocker.mkdir()
    (blocker / "x").write_text("x")
    good = snapshot(out)
    res = _gen(str(tmp_path), ki, str(blocker))
    assert res.rc == 2, res.err
    assert "--plan-out" in res.err and "is a directory" in res.err and "Traceback" not in res.err
    assert snapshot(out) == good
    assert no_temp_files(tmp_path)


@pytest.mark.skipif(not (LD and OBJCOPY), reason="needs ld and objcopy on PATH")
def test_subkernel_pack_failure_keeps_previous_archive_and_json(tmp_path):
    kernel = make_object(tmp_path / "kernel.o", ["k"], 16)
    wrapper = make_object(tmp_path / "wrapper.o", ["k_middle"], 16)
    out = tmp_path / "out"

    def pack(kernel_obj):
        return sk(["subkernel", "pack", "--toolchain", "host", "--ld", LD, "--objcopy", OBJCOPY,
                   "--kernel-type", "AIV_ONLY", "--block-dim", "8", "--options", "split-mode=2",
                   "--kernel-obj", kernel_obj, "--wrapper-obj", wrapper, "--entry", "k",
                   "--sync-scan", no_calls_scan(tmp_path / "scan.json"),
                   "--out-obj", str(out / "k.o"), "--out-json", str(out / "k.json")])

    res = pack(kernel)
    assert res.rc == 0, res.err
    good = snapshot(out)
    assert sorted(good) == ["k.json", "k.o"]
    bad = make_object(tmp_path / "bad.o", ["not_k"], 16)
    res = pack(bad)
    assert res.rc == 2 and "does not define the entry function" in res.err
    assert snapshot(out) == good


def test_report_failure_keeps_previous_report(tmp_path):
    ki = fusion(tmp_path / "in")
    plan = str(tmp_path / "out" / "plan.json")
    assert _gen(str(tmp_path), ki, plan).rc == 0
    meta = str(tmp_path / "out" / "te_superkernel_t.json")
    report = tmp_path / "rep" / "report.md"
    res = sk(["report", "--plan", plan, "--meta", meta, "-o", str(report)])
    assert res.rc == 0, res.err
    good = report.read_bytes()
    broken = tmp_path / "broken.json"
    broken.write_text('{"kernelName": ')
    res = sk(["report", "--plan", plan, "--meta", str(broken), "-o", str(report)])
    assert res.rc == 2, res.err
    assert "Traceback" not in res.err
    assert report.read_bytes() == good
    assert no_temp_files(tmp_path / "rep")
