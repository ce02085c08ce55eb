"""Checks the user docs as a reader meets them: every relative link leads somewhere, and the README's
example is the files of examples/start, byte for byte.

    doccheck.py --root DIR [--pending PATH ...] MARKDOWN...

Links: every `[text](target)` of each MARKDOWN file that is not a URL must name a file under DIR
(relative to the linking file), and a `#anchor` must be a heading of the target Markdown file
(GitHub's slugs). PATH given with --pending is a document another branch adds: a link to it is
allowed before it exists. The README's example: each block that follows a line "`start/<file>`:"
(or "`start/<file>` (...):") must equal examples/start/<file>.
"""

from __future__ import annotations

import argparse
import os
import re
import sys

_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
_FENCE = re.compile(r"^```")
_EXAMPLE = re.compile(r"^`start/([\w./-]+)`[ :(]")


def slug(heading: str) -> str:
    """GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces as dashes."""
    text = heading.strip().replace("`", "").lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: str) -> set:
    out, fenced = set(), False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if _FENCE.match(line):
                fenced = not fenced
            elif not fenced and line.startswith("#"):
                out.add(slug(line.lstrip("#")))
    return out


def _prose(path: str):
    """(line number, text) of the lines outside code blocks."""
    fenced = False
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if _FENCE.match(line):
                fenced = not fenced
            elif not fenced:
                yield n, line


def check_links(root: str, md: str, pending: set) -> list:
    errors = []
    here = os.path.dirname(md)
    for n, line in _prose(os.path.join(root, md)):
        for target in _LINK.findall(line):
            if re.match(r"[a-z]+:", target) or target.startswith("#") and not target[1:]:
                continue
            path, _, anchor = target.partition("#")
            rel = os.path.normpath(os.path.join(here, path)) if path else md
            full = os.path.join(root, rel)
            if not os.path.exists(full):
                if rel not in pending:
                    errors.append(f"{md}:{n}: link to {target}: {rel} does not exist")
                continue
            if anchor and rel.endswith(".md") and anchor not in anchors(full):
                errors.append(f"{md}:{n}: link to {target}: {rel} has no heading '#{anchor}'")
    return errors


def check_example(root: str, readme: str) -> list:
    errors, blocks, want, block = [], {}, None, None
    with open(os.path.join(root, readme), encoding="utf-8") as f:
        for line in f:
            if block is not None:
                if _FENCE.match(line):
                    blocks[want], want, block = "".join(block), None, None
                else:
                    block.append(line)
                continue
            m = _EXAMPLE.match(line)
            if m:
                want = m.group(1)
            elif want and _FENCE.match(line):
                block = []
    start = os.path.join(root, "examples", "start")
    files = sorted(f for f in os.listdir(start) if not f.startswith("."))
    for name in files:
        if name not in blocks:
            errors.append(f"{readme}: examples/start/{name} is not shown (a block after `start/{name}`:)")
            continue
        with open(os.path.join(start, name), encoding="utf-8") as f:
            if f.read() != blocks[name]:
                errors.append(f"{readme}: the block after `start/{name}` differs from examples/start/{name}")
    for name in sorted(set(blocks) - set(files)):
        errors.append(f"{readme}: shows start/{name}, which examples/start does not have")
    return errors


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", required=True, help="the directory the Markdown paths are relative to")
    parser.add_argument("--pending", action="append", default=[], help="a document another branch adds")
    parser.add_argument("markdown", nargs="+")
    args = parser.parse_args(argv)
    errors = []
    for md in args.markdown:
        errors += check_links(args.root, md, set(args.pending))
    errors += check_example(args.root, "README.md")
    for e in errors:
        print(e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
