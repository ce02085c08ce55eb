"""Launch benefit on the CPU twin: a model run as separate launches and with its SuperKernels.

Models: a chain of N small vector kernels (sk/twin/synthetic.py `chain_model`)
and the MoE example (the model file Bazel writes from examples/moe/BUILD, see
moe_model). Each is built once with the
same steps as `sk run` (sk.twin.run.build), checked bit for bit (separate vs fused),
then timed: every round runs the separate sequence and the fused sequence back
to back in this process, and `sk_over_separate` is the median over rounds of
fused / separate. A sequence's time is the twin's own clock from the start of
its first launch to the end of its last (sk.twin.binding LaunchResult start/wall), so
Python's bookkeeping between rounds is not in it.

These are the CPU twin's figures: its launch cost is creating worker threads
and joining them, not an NPU's task dispatch, so they say how much fusion saves
on the twin and nothing about an Ascend device.
"""

from __future__ import annotations

import json
import statistics
import subprocess
from pathlib import Path

from sk.twin import model as model_mod
from sk.twin import run as run_mod


def _quartiles(values) -> tuple:
    if len(values) < 2:
        return (values[0], values[0])
    q = statistics.quantiles(values, n=4)
    return (q[0], q[2])


def _span_ns(results) -> int:
    start = min(r.start_ns for r in results)
    return max(r.start_ns + r.wall_ns for r in results) - start


class _Runner:
    """One model's twin session and its two launch sequences (built once, run many times)."""

    def __init__(self, m, built):
        self.session = run_mod.Session(m, built, seed=1)
        self.separate = self.session.separate(trace=False)[0]
        self.fused = self.session.fused(trace=False)[0]

    def run(self, specs) -> tuple[int, list]:
        results = self.session.run(specs)
        return _span_ns(results), results

    def check(self) -> list[str]:
        """Tensors that differ between the separate and the fused run (empty: bit-exact)."""
        self.run(self.separate)
        expected = self.session.memory.snapshot()
        self.run(self.fused)
        got = self.session.memory.snapshot()
        return [t for t in sorted(expected) if expected[t] != got[t]]


def barrier_counts(built) -> dict:
    """Barriers of every SuperKernel's plan: emitted, elided, and by kind (sk.engine.elision.barrier_counts)."""
    from sk.engine import elision

    kinds: dict = {}
    emitted = elided = 0
    for scope in built.scopes.values():
        counts = elision.barrier_counts(scope.plan)
        emitted, elided = emitted + counts["kept"], elided + counts["elided"]
        for kind, n in counts["by_kind"].items():
            kinds[kind] = kinds.get(kind, 0) + n
    return {"emitted": emitted, "elided": elided, "by_kind": dict(sorted(kinds.items()))}


def with_options(doc: dict, extra: str) -> dict:
    """A copy of a model whose SuperKernels all get `extra` appended to (or replacing) their options."""
    doc = json.loads(json.dumps(doc))
    key = extra.split("=", 1)[0]
    for s in doc.get("super_kernels", []):
        kept = [o for o in (s.get("options") or "").split(":") if o and o.split("=", 1)[0] != key]
        s["options"] = ":".join(kept + [extra])
    return doc


def build_model(path: str, build_dir: Path, tools, runtime_dir: Path, log=print):
    m = model_mod.load(path)
    built = run_mod.build(m, str(build_dir), compiler=tools.compiler, ld=tools.ld, objcopy=tools.objcopy,
                          runtime_dir=str(runtime_dir))
    return m, built


def measure_model(label: str, path: str, *, build_dir: Path, tools, runtime_dir: Path, rounds: int,
                  log=print) -> dict:
    m, built = build_model(path, build_dir, tools, runtime_dir, log)
    runner = _Runner(m, built)
    bad = runner.check()
    if bad:
        raise RuntimeError(f"{label}: fused and separate runs differ in {len(bad)} tensors ({bad[:5]})")
    ratios, sep, fus = [], [], []
    runner.run(runner.separate)  # warm-up: page in the libraries, first-touch the buffers
    runner.run(runner.fused)
    for r in range(rounds):
        # Alternate which run goes first, so a drift in machine load favours neither.
        if r % 2:
            f, _ = runner.run(runner.fused)
            s, _ = runner.run(runner.separate)
        else:
            s, _ = runner.run(runner.separate)
            f, _ = runner.run(runner.fused)
        sep.append(s)
        fus.append(f)
        ratios.append(f / s)
    out = {
        "model": label,
        "ops": len(m.ops),
        "launches_separate": len(runner.separate),
        "launches_fused": len(runner.fused),
        "super_kernels": len(built.scopes),
        "rounds": rounds,
        "bit_exact": True,
        "median_us": {"separate": round(statistics.median(sep) / 1000, 1),
                      "fused": round(statistics.median(fus) / 1000, 1)},
        "sk_over_separate": round(statistics.median(ratios), 4),
        # The spread of the per-round ratios: how much to trust the median on this machine.
        "sk_over_separate_quartiles": [round(q, 4) for q in _quartiles(ratios)],
        "barriers": barrier_counts(built),
    }
    log(f"  {label}: {out['launches_separate']} launches -> {out['launches_fused']}; "
        f"fused/separate median {out['sk_over_separate']:.3f} over {rounds} rounds "
        f"(separate {out['median_us']['separate']} us, fused {out['median_us']['fused']} us, twin clock)")
    return out


def run_chain_variants(n: int, *, work: Path, tools, runtime_dir: Path, rounds: int, elision: bool,
                       branches_every: int = 4, log=print) -> dict:
    """The N-op chain, every op depending on the one before it; and the same chain where every
    `branches_every`-th op starts a new branch (no hazard with its predecessor). Each with
    upstream's default options, and with sync-elision=1 when `elision`."""
    from sk.twin import synthetic

    variants = [("default", None, ""), ("branches%d_default" % branches_every, branches_every, "")]
    if elision:
        variants.insert(1, ("sync_elision", None, "sync-elision=1"))
        variants.append(("branches%d_sync_elision" % branches_every, branches_every, "sync-elision=1"))
    out = {}
    for tag, every, options in variants:
        name = f"chain{n}_{tag}"
        doc = synthetic.chain_model(n, independent_every=every, options=options, name=name)
        path = synthetic.write_model(doc, str(work / name))
        out[tag] = measure_model(f"chain{n} ({tag})", path, build_dir=work / name / "build", tools=tools,
                                 runtime_dir=runtime_dir, rounds=rounds, log=log)
    return out


# The MoE example as one self-contained model file: //examples/moe:compare writes it (output group
# `model`) from the BUILD targets and tensors.json; this is its runfiles path.
MOE_MODEL = "examples/moe/_sk_model/compare/model.json"
MOE_TARGET = "//examples/moe:compare"


def moe_model(repo: Path, runfiles: Path | None, log=print) -> tuple[Path | None, str]:
    """The MoE model file and where it came from, or (None, why not). `bazel run //bench` has it in
    its runfiles; a plain `python -m bench` builds the target with the checkout's tools/bazel and
    takes it from that target's runfiles tree."""
    if runfiles and (runfiles / MOE_MODEL).exists():
        return runfiles / MOE_MODEL, "runfiles"
    log(f"building {MOE_TARGET} (the MoE model is declared in examples/moe/BUILD)")
    proc = subprocess.run([str(repo / "tools" / "bazel"), "build", MOE_TARGET, "--color=no", "--curses=no"],
                          cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    # sk_model's executable is <name>.sh; its runfiles tree holds the model with the kernel sources.
    path = repo / "bazel-bin" / "examples" / "moe" / "compare.sh.runfiles" / "_main" / MOE_MODEL
    if proc.returncode != 0 or not path.exists():
        return None, f"tools/bazel build {MOE_TARGET} failed (exit {proc.returncode}): {proc.stdout[-600:]}"
    return path, f"tools/bazel build {MOE_TARGET}"


def run_moe_variants(src: Path, *, work: Path, tools, runtime_dir: Path, rounds: int, elision: bool,
                     log=print) -> dict:
    doc = json.loads(src.read_text())
    # The copy lives in the work directory: its kernel paths are made absolute.
    for k in doc["kernels"].values():
        k["src"] = str((src.parent / k["src"]).resolve())
        if "include_dirs" in k:
            k["include_dirs"] = [str((src.parent / d).resolve()) for d in k["include_dirs"]]
    out = {}
    variants = [("default", doc)] + ([("sync_elision", with_options(doc, "sync-elision=1"))] if elision else [])
    for tag, d in variants:
        d = dict(d, name=f"moe_{tag}")
        path = work / f"moe_{tag}" / "model.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(d, indent=1, sort_keys=True) + "\n")
        out[tag] = measure_model(f"moe ({tag})", str(path), build_dir=work / f"moe_{tag}" / "build", tools=tools,
                                 runtime_dir=runtime_dir, rounds=rounds, log=log)
    return out
