"""How generated outputs are compared with upstream's goldens (../shared/conformance/README.md).

exact:       the source equals the golden line for line;
normalised:  comments dropped (outside string/char literals), spaces/tabs collapsed,
             lines stripped, empty lines dropped, then compared line by line;
kernel JSON: parsed, top-level sha256 ignored;
options:     every golden entry is a whole argv token of the generated compile options.
"""

from __future__ import annotations


def strip_comments(text: str) -> str:
    out = []
    i, n = 0, len(text)
    quote = None
    while i < n:
        c = text[i]
        if quote:
            out.append(c)
            if c == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 2
                continue
            if c == quote or c == "\n":
                quote = None
            i += 1
        elif c in "\"'":
            quote = c
            out.append(c)
            i += 1
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
            out.append(" ")
        else:
            out.append(c)
            i += 1
    return "".join(out)


def normalise(text: str) -> list:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = []
    for line in strip_comments(text).split("\n"):
        line = " ".join(line.replace("\t", " ").split(" ")).strip()
        line = " ".join(part for part in line.split(" ") if part)
        if line:
            lines.append(line)
    return lines


def json_without_sha(doc: dict) -> dict:
    return {k: v for k, v in doc.items() if k != "sha256"}


def missing_options(golden: list, ours: list) -> list:
    return [opt for opt in golden if opt not in ours]
