"""`sk twin lib`: link objects into a shared library the CPU twin loads; `sk twin tiling`: a host tiling function.

  sk twin lib --toolchain host --compiler PATH [--ld PATH] --obj OBJ... -o OUT.so [-- extra flags]

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


def run(args) -> int:
    from sk.toolflow.twinlib import link_shared, tiling_function

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
