"""`sk launch`: the launch API of a super_kernel target, a C++ header and its implementation.

  sk launch --manifest launch.json --flavor host|cann --include PKG/NAME_launch.h --header OUT.h --src OUT.cc

The manifest is what BUILD says (written by the super_kernel rule: ops, their
kernels and bindings, the pieces of the scope with each fused piece's plan and
the binary each launch runs); sk.engine.launchspec decides the arguments and
every slot from it and the plans, sk.render.launch writes the files. `host`
launches on the CPU twin; `cann` embeds the binaries and calls the ACL runtime.
"""

from __future__ import annotations


from sk.base.errors import SkError
from sk.base.toolrun import write_files_atomic
from sk.cli import gates as g


def configure(parser):
    parser.add_argument("--manifest", required=True, type=g.JSON, help="launch manifest written by the super_kernel rule")
    parser.add_argument("--flavor", required=True, choices=("host", "cann"), type=g.TEXT,
                        help="host: launch on the CPU twin; cann: the ACL runtime's kernel-loading API")
    parser.add_argument("--include", required=True, type=g.TEXT, help="the path the implementation includes the header by")
    parser.add_argument("--header", required=True, type=g.OUTFILE, help="header to write")
    parser.add_argument("--src", required=True, type=g.OUTFILE, help="implementation to write")
    parser.add_argument("--objcopy", type=g.TOOL, help="host: the objcopy that writes the kernel objects the twin library links")
    parser.add_argument("--twin-obj", dest="twin_objs", action="append", default=[], metavar="BINARY=OUT", type=g.pair(g.TEXT, g.OUTFILE),
                        help="host: write OUT, the copy of the launched object BINARY with its symbols renamed "
                             "(one per object the manifest launches)")


def run(args) -> int:
    from sk.engine import launchspec
    from sk.render import launch

    manifest = launchspec.load_manifest(args.manifest)
    spec = launchspec.build(manifest, where=args.manifest)
    header, src = launch.render(spec, args.flavor, args.include)
    if args.flavor == "host":
        _twin_objects(args, spec)
    write_files_atomic({args.header: header, args.src: src})
    return 0


def _twin_objects(args, spec) -> None:
    from sk.engine import launchspec
    from sk.toolflow import launchobj, toolargv

    wanted = launchspec.twin_objects(spec)
    given = dict(pair.split("=", 1) for pair in args.twin_objs if "=" in pair)
    if len(given) != len(args.twin_objs) or set(given) != set(wanted):
        raise SkError("--twin-obj must name every launched object once, as BINARY=OUT", where="--twin-obj",
                      value=sorted(given), allowed="the objects: " + ", ".join(sorted(wanted)))
    if not args.objcopy:
        raise SkError("the twin launch library needs an objcopy", where="--objcopy", allowed="pass the toolchain's")
    tools = toolargv.Tools("host", objcopy=args.objcopy)
    for binary, (renames, localize) in sorted(wanted.items()):
        launchobj.write_twin_object(tools, binary, given[binary], renames, localize)
