"""`sk version`: the tool version and the versions of its dependencies."""

import json
import sys

from sk import __version__


def configure(parser):
    parser.add_argument("--json", action="store_true", help="print as JSON")


def run(args) -> int:
    import jinja2

    info = {
        "sk": __version__,
        "python": "%d.%d" % sys.version_info[:2],
        "jinja2": jinja2.__version__,
    }
    if args.json:
        print(json.dumps(info, sort_keys=True))
    else:
        print(" ".join(f"{k}={v}" for k, v in info.items()))
    return 0
