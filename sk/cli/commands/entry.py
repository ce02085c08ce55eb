"""`sk entry compile`: compile the generated SuperKernel source, per core-side half.

  sk entry compile --toolchain host|cann --compiler PATH [--stub-compiler PATH] [--objcopy PATH] [--include DIR]...
      [--stub-include DIR]...
      --plan plan.json --src <name>_kernel.cpp --compile-options <name>.compile_options.json
      (--out-dir DIR [--arch cube|vec] | --arch cube|vec -o OUT.o) [-- extra copts]

--out-dir writes every half the plan's kernel type needs, named
<name>_mix_aic.o / <name>_mix_aiv.o; with --arch only that half, or nothing
where the plan has none (Bazel declares one action per side before the plan
exists, so the halves compile in parallel). --arch/-o compiles one half, which
the plan must have. With --objcopy each half is localised here (only its entry
symbol global) rather than in every `sk link`. At split-mode > 1 the entry
stubs are compiled by --stub-compiler (CANN: the toolkit's ccec, as upstream)
with the --stub-include directories.
"""

from __future__ import annotations

from sk.cli import gates as g
from sk.toolflow import toolargv


def configure(parser):
    sub = parser.add_subparsers(dest="step", metavar="STEP")
    sub.required = True
    p = sub.add_parser("compile", help="compile the generated SuperKernel source", fromfile_prefix_chars="@")
    p.add_argument("--toolchain", required=True, choices=toolargv.FLAVORS, type=g.TEXT)
    p.add_argument("--compiler", required=True, type=g.TOOL)
    p.add_argument("--stub-compiler", type=g.TOOL,
                   help="compiler of the split entry stubs (cann: ccec, as upstream; default: --compiler)")
    p.add_argument("--objcopy", type=g.TOOL, help="localise each half for `sk link` (only its entry symbol stays global)")
    p.add_argument("--include", action="append", default=[], metavar="DIR", type=g.INCLUDE_DIR)
    p.add_argument("--stub-include", action="append", default=[], metavar="DIR", type=g.INCLUDE_DIR,
                   help="include directory of the split entry stubs (default: the --include ones)")
    p.add_argument("--plan", required=True, type=g.JSON, help="plan JSON from `sk gen --plan-out`")
    p.add_argument("--src", required=True, type=g.SOURCE, help="the generated <name>_kernel.cpp")
    p.add_argument("--compile-options", type=g.JSON, help="<name>.compile_options.json from `sk gen` (default: the plan's)")
    p.add_argument("--out-dir", type=g.OUTDIR, help="write the halves here (all, or the --arch half if the plan has it)")
    p.add_argument("--arch", choices=("cube", "vec"), type=g.TEXT, help="compile only this half")
    p.add_argument("-o", dest="out", type=g.OUTFILE, help="output object for --arch")
    p.add_argument("extra", nargs="*", type=g.TEXT, help="extra compiler flags, after --")


def run(args) -> int:
    from sk.toolflow import entry
    from sk.engine import planfacts
    from sk.base.errors import SkError

    if bool(args.out_dir) == bool(args.out):
        raise SkError("give either --out-dir (the halves, or the --arch half) or --arch with -o (one half)",
                      where="sk entry compile")
    if args.out and not args.arch:
        raise SkError("-o compiles one half and needs --arch", where="--arch", allowed="cube or vec")
    plan = planfacts.load_link_facts(args.plan)  # the same facts, without decoding every op's line
    flags = entry.load_compile_options(args.compile_options) if args.compile_options else list(plan.compile_options)
    tools = toolargv.Tools(args.toolchain, compiler=args.compiler, objcopy=args.objcopy)
    entry.compile_entry(tools, plan, src=args.src, flags=flags, out_dir=args.out_dir, side=args.arch, out=args.out,
                        include_dirs=args.include, stub_include_dirs=args.stub_include,
                        stub_compiler=args.stub_compiler, extra=args.extra)
    return 0
