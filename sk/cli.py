"""Command line of the sk tool: `python -m sk <command> ...`.

Each command lives in its own module under sk/commands/ with two functions,
`configure(parser)` and `run(args) -> int`. Bazel actions pass arguments
through a param file (`@file`, one argument per line).
"""

from __future__ import annotations

import argparse
import importlib
import sys
import traceback

from sk import __version__
from sk.errors import EXIT_INTERNAL_ERROR, EXIT_USER_ERROR, SkError

# command name -> (module, one-line help). Modules are imported lazily so a
# command's dependencies (pyelftools, jinja2) load only when it runs.
COMMANDS = {
    "version": ("sk.commands.version", "print the sk tool version"),
    "options": ("sk.commands.options", "parse a SuperKernel option string and print it normalised"),
    "gen": ("sk.commands.gen", "generate the SuperKernel source, kernel JSON and compile options"),
    "subkernel": ("sk.commands.subkernel", "compile, wrap and pack a kernel for SuperKernels (SK mode)"),
    "entry": ("sk.commands.entry", "compile the generated SuperKernel source (cube/vector halves)"),
    "link": ("sk.commands.link", "link a SuperKernel in plan order, localise, verify, fill sha256"),
    "run": ("sk.commands.run", "run a model separately and fused on the CPU twin; compare bit for bit"),
    "report": ("sk.commands.report", "write the human-readable fusion report of a SuperKernel"),
}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sk",
        description="SuperKernel fusion for Ascend C kernels (rules_superkernel action tool).",
        fromfile_prefix_chars="@",
    )
    parser.add_argument("--version", action="version", version=f"sk {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name, (module, help_text) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text, fromfile_prefix_chars="@")
        p.set_defaults(_module=module)
        importlib.import_module(module).configure(p)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return int(importlib.import_module(args._module).run(args) or 0)
    except SkError as err:
        print(f"sk {args.command}: error: {err.paragraph()}", file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        return 130
    except Exception as err:  # noqa: BLE001 - last line of defence, reported as a bug
        frame = traceback.extract_tb(err.__traceback__)[-1]
        print(
            f"sk {args.command}: internal error: {type(err).__name__}: {err} "
            f"(at {frame.filename.rsplit('/', 1)[-1]}:{frame.lineno}). This is a bug in sk, "
            "not in your input; please report it with the command line.",
            file=sys.stderr,
        )
        return EXIT_INTERNAL_ERROR
