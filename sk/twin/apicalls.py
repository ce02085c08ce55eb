"""Which Ascend C calls a set of kernels makes, by use count: what the twin must implement first.

A call is `Name(`, `Name<...>(`, `.Name(` or `->Name(` in the kernel sources (comments and strings removed), where
Name is not a C++ keyword and not defined by the kernels themselves (a function, method, class, struct, enum,
macro or alias of theirs). Each source file counts once, however many operators include it. `declared` tells
whether the twin's headers declare the name (as a function, class or macro), i.e. whether it is a candidate to
implement or already there.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from pathlib import Path

from sk.twin import opsrc

_KEYWORDS = frozenset("""
if for while switch return sizeof alignof decltype static_cast reinterpret_cast const_cast dynamic_cast
static_assert defined catch throw new delete typeid noexcept operator template typename using namespace
case else do auto void int char bool float double long short unsigned signed const constexpr
""".split())

_CALL = re.compile(r"(?<![\w])(?:(?:AscendC|std|sk_twin)::)?([A-Za-z_]\w*)\s*(?:<[^;(){}]*?>)?\s*\(")
_NOT_A_TYPE = frozenset("return else new delete case throw do goto sizeof typename co_return co_yield".split())
_DEFINED = [
    re.compile(r"\b(?:class|struct|enum(?:\s+class)?|union|namespace)\s+(\w+)"),
    re.compile(r"#\s*define\s+(\w+)"),
    re.compile(r"\busing\s+(\w+)\s*="),
    # Out-of-class definitions `Class<T>::Name(` and qualified names of their own namespaces.
    re.compile(r"(?<!AscendC)(?<!std)(?<!sk_twin)>?::(\w+)\s*\("),
]
# A declaration or definition `Type name(` (the first group must be a type, not a statement word).
_DECLARED = re.compile(r"\b(\w+)\s*(?:<[^;(){}]*>)?[\s*&]+(\w+)\s*\(")


def strip_comments_and_strings(text: str) -> str:
    """C++ source without comments and string/char literals (kept as empty literals), lines kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            seg = text[i:n if j < 0 else j + 2]
            out.append("\n" * seg.count("\n"))
            i = n if j < 0 else j + 2
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def kernel_files(root: Path, soc: str, subdirs=()) -> list:
    """The kernel sources of the operators under root (or under root/<subdir> for each subdir) with a binary config
    for soc: each operator's kernel and the quoted includes it reaches, each file once, sorted."""
    ops = opsrc.find_operators_under(Path(root), soc, subdirs)
    staged = opsrc.staged_folders(Path(root))
    files = {}
    for op in ops:
        for path in opsrc.include_closure(op.kernel, staged):
            files.setdefault(os.path.normpath(os.path.abspath(path)), path)
    return [files[k] for k in sorted(files)], ops


def count_calls(paths) -> Counter:
    """Call counts over paths, less the names the files define themselves."""
    texts = [strip_comments_and_strings(Path(p).read_text(encoding="utf-8", errors="replace")) for p in paths]
    defined = set()
    for t in texts:
        for rx in _DEFINED:
            defined.update(rx.findall(t))
        defined.update(name for typ, name in _DECLARED.findall(t) if typ not in _NOT_A_TYPE)
    counts = Counter()
    for t in texts:
        for name in _CALL.findall(t):
            if name not in _KEYWORDS and name not in defined:
                counts[name] += 1
    return counts


NOT_YET_HEADER = "sk_twin_not_yet.h"


def twin_declares(include_dir: Path) -> set:
    """Every identifier of the twin's headers under include_dir (their code, not comments), except the header of
    fallbacks for what the twin does not implement yet: a name the twin mentions is one it provides, through a
    declaration or a macro that declares it."""
    names = set()
    for p in Path(include_dir).rglob("*.h"):
        if p.name == NOT_YET_HEADER:
            continue
        t = strip_comments_and_strings(p.read_text(encoding="utf-8", errors="replace"))
        names.update(re.findall(r"\b[A-Za-z_]\w*", t))
    return names


def table(counts: Counter, declared: set, *, top: int = 0) -> list:
    """Rows (name, count, declared) by count, then name."""
    rows = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    if top:
        rows = rows[:top]
    return [{"name": n, "count": c, "declared": n in declared} for n, c in rows]
