"""Test helper: real ELF objects and ar archives built with GNU as/ar."""

import os
import subprocess


def make_object(path, symbols, text_size=4080):
    """Assemble `path` with global functions `symbols` at .text+0 and a .text of `text_size` bytes."""
    lines = [".text"]
    for sym in symbols:
        lines += [f".globl {sym}", f".type {sym}, @function"]
    lines += [f"{sym}:" for sym in symbols]
    lines += [f".skip {text_size}"]
    lines += [f".size {sym}, {text_size}" for sym in symbols]
    src = str(path) + ".s"
    with open(src, "w") as f:
        f.write("\n".join(lines) + "\n")
    subprocess.run(["as", "--64", "-o", str(path), src], check=True)
    os.unlink(src)
    return str(path)


def make_archive(path, members):
    subprocess.run(["ar", "rcs", str(path), *map(str, members)], check=True)
    return str(path)
