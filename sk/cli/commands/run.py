"""`sk run`: run a model separately and fused on the CPU twin and compare bit for bit.

  sk run --model MODEL.json [--build-dir DIR] [--seed N] [--repeat R]
         [--prof-dir DIR] [--trace FILE] [--compiler G++] [--ld LD] [--objcopy OBJCOPY]

Prints an op_statistic table for each run, the totals, `superkernel benefit:
X.XX%` and whether the outputs are identical; writes
<prof-dir>/{no_sk_model,sk_model}/op_statistic.csv and a Chrome trace.
Tensors with `expected` files are compared with them after both runs (rtol/atol); --outputs-dir
writes every output tensor as .npy. Exits 1 when any tensor differs or misses its reference. Tools default to g++, ld and objcopy on PATH.
"""

from __future__ import annotations

import os

from sk.cli import gates as g

# Timed rounds of each run: more than this is a typo (each round runs the whole model twice).
MAX_REPEAT = 10000


def configure(parser):
    parser.add_argument("--model", required=True, type=g.JSON, help="model description JSON (see sk/twin/model.py); with --built, the data file of the model BUILD declares")
    parser.add_argument("--build-dir", type=g.OUTDIR, help="where objects and libraries go (default: a per-model temp dir)")
    parser.add_argument("--seed", type=g.number(g.UINT32), default=0, help="seed of the input generator")
    parser.add_argument("--repeat", type=g.number(g.UINT32, minimum=1, maximum=MAX_REPEAT), default=3, help="timed rounds of each run")
    parser.add_argument("--prof-dir", default="prof_result", type=g.OUTDIR, help="op_statistic.csv output directory")
    parser.add_argument("--outputs-dir", metavar="DIR", type=g.OUTDIR,
                        help="write every output tensor as <DIR>/separate/<tensor>.npy and <DIR>/fused/<tensor>.npy")
    parser.add_argument("--trace", type=g.OUTFILE, help="Chrome trace path (default: <prof-dir>/trace.json)")
    parser.add_argument("--compiler", type=g.TOOL, help="host C++ compiler (default: g++ on PATH)")
    parser.add_argument("--ld", type=g.TOOL, help="linker (default: ld on PATH)")
    parser.add_argument("--objcopy", type=g.TOOL, help="objcopy (default: objcopy on PATH)")
    parser.add_argument("--tsan", action="store_true",
                        help="race check: build the twin and the kernels with ThreadSanitizer and run under it; "
                             "a data race (a missing barrier) makes the run exit 66")
    parser.add_argument("--built", metavar="MANIFEST", type=g.JSON,
                        help="run prebuilt libraries listed in this JSON manifest instead of building (Bazel's sk_model)")


def run(args) -> int:
    import sys

    from sk.twin import run as run_mod
    from sk.twin import binding as twin

    if args.tsan and os.environ.get("SK_RUN_UNDER_TSAN") != "1":
        if args.built:
            from sk.base.errors import SkError
            raise SkError("--tsan builds its own ThreadSanitizer objects and cannot run prebuilt ones",
                          where="--built", allowed="drop --built (or --tsan)")
        return _under_tsan(args, twin)

    trace = args.trace or os.path.join(args.prof_dir, "trace.json")
    _check_outputs(args, trace, run_mod)
    report = run_mod.run_model(args.model, build_dir=args.build_dir, seed=args.seed, repeat=args.repeat,
                               compiler=args.compiler, ld=args.ld, objcopy=args.objcopy, built_manifest=args.built,
                               tsan=args.tsan, progress=print, outputs_dir=args.outputs_dir,
                               warn=lambda w: print(f"sk gen: warning: {w}", file=sys.stderr))
    for line in report.lines():
        print(line)
    if args.prof_dir:
        run_mod.write_profile(report, args.prof_dir)
    run_mod.write_trace(report, trace)
    return 0 if report.passed else 1


def _check_outputs(args, trace: str, run_mod) -> None:
    """The files --prof-dir stands for, through the output gate before the run (not after minutes of it)."""
    from sk.base.errors import SkError
    from sk.base.outfile import output_problem

    derived = ([] if args.trace else [trace]) + (run_mod.profile_paths(args.prof_dir) if args.prof_dir else [])
    for path in derived:
        problem = output_problem(path)
        if problem:
            raise SkError(f"an output of the run {problem}", where="--prof-dir", value=path,
                          allowed="a directory where sk can write trace.json and */op_statistic.csv")


def _under_tsan(args, twin) -> int:
    """This command again in a child process with libtsan loaded first; its output and exit status.

    A child, not an exec of this process: in sk's persistent worker this process is the
    worker, whose protocol pipe an exec would take down with it.
    """
    import subprocess
    import sys

    env = twin.tsan_env()
    env["SK_RUN_UNDER_TSAN"] = "1"
    # The child imports what this process does (sk and jinja2 from wherever they came from here).
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    from sk.cli.main import command_line

    proc = subprocess.run([sys.executable, "-m", "sk", *command_line()], env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, errors="replace")
    sys.stdout.write(proc.stdout)
    sys.stderr.write(proc.stderr)
    return proc.returncode
