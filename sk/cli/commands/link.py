"""`sk link`: link a SuperKernel in the plan's order, localise, verify, fill sha256.

  sk link --toolchain host|cann --ld PATH --objcopy PATH --plan plan.json
      (--entry-dir DIR... | --entry-obj OBJ...) --sub-obj OP0.o --sub-obj OP1.o ...
      --meta-in <name>.json --out-obj <name>.o --out-json <name>.json
      [--runtime-lib LIB]... [--allow-undefined SYM]...

--sub-obj is given once per op, in op order (the archive `sk subkernel pack`
wrote). Undefined symbols allowed in the result: what --runtime-lib files
define, --allow-undefined names, and for the host flavour the twin runtime's
documented interface (sk_twin_* hooks and per-worker SK globals).
"""

from __future__ import annotations

from sk.cli import gates as g
from sk.toolflow import toolargv

# Options given once per op, taken out of argv by sk.cli.main before argparse sees it (argparse is
# quadratic in the number of option strings): option -> argparse dest.
REPEATED_OPTIONS = {"--sub-obj": "sub_obj"}


def configure(parser):
    parser.add_argument("--toolchain", required=True, choices=toolargv.FLAVORS, type=g.TEXT)
    parser.add_argument("--ld", required=True, type=g.TOOL)
    parser.add_argument("--objcopy", required=True, type=g.TOOL)
    parser.add_argument("--plan", required=True, type=g.JSON)
    parser.add_argument("--entry-dir", action="append", default=[], type=g.INDIR,
                        help="directory written by `sk entry compile --out-dir` (repeatable: one per half)")
    parser.add_argument("--entry-obj", action="append", default=[], type=g.OBJECT, help="entry half object (repeatable)")
    parser.add_argument("--sub-obj", action="append", default=[], type=g.OBJECT, help="sub-op archive, one per op in order")
    parser.add_argument("--meta-in", required=True, type=g.JSON, help="<name>.json from `sk gen` (sha256 is filled in)")
    parser.add_argument("--out-obj", required=True, type=g.OUTFILE)
    parser.add_argument("--out-json", required=True, type=g.OUTFILE)
    parser.add_argument("--runtime-lib", action="append", default=[], type=g.OBJECT, help="library whose symbols may stay undefined")
    parser.add_argument("--allow-undefined", action="append", default=[], metavar="SYM", type=g.TEXT)


def run(args) -> int:
    from sk.toolflow import link
    from sk.engine import planfacts

    plan = planfacts.load_link_facts(args.plan)
    link.link_plan(toolargv.Tools(args.toolchain, linker=args.ld, objcopy=args.objcopy), plan,
                   entry_dirs=args.entry_dir, entry_objs=args.entry_obj, sub_objs=args.sub_obj,
                   meta_in=args.meta_in, out_obj=args.out_obj, out_json=args.out_json,
                   runtime_libs=args.runtime_lib, allow_undefined=args.allow_undefined)
    return 0
