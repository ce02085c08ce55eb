"""`sk options "<string>"`: parse a SuperKernel option string, print it normalised."""

import json
import sys

from sk.cli import gates as g


def configure(parser):
    parser.add_argument("text", type=g.TEXT, help="option string, e.g. 'stream-fusion=1:split-mode=4'")


def run(args) -> int:
    from sk.engine.options import parse_options

    opts = parse_options(args.text)
    for warning in opts.warnings:
        print(f"sk options: warning: {warning}", file=sys.stderr)
    print(json.dumps(opts.to_json(), indent=2, sort_keys=True))
    return 0
