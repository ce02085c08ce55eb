"""`sk twin lib`: link objects into a shared library the CPU twin loads; `sk twin tiling`: a host tiling function;
`sk twin survey`: which operators of an operator repository compile for the twin; `sk twin calls`: which Ascend C
calls they make.

  sk twin lib --toolchain host --compiler PATH [--ld PATH] --obj OBJ... -o OUT.so [-- extra flags]
  sk twin survey DIR [--soc ascend910b] [--under SUB]... [--json] [--jobs N] [--compiler g++] [--keep DIR]
  sk twin calls DIR [--soc ascend910b] [--under SUB]... [--json] [--top N]

The objects come from `sk subkernel compile --plain` (a standalone kernel) or
`sk link` (a SuperKernel); runtime symbols stay undefined and resolve against
libskrt.so when the twin loads the library. The argv is
sk.toolflow.toolargv.twin_shared_argv's, through sk.toolflow.twinlib (which `sk run`
calls too).
"""

from __future__ import annotations

from sk.cli import gates as g
from sk.toolflow import toolargv


def configure(parser):
    sub = parser.add_subparsers(dest="step", metavar="STEP")
    sub.required = True
    p = sub.add_parser("lib", help="link a shared library the CPU twin loads", fromfile_prefix_chars="@")
    p.add_argument("--toolchain", required=True, choices=toolargv.FLAVORS, type=g.TEXT, help="host (the twin is host-only)")
    p.add_argument("--compiler", required=True, type=g.TOOL, help="host compiler driver that links (g++)")
    p.add_argument("--ld", type=g.TOOL, help="linker; the driver is pointed at its directory (no PATH under Bazel)")
    p.add_argument("-o", dest="out", required=True, type=g.OUTFILE, help="output shared library")
    p.add_argument("--obj", dest="objects", action="append", required=True, metavar="OBJ", type=g.OBJECT,
                   help="object to link (repeatable, in link order)")
    p.add_argument("extra", nargs="*", type=g.TEXT, help="extra link flags, after --")
    p = sub.add_parser("tiling", help="compile a tiling-sink kernel's host tiling function (sk_tiling.h) into a "
                                      "shared library the CPU twin calls", fromfile_prefix_chars="@")
    p.add_argument("--compiler", required=True, type=g.TOOL, help="host C++ compiler (g++)")
    p.add_argument("--ld", type=g.TOOL, help="linker; the driver is pointed at its directory (no PATH under Bazel)")
    p.add_argument("--include", action="append", default=[], metavar="DIR", type=g.INCLUDE_DIR,
                   help="include directory (repeatable); the first holds sk_tiling.h")
    p.add_argument("-o", dest="out", required=True, type=g.OUTFILE, help="output shared library")
    p.add_argument("srcs", nargs="+", type=g.SOURCE, help="the tiling function's C++ sources")
    for step, what in (("survey", "compile every operator of an operator repository for the CPU twin, per binary "
                                  "variant, and tell what the first failure misses"),
                       ("calls", "count the Ascend C calls the kernels of an operator repository make")):
        p = sub.add_parser(step, help=what)
        p.add_argument("repo", metavar="DIR", type=g.INDIR, help="an operator repository checkout (op folders with op_host/config/"
                                                   "<soc>/<op>_binary.json and op_kernel/<op>.cpp)")
        p.add_argument("--soc", default="ascend910b", type=g.TEXT, help="the binary configs to read (default ascend910b)")
        p.add_argument("--under", action="append", default=[], metavar="SUB", type=g.TEXT,
                       help="only operators under DIR/SUB (repeatable; default: all of DIR)")
        p.add_argument("--json", action="store_true", help="JSON instead of a table")
    p = sub.choices["survey"]
    p.add_argument("--jobs", type=g.number(g.UINT32, minimum=1, maximum=256), default=2, help="compiles at once (default 2)")
    p.add_argument("--compiler", type=g.TOOL, help="host C++ compiler (default: $CXX or g++)")
    p.add_argument("--keep", metavar="DIR", type=g.OUTDIR, help="keep the work files (staging, preludes) in DIR")
    sub.choices["calls"].add_argument("--top", type=g.number(g.UINT32), default=0, help="only the N most used calls")


def _survey(args) -> int:
    import json
    import sys

    from sk.base.errors import SkError
    from sk.twin import binding, survey

    if args.jobs < 1:
        raise SkError("--jobs must be at least 1", where="--jobs", value=args.jobs, allowed="1 or more")
    results = survey.survey(args.repo, soc=args.soc, compiler=args.compiler or binding.compiler(),
                            include_dir=binding.INCLUDE_DIR, under=args.under, jobs=args.jobs, work=args.keep)
    if not results:
        raise SkError(f"no operator with a {args.soc} binary config", where=args.repo,
                      allowed=f"folders holding op_host/config/{args.soc}/<op>_binary.json")
    text = json.dumps(survey.summary(results), indent=1) + "\n" if args.json else survey.table(results)
    for w in (w for r in results for w in r.warnings):
        sys.stderr.write(f"sk twin survey: warning: {w}\n")
    sys.stdout.write(text)
    return 0


def _calls(args) -> int:
    import json
    import sys

    from sk.base.errors import SkError
    from sk.twin import apicalls, binding

    files, ops = apicalls.kernel_files(args.repo, args.soc, args.under)
    if not ops:
        raise SkError(f"no operator with a {args.soc} binary config", where=args.repo,
                      allowed=f"folders holding op_host/config/{args.soc}/<op>_binary.json")
    rows = apicalls.table(apicalls.count_calls(files), apicalls.twin_declares(binding.INCLUDE_DIR), top=args.top)
    if args.json:
        sys.stdout.write(json.dumps({"operators": len(ops), "files": len(files), "calls": rows}, indent=1) + "\n")
    else:
        sys.stdout.write(f"# {len(ops)} operators, {len(files)} kernel files; 'missing': no such name in the twin\n")
        sys.stdout.write("".join(f"{r['count']:6d} {r['name']}{'' if r['declared'] else '  missing'}\n"
                                 for r in rows))
    return 0


def run(args) -> int:
    from sk.toolflow.twinlib import link_shared, tiling_function

    if args.step == "survey":
        return _survey(args)
    if args.step == "calls":
        return _calls(args)

    if args.step == "tiling":
        if not args.include:
            from sk.base.errors import SkError

            raise SkError("the tiling function includes sk_tiling.h", where="--include",
                          allowed="the twin runtime's include directory first")
        tiling_function(args.compiler, args.srcs, args.out, include_dir=args.include[0], include_dirs=args.include[1:],
                        linker=args.ld)
        return 0
    link_shared(toolargv.Tools(args.toolchain, compiler=args.compiler, linker=args.ld), args.objects, args.out,
                args.extra)
    return 0
