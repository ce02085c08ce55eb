"""`sk cannop list OP_DIR`: what sk_cann_op can build of an operator folder laid out as CANN's
operator repositories lay it out (docs/cann-ops.md).

Prints its binary variants (op_host/config/<soc>/<op>_binary.json) and the template-argument
combinations its ASCENDC_TPL_SEL selects, with their tiling keys, as the `variants` and
`combinations` of sk_cann_op. The kernel is preprocessed with -DASCENDC_TPL_PRE as the ADK does,
with the twin's headers (g++ on PATH) unless --compiler/--include say otherwise.
"""

from __future__ import annotations

from sk.cli import gates as g


def configure(parser):
    sub = parser.add_subparsers(dest="step", metavar="STEP")
    sub.required = True
    p = sub.add_parser("list", help="print an op folder's variants and ASCENDC_TPL_SEL combinations for BUILD")
    p.add_argument("op_dir", type=g.INDIR, help="the operator's folder (with op_kernel/ and op_host/)")
    p.add_argument("--neighbour", action="append", default=[], metavar="DIR", type=g.INDIR,
                   help="another op folder whose op_kernel/ the kernel includes as ../<op>/x.h (repeatable)")
    p.add_argument("--soc", default="ascend910b", type=g.TEXT, help="the config folder under op_host/config (default ascend910b)")
    p.add_argument("--kernel-src", type=g.TEXT, help="the kernel source inside op_kernel/ (default <op>.cpp)")
    p.add_argument("--compiler", type=g.TOOL, help="the compiler of the -E pass (default: g++ on PATH, the twin's headers)")
    p.add_argument("--include", action="append", default=[], metavar="DIR", type=g.INCLUDE_DIR, help="include directory (repeatable)")


def run(args) -> int:
    import shutil
    import sys

    from sk.base.errors import SkError
    from sk.toolflow import cannbuild, toolargv
    from sk.twin import binding

    compiler = args.compiler or shutil.which("g++")
    if not compiler:
        raise SkError("no compiler for the -E pass", where="--compiler", allowed="g++ on PATH, or --compiler PATH")
    includes = args.include or [str(binding.INCLUDE_DIR)]
    text = cannbuild.list_instances(toolargv.Tools(toolargv.HOST, compiler=compiler), args.op_dir,
                                    neighbours=args.neighbour, soc=args.soc, kernel_src=args.kernel_src,
                                    include_dirs=includes,
                                    warn=lambda w: print(f"sk cannop: warning: {w}", file=sys.stderr))
    print(text, end="")
    return 0
