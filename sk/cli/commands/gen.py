"""`sk gen`: plan a SuperKernel and write its source, kernel JSON and compile options."""

import sys

from sk.cli import gates as g


def configure(parser):
    parser.add_argument("--kernel-infos", required=True, metavar="FILE", type=g.JSON,
                        help="kernel_infos JSON (op_list, super_kernel_options, kernel_name)")
    parser.add_argument("--out-dir", required=True, metavar="DIR", type=g.OUTDIR, help="directory for the outputs")
    parser.add_argument("--soc", default=None, metavar="SOC", type=g.TEXT,
                        help="target SoC (default Ascend910_9391, the conformance SoC)")
    parser.add_argument("--plan-out", default=None, metavar="FILE", type=g.OUTFILE, help="also write the plan as JSON")


def run(args) -> int:
    from sk.render.outputs import generate

    generate(args.kernel_infos, args.out_dir, args.plan_out, soc=args.soc,
             warn=lambda warning: print(f"sk gen: warning: {warning}", file=sys.stderr))
    return 0
