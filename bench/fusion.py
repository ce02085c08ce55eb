"""Fusion-time scaling: `sk gen` + `sk link` against the bare `ld -r` over the same objects.

For each size N a synthetic SuperKernel (bench.synth) is fused the way a
Bazel build fuses it, each step a fresh `python -m sk` process (an action's
real cost, interpreter start included):

  gen    sk gen --kernel-infos ... --plan-out plan.json   (plan, source, kernel JSON)
  entry  sk entry compile ...                              (the C++ compile of the generated
                                                            source; reported, not in `fuse`;
                                                            timed once, in the warm-up)
  link   sk link ...                                       (ld -r in plan order, localise, verify)
  ld     ld -r <entry objects> --whole-archive <every sub-op archive> -o merged.o
         (the linker alone over exactly the link's input objects)

fuse = gen + link. An untimed warm-up round fills the page cache and sk's
bytecode cache (see _env). Every round runs gen, link and ld back to back,
so the ratio fuse/ld of a round compares steps that saw the same machine
load; the reported figures are medians over the rounds.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench import synth


def _env(repo: Path, work: Path) -> dict:
    env = dict(os.environ)
    # The child imports sk from this checkout and the same third-party packages as this process
    # (a venv's site-packages, or Bazel runfiles directories).
    paths = [str(repo)] + [p for p in sys.path if p and os.path.isdir(p)]
    env["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))
    env["PYTHONHASHSEED"] = "0"
    # sk runs with its bytecode cached, as an installed tool does (pip compiles at install time);
    # these machines set PYTHONDONTWRITEBYTECODE for interactive use, which would make every
    # step compile the tool's modules again. The cache lives in the work directory, never
    # beside the sources, and the untimed warm-up round fills it.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    return env


def _timed(argv: list[str], *, cwd: Path, env: dict) -> float:
    start = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"bench step failed ({proc.returncode}): {' '.join(argv[:4])} ...\n{proc.stdout[-3000:]}")
    return elapsed


class _Worker:
    """`python -m sk --persistent_worker` fed like Bazel feeds it: one JSON request per line."""

    def __init__(self, cwd: Path, env: dict):
        env = dict(env, PYTHONDONTWRITEBYTECODE="1")  # as Bazel's actions run sk (rules/private/actions.bzl)
        self._proc = subprocess.Popen([sys.executable, "-m", "sk", "--persistent_worker"], cwd=cwd, env=env,
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self._next = 0

    def timed(self, argv: list[str]) -> float:
        """Wall time from sending the request to reading the response."""
        self._next += 1
        start = time.perf_counter()
        self._proc.stdin.write(json.dumps({"arguments": argv, "requestId": self._next}) + "\n")
        self._proc.stdin.flush()
        line = self._proc.stdout.readline()
        elapsed = time.perf_counter() - start
        response = json.loads(line) if line else {"exitCode": -1, "output": "(the worker died)"}
        if response["exitCode"] != 0:
            raise RuntimeError(f"bench step failed in the worker ({response['exitCode']}): {' '.join(argv[:3])} ...\n"
                               f"{response['output'][-3000:]}")
        return elapsed

    def close(self) -> None:
        self._proc.stdin.close()
        self._proc.wait(timeout=60)


def fuse_commands(root: Path, name: str, subs: list[synth.SubKernel], tools: synth.Tools,
                  include: Path) -> dict:
    """argv of each step, run in `root` (the directory synth.write_kernel_infos filled)."""
    py = [sys.executable, "-m", "sk"]
    sub_args = [a for s in subs for a in ("--sub-obj", f"subs/{s.stem}.o")]
    return {
        "gen": py + ["gen", "--kernel-infos", "kernel_infos.json", "--out-dir", "gen", "--plan-out", "plan.json"],
        "entry": py + ["entry", "compile", "--toolchain", "host", "--compiler", tools.compiler,
                       "--include", str(include), "--plan", "plan.json", "--src", f"gen/{name}_kernel.cpp",
                       "--compile-options", f"gen/{name}.compile_options.json", "--out-dir", "entry"],
        "link": py + ["link", "--toolchain", "host", "--ld", tools.ld, "--objcopy", tools.objcopy,
                      "--plan", "plan.json", "--entry-dir", "entry", *sub_args, "--meta-in", f"gen/{name}.json",
                      "--out-obj", f"{name}.o", "--out-json", f"{name}.out.json"],
    }


def ld_argv(root: Path, subs: list[synth.SubKernel], tools: synth.Tools) -> list[str]:
    entries = sorted(str(p.relative_to(root)) for p in (root / "entry").glob("*.o"))
    return [tools.ld, "-r", *entries, "--whole-archive", *[f"subs/{s.stem}.o" for s in subs],
            "--no-whole-archive", "-o", "ld_merged.o"]


def measure_size(n: int, *, builder: synth.Builder, work: Path, repo: Path, repeat: int, log=print) -> dict:
    subs = synth.sub_kernels(n)
    archives = builder.build(subs, log=log)
    name = f"sk_syn{n}"
    root = work / f"fuse_{n}"
    synth.write_kernel_infos(root, name, subs, archives)
    (root / "entry").mkdir()
    env = _env(repo, work)
    cmds = fuse_commands(root, name, subs, builder.tools, builder.include)
    # Warm-up, untimed: the bytecode cache and the page cache hold what every timed round reads.
    # The entry compile (g++ over the generated source) is reported, not part of `fuse`, and at
    # 1,200 sub-kernels takes a minute: timed once, here; its objects are reused.
    _timed(cmds["gen"], cwd=root, env=env)
    entry_s = _timed(cmds["entry"], cwd=root, env=env)
    _timed(cmds["link"], cwd=root, env=env)
    _timed(ld_argv(root, subs, builder.tools), cwd=root, env=env)
    # One worker per action kind, as Bazel keeps one per mnemonic; warmed by one request each.
    workers = {step: _Worker(root, env) for step in ("gen", "link")}
    try:
        for step, worker in workers.items():
            worker.timed(cmds[step][3:])
        rounds = []
        for r in range(repeat):
            t = {"gen_process": _timed(cmds["gen"], cwd=root, env=env), "entry": entry_s}
            t["link_process"] = _timed(cmds["link"], cwd=root, env=env)
            t["ld"] = _timed(ld_argv(root, subs, builder.tools), cwd=root, env=env)
            t["gen"] = workers["gen"].timed(cmds["gen"][3:])
            t["link"] = workers["link"].timed(cmds["link"][3:])
            t["fuse"] = t["gen"] + t["link"]
            t["fuse_process"] = t["gen_process"] + t["link_process"]
            rounds.append(t)
            log(f"  N={n} round {r + 1}/{repeat}: worker gen {t['gen']:.3f}s link {t['link']:.3f}s | process "
                f"gen {t['gen_process']:.3f}s link {t['link_process']:.3f}s | ld -r {t['ld']:.3f}s | fuse/ld "
                f"{t['fuse'] / t['ld']:.2f} (worker) {t['fuse_process'] / t['ld']:.2f} (process)")
    finally:
        for worker in workers.values():
            worker.close()
    plan = json.loads((root / "plan.json").read_text())
    keys = ("gen", "link", "fuse", "gen_process", "link_process", "fuse_process", "entry", "ld")
    med = {k: statistics.median(r[k] for r in rounds) for k in keys}
    return {
        "sub_kernels": n,
        "kernel_types": sorted({s.kernel_type for s in subs}),
        "split_mode": plan["split_mode"],
        "link_inputs": len(plan["link_order"]),
        "rounds": repeat,
        "median_s": {k: round(v, 4) for k, v in med.items()},
        "fuse_over_ld": round(statistics.median(r["fuse"] / r["ld"] for r in rounds), 3),
        "fuse_over_ld_process": round(statistics.median(r["fuse_process"] / r["ld"] for r in rounds), 3),
        "archives_built": builder.built,
    }


def measure(sizes: list[int], *, builder: synth.Builder, work: Path, repo: Path, repeat: int, log=print) -> dict:
    per_size = []
    for n in sizes:
        log(f"fusion time, {n} sub-kernels")
        per_size.append(measure_size(n, builder=builder, work=work, repo=repo, repeat=repeat, log=log))
    out = {"definition": "fuse = sk gen + sk link as Bazel runs them (warm persistent workers, one per action "
                         "kind); fuse_process = the same as fresh `python -m sk` processes; ld = ld -r over the "
                         "same inputs; entry = sk entry compile (C++ compile of the generated source, not in fuse, "
                         "one run); medians over rounds, each round runs all steps back to back",
           "sizes": per_size}
    by_n = {s["sub_kernels"]: s for s in per_size}
    if 1200 in by_n:
        out["fuse_over_ld_1200"] = by_n[1200]["fuse_over_ld"]
        out["fuse_over_ld_1200_process"] = by_n[1200]["fuse_over_ld_process"]
    if 1200 in by_n and 120 in by_n:
        for suffix in ("", "_process"):
            out["growth_1200_over_120" + suffix] = round(
                by_n[1200]["median_s"]["fuse" + suffix] / by_n[120]["median_s"]["fuse" + suffix], 3)
    return out
