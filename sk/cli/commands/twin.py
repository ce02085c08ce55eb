"""`sk twin lib`: link objects into a shared library the CPU twin loads.

  sk twin lib --toolchain host --compiler PATH [--ld PATH] --obj OBJ... -o OUT.so [-- extra flags]

The objects come from `sk subkernel compile --plain` (a standalone kernel) or
`sk link` (a SuperKernel); runtime symbols stay undefined and resolve against
libskrt.so when the twin loads the library. The argv is
sk.toolflow.toolargv.twin_shared_argv's, through sk.toolflow.twinlib (which `sk run`
calls too).
"""

from __future__ import annotations

from sk.toolflow import toolargv


def configure(parser):
    sub = parser.add_subparsers(dest="step", metavar="STEP")
    sub.required = True
    p = sub.add_parser("lib", help="link a shared library the CPU twin loads", fromfile_prefix_chars="@")
    p.add_argument("--toolchain", required=True, choices=toolargv.FLAVORS, help="host (the twin is host-only)")
    p.add_argument("--compiler", required=True, help="host compiler driver that links (g++)")
    p.add_argument("--ld", help="linker; the driver is pointed at its directory (no PATH under Bazel)")
    p.add_argument("-o", dest="out", required=True, help="output shared library")
    p.add_argument("--obj", dest="objects", action="append", required=True, metavar="OBJ",
                   help="object to link (repeatable, in link order)")
    p.add_argument("extra", nargs="*", help="extra link flags, after --")


def run(args) -> int:
    from sk.toolflow.twinlib import link_shared

    link_shared(toolargv.Tools(args.toolchain, compiler=args.compiler, linker=args.ld), args.objects, args.out,
                args.extra)
    return 0
