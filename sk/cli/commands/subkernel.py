"""`sk subkernel compile|wrap|pack`: build a kernel for use inside SuperKernels.

  compile  the user's kernel source, SK mode (default) or --plain (standalone);
           SK mode preprocesses it first and writes the sync-call scan (--sync-out)
  wrap     generate + compile the SK-mode entry `<func>(uint64_t args_offset)`
  pack     ld -r kernel + wrapper, localise, split copies -> archive + sub-op JSON

See sk/toolflow/subkernel.py for the naming scheme and the output layout.
"""

from __future__ import annotations

import argparse
import sys

from sk.cli import gates as g
from sk.engine.options import SPLIT_MODE_MAX
from sk.toolflow import toolargv


def _tools(p, compiler=False, linker=False, soc=False):
    p.add_argument("--toolchain", required=True, choices=toolargv.FLAVORS, type=g.TEXT, help="host (CPU twin) or cann")
    if compiler:
        p.add_argument("--compiler", required=True, type=g.TOOL, help="compiler path (g++ or bisheng)")
        p.add_argument("--include", action="append", default=[], metavar="DIR", type=g.INCLUDE_DIR, help="include directory (repeatable)")
    if compiler or soc:
        p.add_argument("--soc", type=g.TEXT, help="the SoC the kernel is compiled for (its chip picks the CANN target and "
                                     "the sub-op JSON's core-type keys, dav-<chip>-*; default: the A2/A3 chip, c220)")
    if linker:
        p.add_argument("--ld", required=True, type=g.TOOL, help="linker path (ld or ld.lld)")
        p.add_argument("--objcopy", required=True, type=g.TOOL, help="objcopy path (objcopy or llvm-objcopy)")


def _kernel(p, options_required=True):
    p.add_argument("--kernel-type", required=True, type=g.TEXT, help="KERNEL_TYPE_AIV_ONLY ... KERNEL_TYPE_MIX_AIC_1_2")
    p.add_argument("--block-dim", required=True, type=g.number(g.UINT32, minimum=1), help="blocks the kernel runs on")
    p.add_argument("--options", default=None if not options_required else "", type=g.TEXT,
                   help="option string of the SuperKernel; only the keys of sk/engine/inherited.py count "
                        "(early-start, stream-fusion, feed-sync-all, split-mode, dcci-*)")
    p.add_argument("--op-type", default="", type=g.TEXT, help="operator type, matched by the dcci-* options")
    p.add_argument("--loc", default="middle", type=g.TEXT, help="scope location start|middle|end (early-start macros)")
    p.add_argument("--tiling-key", dest="tiling_keys", action="append", type=g.number(g.UINT64), default=[], metavar="K",
                   help="a tiling-sink kernel: one TILING_KEY_IS(K) variant per key (repeatable), compiled once "
                        "per key with its entry renamed <entry>_<K>")


def configure(parser):
    sub = parser.add_subparsers(dest="step", metavar="STEP")
    sub.required = True

    p = sub.add_parser("compile", help="compile a kernel source (SK mode or --plain)", fromfile_prefix_chars="@")
    _tools(p, compiler=True)
    _kernel(p, options_required=False)
    p.add_argument("--plain", action="store_true", help="ordinary compile for standalone launches")
    p.add_argument("--sync-out", type=g.OUTFILE, help="SK mode: write the sync-call scan of the source here (for wrap and pack)")
    p.add_argument("--entry", type=g.TEXT, help="the kernel's entry function (needed with --tiling-key and --cann-kernel)")
    p.add_argument("--cann-kernel", metavar="FUNC", type=g.TEXT,
                   help="a CANN-style operator (docs/cann-ops.md): src is its kernel, FUNC its (template) "
                        "__global__ function; sk generates the entry --entry calling FUNC<args>(params)")
    p.add_argument("--binary-config", metavar="JSON", type=g.JSON, help="with --cann-kernel: the op's <op>_binary.json")
    p.add_argument("--variant", type=g.TEXT, help="with --binary-config: the variant, its op_list index or bin_filename")
    p.add_argument("--tpl-args", default="", metavar="NAME=V,...", type=g.TEXT,
                   help="with --cann-kernel: the template-argument combination (one ASCENDC_TPL_SEL selects)")
    p.add_argument("--param", action="append", default=[], type=g.TEXT,
                   help="with --cann-kernel: the entry's parameters in signature order (repeatable)")
    p.add_argument("-o", dest="out", required=True, type=g.OUTFILE, help="output object")
    p.add_argument("src", type=g.SOURCE, help="kernel source")
    p.add_argument("extra", nargs="*", type=g.TEXT, help="extra compiler flags, after --")

    p = sub.add_parser("wrap", help="generate and compile the SK-mode entry", fromfile_prefix_chars="@")
    _tools(p, compiler=True)
    _kernel(p)
    p.add_argument("--entry", required=True, type=g.TEXT, help="the kernel's extern \"C\" entry function")
    p.add_argument("--name", type=g.TEXT, help="base name of the SK-mode function (default: the entry)")
    p.add_argument("--param", action="append", default=[], type=g.TEXT, help="parameter name, in signature order (repeatable)")
    p.add_argument("--kernel-obj", type=g.OBJECT, help="the SK-mode kernel object, to check that it defines the entry")
    p.add_argument("--sync-scan", required=True, type=g.JSON, help="the kernel's sync-call scan (compile --sync-out)")
    p.add_argument("--source-out", type=g.OUTFILE, help="also write the generated source here")
    p.add_argument("-o", dest="out", required=True, type=g.OUTFILE, help="output object")
    p.add_argument("extra", nargs="*", type=g.TEXT, help="extra compiler flags, after --")

    p = sub.add_parser("pack", help="fuse kernel + wrapper, localise, split; write archive + sub-op JSON",
                       fromfile_prefix_chars="@")
    _tools(p, linker=True, soc=True)
    _kernel(p)
    p.add_argument("--kernel-obj", required=True, type=g.OBJECT)
    p.add_argument("--wrapper-obj", required=True, type=g.OBJECT)
    p.add_argument("--sync-scan", required=True, type=g.JSON, help="the kernel's sync-call scan (compile --sync-out)")
    p.add_argument("--entry", required=True, type=g.TEXT)
    p.add_argument("--name", type=g.TEXT, help="base name of the SK-mode function (default: the entry)")
    p.add_argument("--param", action="append", default=[], type=g.TEXT)
    p.add_argument("--out-obj", required=True, type=g.OUTFILE, help="sub-op archive (<stem>.o)")
    p.add_argument("--out-json", required=True, type=g.OUTFILE, help="sub-op JSON, in the same directory")
    p.add_argument("--split-mode", type=g.number(g.INT32, minimum=1, maximum=SPLIT_MODE_MAX), help="must equal the options' split-mode if given (check only)")


def _step_tools(args, **paths) -> toolargv.Tools:
    if args.soc is None:
        return toolargv.Tools(args.toolchain, **paths)
    from sk.engine.platforms import get_platform

    return toolargv.Tools(args.toolchain, **paths, chip=get_platform(args.soc).chip)


def _cann_instance(args):
    from sk.base.errors import SkError
    from sk.toolflow.cannbuild import CannInstance

    if not args.cann_kernel:
        for flag, value in (("--binary-config", args.binary_config), ("--variant", args.variant),
                            ("--tpl-args", args.tpl_args), ("--param", args.param)):
            if value:
                raise SkError("this flag describes a CANN-style operator", where=flag, value=value,
                              allowed="give --cann-kernel FUNC too, or drop it")
        return None
    if args.variant and not args.binary_config:
        raise SkError("a variant is one of a binary config's", where="--variant", value=args.variant,
                      allowed="give --binary-config too")
    from sk.twin.opsrc import staged_prelude

    return CannInstance(args.cann_kernel, args.binary_config, args.variant, args.tpl_args, tuple(args.param),
                        staged_prelude(args.src, args.binary_config))


def run(args: argparse.Namespace) -> int:
    from sk.toolflow import subkernel
    from sk.engine import kernel_types

    kt = kernel_types.lookup(args.kernel_type, "--kernel-type")
    if args.step == "compile":
        tools = _step_tools(args, compiler=args.compiler)
        subkernel.compile_source(tools, args.src, args.out, kt=kt, block_dim=args.block_dim, options=args.options,
                                 op_type=args.op_type, loc=args.loc, include_dirs=args.include, extra=args.extra,
                                 plain=args.plain, sync_out=args.sync_out, tiling_keys=args.tiling_keys,
                                 entry=args.entry, cann=_cann_instance(args),
                                 warn=lambda w: print(f"sk subkernel: warning: {w}", file=sys.stderr))
        return 0
    name = args.name or args.entry
    if args.step == "wrap":
        tools = _step_tools(args, compiler=args.compiler)
        subkernel.wrap(tools, entry=args.entry, name=name, params=args.param, kt=kt, block_dim=args.block_dim,
                       options=args.options, op_type=args.op_type, loc=args.loc, kernel_obj=args.kernel_obj,
                       out=args.out, sync_scan=args.sync_scan, include_dirs=args.include, extra=args.extra,
                       source_out=args.source_out, tiling_keys=args.tiling_keys)
        return 0
    tools = _step_tools(args, linker=args.ld, objcopy=args.objcopy)
    if args.split_mode is not None:
        subkernel.check_split_mode(args.split_mode, args.options)
    subkernel.pack(tools, kernel_obj=args.kernel_obj, wrapper_obj=args.wrapper_obj, entry=args.entry, name=name,
                   kt=kt, block_dim=args.block_dim, params=args.param, options=args.options, op_type=args.op_type,
                   loc=args.loc, out_obj=args.out_obj, out_json=args.out_json, sync_scan=args.sync_scan,
                   tiling_keys=args.tiling_keys)
    return 0
