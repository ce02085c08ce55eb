"""The gates of the command line: every argument of every `sk` command is checked here, as argparse
parses it, before the command runs anything.

Each argument a command declares names its gate as its argparse `type`:

  infile(limit)   a file sk reads or hands to a tool: a regular file (links followed) within the
                  size limit, readable, not in /proc, /sys or /dev (SOURCE, OBJECT, JSON, TEXT_FILE)
  indir           a directory sk reads (INDIR; INCLUDE_DIR may be absent: the compiler skips it)
  OUTFILE         an output: absent or a regular file, in a directory sk can write (never a device,
                  a FIFO or a directory: publishing renames over the path)
  OUTDIR          an output directory: absent (sk makes it) or a directory
  TOOL            a program: a name looked up on PATH, or a path to a regular file
  number(ctype)   a whole number within the range of the C type that holds it (sk.base.numbers)
  TEXT            any other string (option strings, names, compiler flags)
  pair(l, r)      LEFT=RIGHT, each half through its gate

Every gate refuses text a C string or a UTF-8 file cannot hold (a NUL byte, a lone surrogate).
A refusal is argparse's error for that argument, which sk.cli.main turns into one line naming
the flag, the value and what is allowed (SkError, exit 2). sk.cli.main gives any argument
declared without a gate the TEXT gate, and //sk:cli_test fails for an argument declared without
one, so a new command is gated by construction. The checks themselves live in the base layer
(sk/base/infile.py, sk/base/outfile.py, sk/base/numbers.py), which the readers, sk/base/toolrun.py
(before a tool starts) and publish (before an output is replaced) run again on paths that come
from JSON rather than from a flag.
"""

from __future__ import annotations

import argparse
import re

from sk.base import infile, numbers
from sk.base.errors import MAX_VALUE_CHARS
from sk.base.outfile import output_problem


def _shown(value: str) -> str:
    text = repr(value)
    return text if len(text) <= MAX_VALUE_CHARS else f"{text[:MAX_VALUE_CHARS]}... ({len(text)} characters in all)"


class Gate:
    """An argparse `type`: check(text) -> the value, or argparse.ArgumentTypeError saying why not."""

    def __init__(self, name: str, check):
        self.__name__ = name  # argparse names the type by it in its own messages
        self._check = check

    def __call__(self, text: str):
        problem = infile.text_problem(text)
        if problem:
            raise argparse.ArgumentTypeError(f"{_shown(text)} {problem}; pass plain text")
        return self._check(text)

    def __repr__(self) -> str:
        return f"<gate {self.__name__}>"


def _refuse(text: str, problem: str, allowed: str):
    raise argparse.ArgumentTypeError(f"{_shown(text)} {problem}; allowed: {allowed}")


def infile_gate(name: str, limit: int) -> Gate:
    def check(text):
        problem = infile.input_problem(text, want="file", limit=limit)
        if problem:
            _refuse(text, problem, f"a readable regular file of at most {infile.describe_limit(limit)}")
        return text
    return Gate(name, check)


def indir_gate(name: str, missing_ok: bool) -> Gate:
    def check(text):
        problem = infile.input_problem(text, want="dir", missing_ok=missing_ok)
        if problem:
            _refuse(text, problem, "a readable directory")
        return text
    return Gate(name, check)


def _outfile(text):
    problem = output_problem(text, want="file")
    if problem:
        _refuse(text, problem, "a path that is absent or a regular file, in a directory sk can write")
    return text


def _outdir(text):
    problem = output_problem(text, want="dir")
    if problem:
        _refuse(text, problem, "a directory, or a path where sk can make one")
    return text


def _tool(text):
    if not text:
        _refuse(text, "is empty", "a program name on PATH or the path of one")
    if "/" in text:
        problem = infile.input_problem(text, want="file", missing_ok=True)
        if problem:
            _refuse(text, problem, "a program name on PATH or the path of one")
    return text


def _text(text):
    return text


_WHOLE = re.compile(r"[+-]?[0-9]+\Z")
# No C type sk reads is wider than 64 bits (20 digits); a longer literal is not converted at all.
_MAX_DIGITS = 20


def number(ctype: tuple, minimum: int | None = None, maximum: int | None = None) -> Gate:
    """A whole number (decimal) in the range of `ctype` (sk.base.numbers.UINT32 ...), narrowed to
    [minimum, maximum] where given."""
    name, low, high = ctype
    low = low if minimum is None else max(low, minimum)
    high = high if maximum is None else min(high, maximum)
    allowed = f"a whole number from {low} to {high}" + (f" ({name})" if (low, high) == ctype[1:] else "")

    def check(text):
        digits = text.strip()
        if not _WHOLE.match(digits) or len(digits.lstrip("+-")) > _MAX_DIGITS:
            _refuse(text, "is not a whole number", allowed)
        value = int(digits)
        if not low <= value <= high:
            _refuse(text, "is out of range", allowed)
        return value
    return Gate(f"{name} number", check)


def pair(left: Gate, right: Gate) -> Gate:
    """LEFT=RIGHT (split at the first '='), each half through its gate; the value stays the text."""
    def check(text):
        if "=" not in text:
            _refuse(text, "has no '='", "LEFT=RIGHT")
        a, b = text.split("=", 1)
        left(a)
        right(b)
        return text
    return Gate(f"{left.__name__}={right.__name__}", check)


SOURCE = infile_gate("source file", infile.SOURCE_LIMIT)
OBJECT = infile_gate("object file", infile.OBJECT_LIMIT)
JSON = infile_gate("JSON file", infile.JSON_LIMIT)
TEXT_FILE = infile_gate("text file", infile.JSON_LIMIT)
INDIR = indir_gate("input directory", missing_ok=False)
INCLUDE_DIR = indir_gate("include directory", missing_ok=True)
OUTFILE = Gate("output file", _outfile)
OUTDIR = Gate("output directory", _outdir)
TOOL = Gate("program", _tool)
TEXT = Gate("text", _text)

UINT32 = numbers.UINT32
UINT64 = numbers.UINT64
INT32 = numbers.INT32


def is_gate(value) -> bool:
    return isinstance(value, Gate)


def actions(parser: argparse.ArgumentParser):
    """(command path, action) for every argument of `parser` and of its sub-commands, depth first."""
    for action in parser._actions:  # argparse has no public list of a parser's arguments
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                for path, inner in actions(sub):
                    yield (name,) + path, inner
        elif action.nargs != 0 and not isinstance(action, (argparse._HelpAction, argparse._VersionAction)):
            yield (), action


def gate_untyped(parser: argparse.ArgumentParser) -> None:
    """Gives every argument declared without a gate the TEXT gate (a NUL byte or a lone surrogate refused)."""
    for _, action in actions(parser):
        if action.type is None:
            action.type = TEXT
