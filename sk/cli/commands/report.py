"""`sk report`: the human-readable fusion report of one SuperKernel."""

from sk.render.report import write_report


def configure(parser):
    parser.add_argument("--plan", required=True, help="plan JSON from `sk gen --plan-out`")
    parser.add_argument("--meta", required=True, help="the linked kernel JSON (<name>.json)")
    parser.add_argument("-o", dest="out", required=True, help="report to write (Markdown)")


def run(args) -> int:
    write_report(args.plan, args.meta, args.out)
    return 0
