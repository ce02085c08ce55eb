"""The one `--check`/`--write` step of every rendered docs page (api.md, formats.md).

`bazel run` starts in the runfiles, so a write goes to $BUILD_WORKSPACE_DIRECTORY (the checkout); a check
prints the diff and the command that refreshes the page.
"""

from __future__ import annotations

import difflib
import os
import sys


def check_or_write(text: str, target: str, *, write: bool, page: str, source: str, update: str) -> int:
    if write and os.environ.get("BUILD_WORKSPACE_DIRECTORY"):
        target = os.path.join(os.environ["BUILD_WORKSPACE_DIRECTORY"], target)
    if write:
        with open(target, "w", encoding="utf-8") as f:
            f.write(text)
        print("wrote %s" % target)
        return 0
    with open(target, encoding="utf-8") as f:
        current = f.read()
    if current != text:
        sys.stdout.writelines(difflib.unified_diff(current.splitlines(True), text.splitlines(True),
                                                   "%s (checked in)" % page, "%s (%s)" % (page, source)))
        print("\n%s is stale: run `tools/bazel run %s`" % (page, update), file=sys.stderr)
        return 1
    return 0
