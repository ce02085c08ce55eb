"""`sk entry compile`: compile the generated SuperKernel source, per core-side half.

  sk entry compile --toolchain host|cann --compiler PATH [--include DIR]...
      --plan plan.json --src <name>_kernel.cpp --compile-options <name>.compile_options.json
      (--out-dir DIR | --arch cube|vec -o OUT.o) [-- extra copts]

--out-dir writes every half the plan's kernel type needs, named
<name>_mix_aic.o / <name>_mix_aiv.o; --arch/-o compiles one half.
"""

from __future__ import annotations

from sk.build import toolargv


def configure(parser):
    sub = parser.add_subparsers(dest="step", metavar="STEP")
    sub.required = True
    p = sub.add_parser("compile", help="compile the generated SuperKernel source", fromfile_prefix_chars="@")
    p.add_argument("--toolchain", required=True, choices=toolargv.FLAVORS)
    p.add_argument("--compiler", required=True)
    p.add_argument("--include", action="append", default=[], metavar="DIR")
    p.add_argument("--plan", required=True, help="plan JSON from `sk gen --plan-out`")
    p.add_argument("--src", required=True, help="the generated <name>_kernel.cpp")
    p.add_argument("--compile-options", help="<name>.compile_options.json from `sk gen` (default: the plan's)")
    p.add_argument("--out-dir", help="write all halves here")
    p.add_argument("--arch", choices=("cube", "vec"), help="compile only this half (with -o)")
    p.add_argument("-o", dest="out", help="output object for --arch")
    p.add_argument("extra", nargs="*", help="extra compiler flags, after --")


def run(args) -> int:
    from sk.build import entry
    from sk.engine import planfacts
    from sk.base.errors import SkError

    if bool(args.out_dir) == bool(args.out):
        raise SkError("give either --out-dir (all halves) or --arch with -o (one half)", where="sk entry compile")
    if args.out and not args.arch:
        raise SkError("-o compiles one half and needs --arch", where="--arch", allowed="cube or vec")
    plan = planfacts.facts(planfacts.load(args.plan), where=args.plan)
    flags = entry.load_compile_options(args.compile_options) if args.compile_options else list(plan.compile_options)
    entry.compile_entry(toolargv.Tools(args.toolchain, compiler=args.compiler), plan, src=args.src,
                        flags=flags, out_dir=args.out_dir,
                        side=args.arch, out=args.out, include_dirs=args.include, extra=args.extra)
    return 0
