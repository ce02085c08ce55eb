"""`sk report`: the human-readable fusion report of one SuperKernel."""

from sk.cli import gates as g
from sk.render.report import write_report


def configure(parser):
    parser.add_argument("--plan", required=True, type=g.JSON, help="plan JSON from `sk gen --plan-out`")
    parser.add_argument("--meta", required=True, type=g.JSON, help="the linked kernel JSON (<name>.json)")
    parser.add_argument("-o", dest="out", required=True, type=g.OUTFILE, help="report to write (Markdown)")


def run(args) -> int:
    write_report(args.plan, args.meta, args.out)
    return 0
