"""`python -m bench` (or `tools/bazel run //bench -- ...`): the SuperKernel benchmarks.

Writes bench/results.json and bench/fusion_time.png in the checkout and prints
a table. Parts (all by default; `--parts` picks some):
  fusion       sk gen + sk link, and gen + entry compile + link, as cold processes (and gen + link
               in warm workers) vs `ld -r` with sk link's flags, 10 / 120 / 1,200 sub-kernels
  launch       CPU-twin launch benefit: 60-op vector chain and the MoE example
  incremental  Bazel: executed actions after a null build and after one edit (MoE)
Barrier counts (naive vs sync-elision) come with `launch`.
`--quick`: 10 sub-kernels, a 6-op chain, 3 rounds, no MoE and no Bazel; for a
smoke run (its figures mean nothing).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

PARTS = ("fusion", "launch", "incremental")
SCHEMA = 2


def repo_root() -> Path:
    """The checkout measured: `bazel run` says where it is; else the directory above this package."""
    ws = os.environ.get("BUILD_WORKSPACE_DIRECTORY")
    return Path(ws) if ws else Path(__file__).resolve().parent.parent


def _tool(name: str, flag: str, given: str | None) -> str:
    path = given or shutil.which(name)
    if not path:
        sys.exit(f"bench: {name} not found on PATH; pass {flag} PATH")
    return path


def parse_args(argv):
    p = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="smoke run: tiny sizes, few rounds, no Bazel")
    p.add_argument("--parts", default=None, help=f"comma-separated subset of {','.join(PARTS)}")
    p.add_argument("--sizes", default=None, help="sub-kernel counts for fusion (default 10,120,1200)")
    p.add_argument("--rounds", type=int, default=None, help="timed rounds per measurement")
    p.add_argument("--chain", type=int, default=None, help="ops in the twin chain (default 60)")
    p.add_argument("--out", default=None, help="results JSON (default bench/results.json in the checkout)")
    p.add_argument("--plot", default=None, help="PNG plot (default bench/fusion_time.png; 'none' to skip)")
    p.add_argument("--work", default=None, help="scratch and cache directory (default bench/out/)")
    p.add_argument("--compiler", default=None)
    p.add_argument("--ld", default=None)
    p.add_argument("--objcopy", default=None)
    p.add_argument("--keep-clone", action="store_true", help="keep the incremental build's clone")
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    repo = repo_root()
    # The measured sk is the checkout's, also under `bazel run` (whose runfiles hold a copy).
    sys.path.insert(0, str(repo))
    from bench import fusion, launch, synth

    parts = args.parts.split(",") if args.parts else (["fusion", "launch"] if args.quick else list(PARTS))
    unknown = [p for p in parts if p not in PARTS]
    if unknown:
        sys.exit(f"bench: unknown part {unknown[0]!r}; use {', '.join(PARTS)}")
    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else ([10] if args.quick else [10, 120, 1200])
    rounds = args.rounds or (3 if args.quick else 5)
    # Fusion rounds are a few seconds each and single rounds on this shared machine swing by
    # +-20 %: more of them steady the median.
    fusion_rounds = args.rounds or (3 if args.quick else 9)
    chain_n = args.chain or (6 if args.quick else 60)
    work = Path(args.work) if args.work else repo / "bench" / "out"
    out_path = Path(args.out) if args.out else repo / "bench" / "results.json"
    plot_path = None if args.plot == "none" else Path(args.plot) if args.plot else repo / "bench" / "fusion_time.png"
    tools = synth.Tools(_tool("g++", "--compiler", args.compiler), _tool("ld", "--ld", args.ld),
                        _tool("objcopy", "--objcopy", args.objcopy))
    work.mkdir(parents=True, exist_ok=True)
    log = lambda *a: print(*a, flush=True)  # noqa: E731

    results = {"schema": SCHEMA, "quick": bool(args.quick), "parts": parts,
               "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]}}
    started = time.perf_counter()
    if "fusion" in parts:
        builder = synth.Builder(work / "cache", tools)
        results["fusion"] = fusion.measure(sizes, builder=builder, work=work / "work", repo=repo,
                                           repeat=fusion_rounds, log=log)
        if plot_path:
            write_plot(results["fusion"], plot_path)
            results["fusion"]["plot"] = os.path.relpath(plot_path, out_path.parent)
    if "launch" in parts:
        results["launch"] = run_launch(launch, repo, work / "twin", tools, chain_n,
                                       rounds=8 * rounds, quick=args.quick, log=log)
    if "incremental" in parts:
        from bench import incremental

        log("incremental build (Bazel, temporary clone)")
        results["incremental"] = incremental.measure(repo, keep=args.keep_clone, log=log)
    results["bench_seconds"] = round(time.perf_counter() - started, 1)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    print(table(results))
    shown = [_shown(out_path, repo)] + ([_shown(plot_path, repo)] if plot_path and "fusion" in parts else [])
    print("\nwrote " + " and ".join(shown))
    return 0


def _shown(path: Path, repo: Path) -> str:
    path = path.resolve()
    return str(path.relative_to(repo)) if path.is_relative_to(repo) else str(path)


def run_launch(launch, repo: Path, work: Path, tools, chain_n: int, *, rounds: int, quick: bool, log) -> dict:
    import importlib.util

    elision = importlib.util.find_spec("sk.engine.elision") is not None
    runtime = work / "runtime"
    log(f"CPU twin launch benefit ({rounds} rounds each)")
    out = {"note": "CPU twin figures (thread launches on the host), not an NPU claim",
           "sync_elision_available": elision}
    out["chain"] = launch.run_chain_variants(chain_n, work=work, tools=tools, runtime_dir=runtime, rounds=rounds,
                                             elision=elision, branches_every=4, log=log)
    if not quick:
        # Under `bazel run` this file is in the runfiles tree (its directory's parent is the tree's root).
        runfiles = Path(__file__).parent.parent if os.environ.get("BUILD_WORKSPACE_DIRECTORY") else None
        model, source = launch.moe_model(repo, runfiles, log=log)
        if model is None:
            log(f"  moe: not measured: {source}")
            out["moe"] = {"skipped": source}
        else:
            out["moe"] = launch.run_moe_variants(model, work=work, tools=tools, runtime_dir=runtime, rounds=rounds,
                                                 elision=elision, log=log)
    return out


def write_plot(fusion_results: dict, path: Path) -> None:
    from bench import png

    sizes = fusion_results["sizes"]
    pts = lambda key: [(s["sub_kernels"], max(s["median_s"][key], 1e-4)) for s in sizes]  # noqa: E731
    series = [
        {"label": "SK BUILD: GEN + ENTRY COMPILE + LINK (COLD)", "color": (120, 120, 120), "points": pts("build")},
        {"label": "SK GEN + SK LINK (COLD PROCESSES)", "color": (200, 40, 40), "points": pts("fuse")},
        {"label": "SK GEN + SK LINK (WARM WORKERS)", "color": (230, 140, 40), "points": pts("fuse_warm"),
         "dash": True},
        {"label": "LD -R WITH SK LINK FLAGS (SAME INPUTS)", "color": (40, 70, 200), "points": pts("ld"), "dash": True},
    ]
    canvas = png.line_plot(series, title="SUPERKERNEL BUILD TIME VS SUB-KERNELS", x_label="SUB-KERNELS (SPLIT-MODE 4)",
                           y_label="MEDIAN WALL TIME")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(canvas.png())


def _fmt(v, spec=".3f") -> str:
    return "-" if v is None else format(v, spec) if isinstance(v, (int, float)) else str(v)


def table(r: dict) -> str:
    lines = []
    f = r.get("fusion")
    if f:
        lines += ["", "SuperKernel build time (medians; cold = fresh `python -m sk` processes as Bazel's first build "
                  "starts them; build = gen + entry compile (both halves at once) + link; warm = gen + link in "
                  "persistent workers; ld = ld -r with sk link's flags over the same objects)",
                  "| sub-kernels | link inputs | gen s | entry s | link s | ld -r s | fuse/ld (cold) | "
                  "build/ld (cold) | fuse/ld (warm) | tools/ld |",
                  "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for s in f["sizes"]:
            m = s["median_s"]
            lines.append(f"| {s['sub_kernels']} | {s['link_inputs']} | {m['gen']:.3f} | {m['entry']:.3f} | "
                         f"{m['link']:.3f} | {m['ld']:.3f} | {s['fuse_over_ld']:.2f} | {s['sk_build_over_ld']:.2f} | "
                         f"{s['fuse_over_ld_warm']:.2f} | {s['tools_over_ld']:.2f} |")
        lines.append(f"fuse_over_ld @1200: {_fmt(f.get('fuse_over_ld_1200'), '.2f')} (target <= 1.5; warm workers "
                     f"{_fmt(f.get('fuse_over_ld_1200_warm'), '.2f')}; the link's tools alone "
                     f"{_fmt(f.get('tools_over_ld_1200'), '.2f')}); sk_build_over_ld @1200: "
                     f"{_fmt(f['sk_build_over_ld'].get('1200'), '.2f')} (goal <= 10); build growth t(1200)/t(120): "
                     f"{_fmt(f.get('build_growth_1200_over_120'), '.2f')} (target <= 11; fuse "
                     f"{_fmt(f.get('fuse_growth_1200_over_120'), '.2f')})")
    la = r.get("launch")
    if la:
        lines += ["", "CPU twin launch benefit (twin figures, not NPU): sk_over_separate = fused / separate, median",
                  "| model | variant | launches | sk_over_separate | quartiles | barriers emitted | elided | naive |",
                  "|---|---|---|---:|---|---:|---:|---:|"]
        for model in ("chain", "moe"):
            for variant, v in (la.get(model) or {}).items():
                if not isinstance(v, dict):
                    lines.append(f"| {model} | {variant}: {v} | | | | | | |")
                    continue
                b = v["barriers"]
                lines.append(f"| {v['model'].split(' ')[0]} | {variant} | {v['launches_separate']} -> "
                             f"{v['launches_fused']} | {v['sk_over_separate']:.3f} | "
                             f"{v['sk_over_separate_quartiles'][0]:.3f}-{v['sk_over_separate_quartiles'][1]:.3f} | "
                             f"{b['emitted']} | "
                             f"{b['elided']} | {b['emitted'] + b['elided']} |")
    inc = r.get("incremental")
    if inc:
        lines += ["", "Incremental Bazel build of //examples/moe/..."]
        if "skipped" in inc:
            lines.append(f"skipped: {inc['skipped']}")
        else:
            lines.append(f"null build: {inc['null_build']['executed_actions']} executed actions")
            e = inc["one_edit"]
            lines.append(f"after editing {inc['edited']}: {e['executed_actions']} executed actions")
            for target, mnemonics in e["by_target"].items():
                lines.append(f"  {target}: {', '.join(mnemonics)}")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
