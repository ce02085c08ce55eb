"""Fusion and SuperKernel build time against `ld -r` over the same objects, tuned as `sk link` tunes it.

For each size N a synthetic SuperKernel (bench.synth) is built the way a
Bazel build builds it. Every step is a fresh `python -m sk` process started
cold, as Bazel's first build (and every remote executor) starts it:
PYTHONDONTWRITEBYTECODE=1, sk and its third-party packages imported from a
copy of their sources with the bytecode the build gives them beside it
(tools/private/pycompile.py: the py_bytecode action for sk, the @sk_pypi
repository rule for the wheels; made once per tool version, untimed here as
the linker's own build is), and no step writes any. Nothing runs before the
timed steps to warm them.

  gen    sk gen --kernel-infos ... --plan-out plan.json     (SkGen)
  entry  sk entry compile --arch cube --out-dir entry_cube   (SkCompileEntry, one per side;
         sk entry compile --arch vec --out-dir entry_vec      both run at once, as Bazel runs them)
  link   sk link --entry-dir entry_cube --entry-dir entry_vec ...   (SkLink)
  ld     sk.toolflow.link.relocatable_link_argv over the link's own inputs: the entry objects and every
         sub-op archive whole, with the flags `sk link` gives its ld (GNU ld: --hash-size)
  localize  the objcopy `sk link` runs after its ld (sk.toolflow.toolargv.localize_argv: every sub-kernel
         symbol of the plan's link order made local, facts §6.9) over ld's output

tools = ld + localize: what the link's two tools cost with no sk around them, the floor of fuse
before gen has read a single sub-op JSON.

fuse = gen + link; build = gen + entry + link, the SuperKernel's own
critical path (its sub-kernels are built and cached per sub-kernel, before
it). Warm: gen and link again as requests to persistent workers (one per
action kind, started and sent one untimed request after the first round's
cold steps), the figure a long-lived local Bazel server reaches.

Each round runs every step back to back and its ratios compare steps that
saw the same machine load; figures are medians over the rounds.
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench import synth

# The third-party packages sk imports (requirements.txt: only those, so `python -m bench`
# runs where requirements.txt alone is installed), copied into the cold tree.
THIRD_PARTY = ("jinja2", "markupsafe")
SIDES = ("cube", "vec")


def cold_tree(repo: Path, work: Path) -> Path:
    """A fresh directory holding sk and its third-party packages as a Bazel action sees them.

    The sources, and beside them the bytecode the build makes (the same
    tools/private/pycompile.py); nothing else a run could have left.
    """
    site = work / "cold_site"
    shutil.rmtree(site, ignore_errors=True)
    site.mkdir(parents=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "tests")
    shutil.copytree(repo / "sk", site / "sk", ignore=ignore)
    for name in THIRD_PARTY:
        package = Path(importlib.import_module(name).__file__).parent
        shutil.copytree(package, site / name, ignore=ignore)
    subprocess.run([sys.executable, "-I", "-B", str(repo / "tools" / "private" / "pycompile.py"), "--tree", str(site)],
                   check=True, env={**os.environ, "PYTHONHASHSEED": "0"})
    return site


def tree_state(site: Path) -> list[str]:
    """Every file of the cold tree that is not a source (bytecode, caches), for check_still_cold."""
    return sorted(str(p.relative_to(site)) for p in site.rglob("*") if p.is_file() and p.suffix != ".py")


def check_still_cold(site: Path, before: list[str]) -> None:
    """The cold figures are void if a step wrote bytecode (or jinja2's template cache) into the tree."""
    written = sorted(set(tree_state(site)) - set(before))
    if written:
        raise RuntimeError(f"bench: a step wrote into the cold tree ({written[:3]}); the cold figures "
                           "would not be cold")


def _env(site: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    # As Bazel's actions run sk (rules/private/actions.bzl SK_ENV): nothing written, nothing user-site.
    env.update(PYTHONPATH=str(site), PYTHONDONTWRITEBYTECODE="1", PYTHONHASHSEED="0", PYTHONNOUSERSITE="1")
    return env


def _start(argv: list[str], *, cwd: Path, env: dict) -> subprocess.Popen:
    return subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _finish(proc: subprocess.Popen, argv: list[str]) -> None:
    out, _ = proc.communicate()
    if proc.returncode != 0:
        raise RuntimeError(f"bench step failed ({proc.returncode}): {' '.join(argv[:5])} ...\n{out[-3000:]}")


def _timed(argv: list[str], *, cwd: Path, env: dict) -> float:
    start = time.perf_counter()
    _finish(_start(argv, cwd=cwd, env=env), argv)
    return time.perf_counter() - start


def _timed_together(argvs: dict[str, list[str]], *, cwd: Path, env: dict) -> dict[str, float]:
    """Starts every argv at once; {key: its wall time, "all": until the last one ended}."""
    import threading

    start = time.perf_counter()
    out, errors = {}, []

    def wait(key, proc):
        try:
            _finish(proc, argvs[key])
        except RuntimeError as err:
            errors.append(err)
        out[key] = time.perf_counter() - start

    threads = [threading.Thread(target=wait, args=(k, _start(argv, cwd=cwd, env=env))) for k, argv in argvs.items()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    out["all"] = time.perf_counter() - start
    if errors:
        raise errors[0]
    return out


class _Worker:
    """`python -m sk --persistent_worker` fed like Bazel feeds it: one JSON request per line."""

    def __init__(self, cwd: Path, env: dict):
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


def build_commands(name: str, subs: list[synth.SubKernel], tools: synth.Tools, include: Path) -> dict:
    """argv of each step, run in the directory synth.write_kernel_infos filled."""
    py = [sys.executable, "-m", "sk"]
    sub_args = [a for s in subs for a in ("--sub-obj", f"subs/{s.stem}.o")]
    entry = py + ["entry", "compile", "--toolchain", "host", "--compiler", tools.compiler, "--objcopy", tools.objcopy,
                  "--include", str(include), "--plan", "plan.json", "--src", f"gen/{name}_kernel.cpp",
                  "--compile-options", f"gen/{name}.compile_options.json"]
    return {
        "gen": py + ["gen", "--kernel-infos", "kernel_infos.json", "--out-dir", "gen", "--plan-out", "plan.json"],
        **{f"entry_{side}": entry + ["--arch", side, "--out-dir", f"entry_{side}"] for side in SIDES},
        "link": py + ["link", "--toolchain", "host", "--ld", tools.ld, "--objcopy", tools.objcopy,
                      "--plan", "plan.json", *[a for side in SIDES for a in ("--entry-dir", f"entry_{side}")],
                      *sub_args, "--meta-in", f"gen/{name}.json", "--out-obj", f"{name}.o",
                      "--out-json", f"{name}.out.json"],
    }


def ld_argv(root: Path, subs: list[synth.SubKernel], tools: synth.Tools) -> list[str]:
    """The linker alone over the link's inputs, with `sk link`'s own argv builder and flags."""
    from sk.toolflow import link, toolargv

    entries = sorted(str(p.relative_to(root)) for side in SIDES for p in (root / f"entry_{side}").glob("*.o"))
    inputs = entries + [t for s in subs for t in toolargv.whole_archive(f"subs/{s.stem}.o")]
    return link.relocatable_link_argv(toolargv.Tools("host", linker=tools.ld), inputs, "ld_merged.o")


def localize_argv(root: Path, tools: synth.Tools) -> list[str]:
    """sk link's localising objcopy over the baseline ld's output (the list file written here, untimed)."""
    from sk.toolflow import entrysplit, toolargv

    plan = json.loads((root / "plan.json").read_text())
    names = {item["symbol"] for item in plan["link_order"] if item["kind"] != "sk_entry"}
    # At split-mode > 1 each half's copies (`_sk…`) are localised too (upstream's localize_symbol_of_sk).
    if plan["split_mode"] > 1:
        names |= {entrysplit.local_symbol(plan["kernel_name"], e["symbol"], i)
                  for e in plan["entries"] for i in range(plan["split_mode"])}
    names = sorted(names)
    (root / "localize.txt").write_text("".join(f"{name}\n" for name in names))
    return toolargv.localize_argv(toolargv.Tools("host", objcopy=tools.objcopy), "ld_merged.o", "ld_localized.o",
                                  symbols_file="localize.txt", strip_groups=False)


def _ld_flags(argv: list[str]) -> list[str]:
    """The options of an ld argv, without its inputs and output (for results.json)."""
    return [a for a in argv[1:] if a.startswith("-") and a not in ("--whole-archive", "--no-whole-archive", "-o")]


def _fresh(root: Path, name: str) -> None:
    """Removes a step's outputs before it runs, as Bazel does (untimed)."""
    for d in ["gen", *[f"entry_{side}" for side in SIDES]]:
        shutil.rmtree(root / d, ignore_errors=True)
    (root / "gen").mkdir()
    for f in ("plan.json", f"{name}.o", f"{name}.out.json", "ld_merged.o", "ld_localized.o", "localize.txt"):
        (root / f).unlink(missing_ok=True)


def measure_size(n: int, *, builder: synth.Builder, work: Path, site: Path, repeat: int, log=print) -> dict:
    subs = synth.sub_kernels(n)
    archives = builder.build(subs, log=log)
    name = f"sk_syn{n}"
    root = work / f"fuse_{n}"
    synth.write_kernel_infos(root, name, subs, archives)
    env = _env(site)
    before = tree_state(site)
    cmds = build_commands(name, subs, builder.tools, builder.include)
    workers = {}
    rounds = []
    try:
        for r in range(repeat):
            _fresh(root, name)
            t = {"gen": _timed(cmds["gen"], cwd=root, env=env)}
            entry = _timed_together({side: cmds[f"entry_{side}"] for side in SIDES}, cwd=root, env=env)
            t.update(entry=entry["all"], **{f"entry_{side}": entry[side] for side in SIDES})
            t["link"] = _timed(cmds["link"], cwd=root, env=env)
            t["ld"] = _timed(ld_argv(root, subs, builder.tools), cwd=root, env=env)
            t["localize"] = _timed(localize_argv(root, builder.tools), cwd=root, env=env)
            check_still_cold(site, before)
            if not workers:  # after the first round's cold steps: nothing warm precedes them
                workers = {step: _Worker(root, env) for step in ("gen", "link")}
                for step, worker in workers.items():
                    worker.timed(cmds[step][3:])
            t["gen_warm"] = workers["gen"].timed(cmds["gen"][3:])
            t["link_warm"] = workers["link"].timed(cmds["link"][3:])
            t["fuse"] = t["gen"] + t["link"]
            t["build"] = t["gen"] + t["entry"] + t["link"]
            t["fuse_warm"] = t["gen_warm"] + t["link_warm"]
            t["tools"] = t["ld"] + t["localize"]
            rounds.append(t)
            log(f"  N={n} round {r + 1}/{repeat}: cold gen {t['gen']:.3f}s entry {t['entry']:.3f}s link "
                f"{t['link']:.3f}s | ld -r {t['ld']:.3f}s | fuse/ld {t['fuse'] / t['ld']:.2f} build/ld "
                f"{t['build'] / t['ld']:.2f} | warm fuse/ld {t['fuse_warm'] / t['ld']:.2f}")
    finally:
        for worker in workers.values():
            worker.close()
    plan = json.loads((root / "plan.json").read_text())
    med = {k: statistics.median(r[k] for r in rounds) for k in rounds[0]}
    ratio = lambda key: round(statistics.median(r[key] / r["ld"] for r in rounds), 3)  # noqa: E731
    return {
        "sub_kernels": n,
        "kernel_types": sorted({s.kernel_type for s in subs}),
        "split_mode": plan["split_mode"],
        "link_inputs": len(plan["link_order"]),
        "entry_halves": sorted(str(p.relative_to(root)) for side in SIDES for p in (root / f"entry_{side}").iterdir()),
        "ld_flags": _ld_flags(ld_argv(root, subs, builder.tools)),
        "rounds": repeat,
        "median_s": {k: round(v, 4) for k, v in sorted(med.items())},
        "fuse_over_ld": ratio("fuse"),
        "fuse_over_ld_warm": ratio("fuse_warm"),
        "sk_build_over_ld": ratio("build"),
        "tools_over_ld": ratio("tools"),
        "archives_built": builder.built,
    }


DEFINITION = {
    "ld": "ld -r over the link's own inputs (entry halves with their split sets, every sub-op archive whole) "
          "with the argv sk link builds for its ld (sk.toolflow.link.relocatable_link_argv: GNU ld gets --hash-size)",
    "fuse": "sk gen + sk link, each a fresh cold `python -m sk` process as Bazel's first build starts it "
            "(PYTHONDONTWRITEBYTECODE=1, sk and its packages with the bytecode the build makes for them "
            "(tools/private/pycompile.py), no warm-up)",
    "build": "sk gen + sk entry compile (cube and vec halves at once, the slower counts) + sk link, cold "
             "processes: the SuperKernel's own critical path in a Bazel build",
    "fuse_warm": "sk gen + sk link as requests to warm persistent workers (a long-lived local Bazel server)",
    "tools": "ld + the objcopy sk link runs after it to localise the sub-kernel symbols (facts §6.9), over "
             "ld's output: the link's tools alone, the floor under fuse",
    "ratios": "median over rounds of each round's step / that round's ld",
}


def measure(sizes: list[int], *, builder: synth.Builder, work: Path, repo: Path, repeat: int, log=print) -> dict:
    site = cold_tree(repo, work)
    per_size = []
    for n in sizes:
        log(f"fusion and build time, {n} sub-kernels")
        per_size.append(measure_size(n, builder=builder, work=work, site=site, repeat=repeat, log=log))
    out = {"definition": DEFINITION, "sizes": per_size,
           "sk_build_over_ld": {str(s["sub_kernels"]): s["sk_build_over_ld"] for s in per_size}}
    by_n = {s["sub_kernels"]: s for s in per_size}
    if 1200 in by_n:
        out["fuse_over_ld_1200"] = by_n[1200]["fuse_over_ld"]
        out["fuse_over_ld_1200_warm"] = by_n[1200]["fuse_over_ld_warm"]
        out["tools_over_ld_1200"] = by_n[1200]["tools_over_ld"]
    if 1200 in by_n and 120 in by_n:
        for key in ("build", "fuse"):
            out[f"{key}_growth_1200_over_120"] = round(
                by_n[1200]["median_s"][key] / by_n[120]["median_s"][key], 3)
    return out
