"""Incremental builds of the MoE example: what Bazel re-runs after one edit, and after none.

In a throw-away clone of the repository (its committed HEAD) with its own
`--output_user_root`, so the measurement neither disturbs nor reuses the
checkout's Bazel server and caches:

  1. cold:  bazel build //examples/moe/...          (everything; not counted)
  2. null:  the same build again                    -> executed actions (want 0)
  3. edit:  one sub-kernel source gets a new function (real code, so its object
            changes), the same build                -> executed actions by target
            and mnemonic (want: that sub-kernel's actions and the SuperKernels
            that contain it, nothing else)

Executed actions are the spawns in `--execution_log_json_file` (actions served
from the action cache spawn nothing). The server is shut down and the clone
removed afterwards (`--keep` keeps it for inspection).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path

TARGETS = "//examples/moe/..."
EDITED = "examples/moe/kernels/dequant_swiglu_quant.cpp"
EDIT = '\n// bench/incremental.py: one edit of one sub-kernel source.\nextern "C" int sk_bench_edit() { return 1; }\n'


def _log_entries(path: Path) -> list[dict]:
    """The execution log is a stream of JSON objects (SpawnExec), not one document."""
    text = path.read_text() if path.exists() else ""
    decoder, pos, out = json.JSONDecoder(), 0, []
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            return out
        obj, pos = decoder.raw_decode(text, pos)
        out.append(obj)


def _summary(entries: list[dict]) -> dict:
    by_target: dict = {}
    by_mnemonic: dict = {}
    for e in entries:
        label = e.get("targetLabel", "?")
        mnemonic = e.get("mnemonic", "?")
        by_target.setdefault(label, []).append(mnemonic)
        by_mnemonic[mnemonic] = by_mnemonic.get(mnemonic, 0) + 1
    return {"executed_actions": len(entries),
            "by_target": {k: sorted(v) for k, v in sorted(by_target.items())},
            "by_mnemonic": dict(sorted(by_mnemonic.items()))}


def measure(repo: Path, *, keep: bool = False, log=print) -> dict:
    tmp = Path(tempfile.mkdtemp(prefix="sk-bench-incr-"))
    clone, root = tmp / "repo", tmp / "bazel_root"
    subprocess.run(["git", "clone", "--quiet", str(repo), str(clone)], check=True)
    bazel = [str(clone / "tools" / "bazel"), f"--output_user_root={root}"]

    def build(tag: str) -> dict:
        exec_log = tmp / f"{tag}.exec.json"
        proc = subprocess.run(bazel + ["build", TARGETS, f"--execution_log_json_file={exec_log}", "--color=no",
                                       "--curses=no"], cwd=clone, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"bazel build {TARGETS} ({tag}) failed:\n{proc.stdout[-4000:]}")
        summary = _summary(_log_entries(exec_log))
        log(f"  {tag} build: {summary['executed_actions']} executed actions")
        return summary

    try:
        edited = clone / EDITED
        if not edited.exists():
            return {"skipped": f"{EDITED} is not in the committed tree"}
        build("cold")
        null = build("null")
        edited.write_text(edited.read_text() + EDIT)
        after = build("edit")
        return {"targets": TARGETS, "edited": EDITED, "null_build": null, "one_edit": after}
    finally:
        subprocess.run(bazel + ["shutdown"], cwd=clone, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if keep:
            log(f"  kept {tmp}")
        else:
            _remove(tmp)


def _remove(path: Path) -> None:
    """rmtree that also removes Bazel's read-only output directories."""
    import os
    import stat

    def retry(func, name, _exc):
        os.chmod(os.path.dirname(name), stat.S_IRWXU)
        if os.path.isdir(name) and not os.path.islink(name):
            os.chmod(name, stat.S_IRWXU)
        func(name)

    shutil.rmtree(path, onerror=retry)
