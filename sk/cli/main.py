"""Command line of the sk tool: `python -m sk <command> ...`.

Each command lives in its own module under sk/cli/commands/ with two functions,
`configure(parser)` and `run(args) -> int`. Bazel actions pass arguments
through a param file (`@file`, one argument per line).
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from sk import __version__
from sk.base import infile
from sk.base.errors import EXIT_INTERNAL_ERROR, EXIT_USER_ERROR, SkError
from sk.cli import gates

# command name -> (module, one-line help). Modules are imported lazily so a
# command's dependencies (jinja2) load only when it runs.
COMMANDS = {
    "version": ("sk.cli.commands.version", "print the sk tool version"),
    "options": ("sk.cli.commands.options", "parse a SuperKernel option string and print it normalised"),
    "gen": ("sk.cli.commands.gen", "generate the SuperKernel source, kernel JSON and compile options"),
    "subkernel": ("sk.cli.commands.subkernel", "compile, wrap and pack a kernel for SuperKernels (SK mode)"),
    "entry": ("sk.cli.commands.entry", "compile the generated SuperKernel source (cube/vector halves)"),
    "link": ("sk.cli.commands.link", "link a SuperKernel in plan order, localise, verify, fill sha256"),
    "twin": ("sk.cli.commands.twin", "link a shared library the CPU twin loads (from sk's objects)"),
    "cannop": ("sk.cli.commands.cannop", "list an operator folder's binary variants and template combinations"),
    "run": ("sk.cli.commands.run", "run a model separately and fused on the CPU twin; compare bit for bit"),
    "model": ("sk.cli.commands.model", "write the self-contained model file of an sk_model (BUILD + data file)"),
    "report": ("sk.cli.commands.report", "write the human-readable fusion report of a SuperKernel"),
    "launch": ("sk.cli.commands.launch", "write a super_kernel's C++ launch API (header + twin or CANN implementation)"),
}


class UsageError(SkError):
    """A command line argparse refuses (a gate's refusal included); `prog` is the (sub)command."""

    def __init__(self, message: str, prog: str):
        super().__init__(message)
        self.prog = prog


class _Parser(argparse.ArgumentParser):
    """argparse's parser whose errors are SkErrors: one line naming the argument, exit 2, no usage
    block (and never a SystemExit inside the persistent worker)."""

    def error(self, message):
        raise UsageError(message, self.prog)


def _parser(command: str | None = None) -> argparse.ArgumentParser:
    """The CLI parser; with `command`, only that command's options are configured (its module imported)."""
    parser = _Parser(
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
        if command in (None, name):
            importlib.import_module(module).configure(p)
    gates.gate_untyped(parser)
    return parser


# Param files may name param files (argparse allows it); deeper than this is a loop in all but name.
MAX_PARAM_FILE_DEPTH = 8


def _expand_param_files(argv: list[str], within: tuple = ()) -> list[str] | None:
    """argv with `@file` arguments replaced by the file's lines, as argparse does.

    SkError naming the param file for one that is missing, includes itself (directly or not), nests
    too deep, is not a regular file, is too large or is not UTF-8 text: argparse would recurse until
    the stack ends, block on a FIFO or stop with a UnicodeDecodeError.
    """
    out = []
    for arg in argv:
        if not arg.startswith("@"):
            out.append(arg)
            continue
        path = arg[1:]
        key = os.path.realpath(path)
        if key in within or len(within) >= MAX_PARAM_FILE_DEPTH:
            chain = " -> ".join(["@" + os.path.basename(p) for p in within] + [arg])
            raise SkError("param file includes itself" if key in within else "param files nest too deep",
                          where=arg, value=chain,
                          allowed=f"param files that name other param files, at most {MAX_PARAM_FILE_DEPTH} deep, "
                                  "without a cycle")
        problem = infile.text_problem(path)
        if problem:
            raise SkError(f"the name of a param file {problem}", where=ascii(arg)) from None
        try:
            data = infile.read_bytes(path, infile.PARAMS_LIMIT)
        except OSError as err:
            raise SkError(f"param file cannot be read: {err.strerror or err}", where=arg) from None
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as err:
            raise SkError(f"param file is not UTF-8 text (byte {data[err.start]:#04x} at offset {err.start})",
                          where=arg, allowed="a text file, one argument per line") from None
        if "\0" in text:
            raise SkError(f"param file holds a NUL byte (at offset {text.index(chr(0))})", where=arg,
                          allowed="a text file, one argument per line") from None
        out.extend(_expand_param_files(text.splitlines(), within + (key,)))
    return out


def _check_text(argv: list[str]) -> None:
    """SkError naming the flag for an argument a C string or UTF-8 cannot hold (a NUL byte, a lone
    surrogate: a byte of argv that is not UTF-8); before argparse, whose messages would print it."""
    for i, arg in enumerate(argv):
        problem = infile.text_problem(arg)
        if not problem:
            continue
        if arg.startswith("-") and "=" in arg:
            flag = arg.split("=", 1)[0]
        elif i and argv[i - 1].startswith("-") and argv[i - 1] != "--":
            flag = argv[i - 1]
        else:
            flag = f"argument {i + 1}"
        raise SkError(f"the value {problem}", where=ascii(flag)[1:-1], value=arg,
                      allowed="paths and arguments of Unicode text without NUL bytes")


def _fold_repeated(argv: list[str], option: str):
    """Takes every `OPTION VALUE` / `OPTION=VALUE` out of argv, in order: (rest, values), or None.

    argparse finds the next option string by scanning all of them, once per
    option string: quadratic, 0.04 s of `sk link` for 1,200 `--sub-obj`.
    None (argparse decides everything) wherever the result could differ from
    argparse's: an abbreviation of OPTION, a value that starts with '-', an
    OPTION right after another option string, or a `--`.
    """
    rest, values, i = [], [], 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--":
            return None
        name = arg.split("=", 1)[0]
        if name == option or (arg.startswith("--") and len(name) > 2 and option.startswith(name)):
            if name != option or (i and argv[i - 1].startswith("-") and "=" not in argv[i - 1]):
                return None
            if arg != option:  # OPTION=VALUE
                values.append(arg[len(option) + 1:])
                i += 1
                continue
            if i + 1 >= len(argv) or argv[i + 1].startswith("-"):
                return None
            values.append(argv[i + 1])
            i += 2
            continue
        rest.append(arg)
        i += 1
    return rest, values


def _parse(argv: list[str] | None) -> argparse.Namespace:
    argv = sys.argv[1:] if argv is None else list(argv)
    expanded = _expand_param_files(argv)
    _check_text(expanded)
    command = expanded[0] if expanded and expanded[0] in COMMANDS else None
    if command is None:
        return _parser().parse_args(expanded)
    parser = _parser(command)
    full = list(expanded)
    folded = {}
    for option, dest in getattr(importlib.import_module(COMMANDS[command][0]), "REPEATED_OPTIONS", {}).items():
        taken = _fold_repeated(expanded, option)
        if taken is not None:
            expanded, folded[dest] = taken
    args = parser.parse_args(expanded)
    for dest, values in folded.items():
        setattr(args, dest, _gated(parser, dest, values))
    _LAST_ARGV[:] = full
    return args


def _gated(parser: argparse.ArgumentParser, dest: str, values: list) -> list:
    """Folded values through their argument's gate, as argparse would have passed them."""
    for path, action in gates.actions(parser):
        if action.dest == dest and callable(action.type):
            out = []
            for value in values:
                try:
                    out.append(action.type(value))
                except argparse.ArgumentTypeError as err:
                    raise UsageError(f"argument {'/'.join(action.option_strings)}: {err}",
                                     " ".join(("sk",) + path)) from None
            return out
    return values


# The command line of the command being run (param files expanded), for one that runs itself again
# in a child (`run --tsan`); not in its Namespace, which is exactly what argparse makes of it.
_LAST_ARGV: list = []


def command_line() -> list:
    """The arguments of the sk command this process is running (as `python -m sk` would take them)."""
    return list(_LAST_ARGV)


def run_command(argv: list[str]) -> int:
    """One sk command in this process, exactly as `python -m sk` parses it; an SkError propagates."""
    args = _parse(argv)
    return int(importlib.import_module(args._module).run(args) or 0)


def main(argv: list[str] | None = None) -> int:
    try:
        args = _parse(argv)
    except SkError as err:
        print(f"{getattr(err, 'prog', 'sk')}: error: {err.paragraph()}", file=sys.stderr)
        return EXIT_USER_ERROR
    try:
        return int(importlib.import_module(args._module).run(args) or 0)
    except SkError as err:
        print(f"sk {args.command}: error: {err.paragraph()}", file=sys.stderr)
        return EXIT_USER_ERROR
    except OSError as err:
        if err.filename is None:
            return _internal(args, err)
        # The file system said no to a file of the user's (full disk, permissions, a path the gates could
        # not foresee): the user's to fix, named with the reason, not a bug report.
        print(f"sk {args.command}: error: {ascii(err.filename)[1:-1]}: {err.strerror or err}.", file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        return 130
    except Exception as err:  # noqa: BLE001 - last line of defence, reported as a bug
        return _internal(args, err)


def _internal(args, err: BaseException) -> int:
    import traceback  # only here: importing it costs every command 4 ms

    frame = traceback.extract_tb(err.__traceback__)[-1]
    print(
        f"sk {args.command}: internal error: {type(err).__name__}: {err} "
        f"(at {frame.filename.rsplit('/', 1)[-1]}:{frame.lineno}). This is a bug in sk, "
        "not in your input; please report it with the command line.",
        file=sys.stderr,
    )
    return EXIT_INTERNAL_ERROR
