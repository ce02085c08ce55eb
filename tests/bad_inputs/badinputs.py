"""Helpers of the bad-input tests: run `python -m sk`, build real ELF fixtures, write fusion inputs.

Fixtures are built at test time with GNU as/ar (both here): a valid fusion
input is written by `fusion()`, and each bad input is that input with one
thing broken.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess

from sk.tests.harness import REPO as ROOT, run_sk
from sk.tests.objfactory import make_object
from sk.tests.scenario import write_scenario

__all__ = ["Result", "sk", "make_object", "make_elf32", "make_data_object", "fusion", "edit_json", "ROOT"]


@dataclasses.dataclass(frozen=True)
class Result:
    rc: int
    out: str
    err: str


def sk(argv, cwd=None, timeout=300, env=None) -> Result:
    """`python -m sk ARGV` (sk.tests.harness.run_sk) as a Result."""
    proc = run_sk(*argv, cwd=cwd, env=env, timeout=timeout)
    return Result(proc.returncode, proc.stdout, proc.stderr)


def _assemble(path, lines, *extra):
    src = str(path) + ".s"
    with open(src, "w") as f:
        f.write("\n".join(lines) + "\n")
    subprocess.run(["as", *extra, "-o", str(path), src], check=True)
    os.unlink(src)
    return str(path)


def make_elf32(path, symbols):
    """A 32-bit ELF object defining `symbols` as functions."""
    lines = [".text"]
    for sym in symbols:
        lines += [f".globl {sym}", f".type {sym}, @function", f"{sym}:", "ret"]
    return _assemble(path, lines, "--32")


def make_data_object(path, symbols):
    """An ELF64 object defining `symbols` as data (STT_OBJECT), not functions."""
    lines = [".data"]
    for sym in symbols:
        lines += [f".globl {sym}", f".type {sym}, @object", f"{sym}:", ".quad 0", f".size {sym}, 8"]
    return _assemble(path, lines, "--64")


def fusion(root, ops=None, options="", **kw) -> str:
    """A valid fusion input under root (kernel_infos.json, sub-op JSONs, objects); returns the kernel_infos path.

    Default: op a (AIC_ONLY) then op b (AIV_ONLY) on stream 0, split-mode 4.
    """
    ops = ops if ops is not None else [("a", {}, {}), ("b", {"kernel_type": "KERNEL_TYPE_AIV_ONLY"}, {})]
    return write_scenario(str(root), ops, options=options, **kw)


def edit_json(path, mutate):
    """Rewrites the JSON file at path with mutate(doc) applied (mutate edits doc in place)."""
    with open(path) as f:
        doc = json.load(f)
    mutate(doc)
    with open(path, "w") as f:
        json.dump(doc, f)
    return str(path)


def no_calls_scan(path) -> str:
    """A `subkernel compile --sync-out` file for a kernel that calls no inter-core API."""
    from sk.toolflow import syncscan

    with open(path, "w", encoding="utf-8") as f:
        f.write(syncscan.write_text(syncscan.document({"unit": syncscan.count("")})))
    return str(path)
