"""SIGKILL at any point of `sk gen` / `sk link` never leaves a mixed set of outputs or a temp file.

Each command is run over the outputs of an earlier, different run (the old
generation) and killed: once at each of its file-system steps in turn (the
child SIGKILLs itself at the Nth unlink/link/rename, so every point between
two of them is hit, also between removing the old files and naming the new
ones), and at random times from outside. After each kill:

* no temporary file (`.sk-*`) is in the output directory;
* every output there is of one generation, old or new, never both;
* where the file that vouches for the others is present (`sk gen`'s kernel
  JSON, `sk link`'s JSON), all the others are too and of its generation;
  `sk link`'s JSON never gives a sha256 other than the object's beside it.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time

import pytest

from badinputs import ROOT, edit_json, fusion, sk

# Runs `python -m sk ARGV` with the Nth mutating file-system call replaced by SIGKILL of the process.
KILLER = r"""
import os, signal, sys
target, calls = int(sys.argv[1]), [0]
def deadly(fn):
    def call(*args, **kwargs):
        calls[0] += 1
        if calls[0] == target:
            os.kill(os.getpid(), signal.SIGKILL)
        return fn(*args, **kwargs)
    return call
for name in ("link", "unlink", "rename", "replace"):
    setattr(os, name, deadly(getattr(os, name)))
from sk.cli.main import main
sys.exit(main(sys.argv[2:]))
"""


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def _killed_at(n: int, argv, cwd) -> int:
    return subprocess.run([sys.executable, "-c", KILLER, str(n), *argv], cwd=cwd, env=_env(),
                          capture_output=True, text=True, timeout=300).returncode


def _killed_after(delay: float, argv, cwd) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "sk", *argv], cwd=cwd, env=_env(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    proc.wait()


def _files(directory) -> dict:
    return {name: open(os.path.join(directory, name), "rb").read() for name in sorted(os.listdir(directory))}


def _no_temp(directory) -> None:
    left = [n for n in os.listdir(directory) if n.startswith(".sk-")]
    assert not left, left


# ---------------------------------------------------------------- sk gen

def _gen_argv(ki, out):
    return ["gen", "--kernel-infos", ki, "--out-dir", out, "--plan-out", os.path.join(out, "plan.json")]


@pytest.fixture
def gen_generations(tmp_path):
    """(argv, old files, new files, restore-old): two different outputs of one kernel_infos."""
    ki = fusion(tmp_path / "in")
    out = str(tmp_path / "out")
    assert sk(_gen_argv(ki, out)).rc == 0
    old = _files(out)
    edit_json(ki, lambda d: d.update(super_kernel_options="profiling=1"))
    assert sk(_gen_argv(ki, out)).rc == 0
    new = _files(out)
    assert set(old) == set(new) and all(old[n] != new[n] for n in ("plan.json", "te_superkernel_t_kernel.cpp"))

    def restore():
        shutil.rmtree(out)
        os.makedirs(out)
        for name, data in old.items():
            with open(os.path.join(out, name), "wb") as f:
                f.write(data)

    return _gen_argv(ki, out), out, old, new, restore


def _check_gen(out, old, new) -> str:
    _no_temp(out)
    files = _files(out)
    # The generations each file may be of (a file both runs wrote alike is of either).
    common = {"old", "new"}
    for name, data in files.items():
        common &= {g for g, docs in (("old", old), ("new", new)) if docs.get(name) == data}
    assert common, ("old and new files side by side", sorted(files))
    if "te_superkernel_t.json" in files:  # the file that vouches for the others: published last
        assert set(files) == set(new), sorted(files)
    return "none" if not files else common.pop() if len(common) == 1 else "either"


def test_sk_gen_killed_at_every_step_never_mixes_generations(gen_generations):
    argv, out, old, new, restore = gen_generations
    seen = set()
    for n in range(1, 200):
        restore()
        rc = _killed_at(n, argv, os.path.dirname(out))
        seen.add(_check_gen(out, old, new))
        if rc == 0:  # got past its last step
            assert _files(out) == new
            break
        assert rc == -signal.SIGKILL, rc
    else:
        pytest.fail("sk gen never finished")
    assert n > 5 and {"old", "new"} <= seen, (n, seen)


def test_sk_gen_killed_at_random_times_never_mixes_generations(gen_generations):
    argv, out, old, new, restore = gen_generations
    rng = random.Random(24)
    start = time.monotonic()
    assert sk(argv).rc == 0
    took = time.monotonic() - start
    for _ in range(12):
        restore()
        _killed_after(rng.uniform(0.0, took * 1.2), argv, os.path.dirname(out))
        _check_gen(out, old, new)


# ---------------------------------------------------------------- sk link

LINK_MODEL = os.path.join(ROOT, "tests", "e2e", "models", "mixed", "model.json")


@pytest.fixture(scope="module")
def link_inputs(tmp_path_factory):
    """The argv of `sk link` over a real SuperKernel's inputs (built by `sk run`), and its output dir."""
    if not os.path.exists(LINK_MODEL) or not (shutil.which("g++") and shutil.which("ld")):
        pytest.skip("needs tests/e2e/models/mixed and the host g++/ld")
    tmp = tmp_path_factory.mktemp("link")
    build = tmp / "build"
    res = sk(["run", "--model", LINK_MODEL, "--build-dir", str(build), "--prof-dir", str(tmp / "prof"),
              "--repeat", "1"])
    assert res.rc == 0, res.err
    root = build / "sk" / "mixed_sk"
    infos = json.loads((root / "kernel_infos.json").read_text())
    subs = [a for op in infos["op_list"] for a in ("--sub-obj", str(root / op["bin_path"]))]
    out = tmp / "out"
    out.mkdir()
    argv = ["link", "--toolchain", "host", "--ld", shutil.which("ld"), "--objcopy", shutil.which("objcopy"),
            "--plan", str(root / "plan.json"), "--entry-dir", str(root / "entry"), *subs,
            "--meta-in", str(root / "gen" / "mixed_sk.json"), "--out-obj", str(out / "mixed_sk.o"),
            "--out-json", str(out / "mixed_sk.json")]
    return argv, str(out)


def _old_link(out):
    """An older link's outputs: another object and the JSON that vouches for it."""
    for name in os.listdir(out):
        os.unlink(os.path.join(out, name))
    old = b"\x7fELF an older SuperKernel object"
    with open(os.path.join(out, "mixed_sk.o"), "wb") as f:
        f.write(old)
    with open(os.path.join(out, "mixed_sk.json"), "w") as f:
        json.dump({"kernelName": "mixed_sk", "sha256": hashlib.sha256(old).hexdigest()}, f)


def _check_link(out) -> str:
    _no_temp(out)
    files = _files(out)
    assert set(files) <= {"mixed_sk.o", "mixed_sk.json"}, sorted(files)
    if "mixed_sk.json" in files:
        assert "mixed_sk.o" in files
        assert json.loads(files["mixed_sk.json"])["sha256"] == hashlib.sha256(files["mixed_sk.o"]).hexdigest()
        return "old" if files["mixed_sk.o"].startswith(b"\x7fELF an older") else "new"
    return "partial"


def test_sk_link_killed_at_every_step_never_leaves_a_json_for_another_object(link_inputs):
    argv, out = link_inputs
    seen = set()
    for n in range(1, 400):
        _old_link(out)
        rc = _killed_at(n, argv, out)
        seen.add(_check_link(out))
        if rc == 0:
            assert _check_link(out) == "new"
            break
        assert rc == -signal.SIGKILL, rc
    else:
        pytest.fail("sk link never finished")
    assert {"old", "new", "partial"} <= seen, seen


def test_sk_link_killed_at_random_times_never_leaves_a_json_for_another_object(link_inputs):
    argv, out = link_inputs
    rng = random.Random(24)
    _old_link(out)
    start = time.monotonic()
    assert sk(argv).rc == 0
    took = time.monotonic() - start
    for _ in range(12):
        _old_link(out)
        _killed_after(rng.uniform(0.0, took * 1.2), argv, out)
        _check_link(out)


# ---------------------------------------------------------------- scratch directories

def test_scratch_directories_a_kill_left_are_removed_by_the_next_run(link_inputs, tmp_path):
    """A killed step cannot remove its scratch directory under $TMPDIR; the next sk run there does,
    and leaves alone the one of a run still going (its lock is held) and an older sk's (another name)."""
    import fcntl

    argv, out = link_inputs
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    env = dict(_env(), TMPDIR=str(tmpdir))
    killer = [sys.executable, "-c", KILLER]
    for n in (3, 5, 8):  # somewhere among the link's steps, after its scratch directory was made
        _old_link(out)
        subprocess.run([*killer, str(n), *argv], cwd=out, env=env, capture_output=True, timeout=300)
    left = [p for p in os.listdir(tmpdir) if p.startswith(".sk-scratch-")]
    assert left, "the kills left no scratch directory: the test proves nothing"
    live = tmpdir / ".sk-scratch-live"
    live.mkdir()
    older = tmpdir / ".sk-work-older"  # an older sk's scratch directory: no lock, maybe live
    older.mkdir()
    with open(live / ".held", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        assert subprocess.run([sys.executable, "-m", "sk", *argv], cwd=out, env=env,
                              capture_output=True, timeout=300).returncode == 0
        assert sorted(p for p in os.listdir(tmpdir) if p.startswith(".sk-")) == [".sk-scratch-live", ".sk-work-older"]
