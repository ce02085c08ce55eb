"""JSON text exactly as `json.dumps(obj, indent=2)` writes it, without its slow path.

`indent=` makes the json module use its pure-Python encoder (a generator per
nesting level, a call per value): 0.1-0.2 s for the ~1 MB kernel JSON of a
1,200-sub-kernel SuperKernel, written by `sk gen` and again by `sk link`.
This writer produces the same characters for the documents sk writes
(dicts with str keys, lists, str, int, finite float, bool, None), quoting
strings with json's own C function. Anything else (other key types, NaN,
subclasses such as IntEnum, custom objects) goes to json.dumps unchanged, so
the text never differs from json's, only the time.
"""

from __future__ import annotations

import json
import math
from json.encoder import encode_basestring_ascii as _quote


class _Unusual(Exception):
    """A value this writer does not spell itself; json.dumps decides."""


def dumps(obj, indent: int = 2) -> str:
    """`json.dumps(obj, indent=indent)` (ensure_ascii, default separators, key order kept)."""
    out: list[str] = []
    try:
        _value(obj, 0, indent, out)
    except _Unusual:
        return json.dumps(obj, indent=indent)
    return "".join(out)


def _scalar(v) -> str:
    t = type(v)
    if t is str:
        return _quote(v)
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if t is int:
        return int.__repr__(v)
    if t is float and math.isfinite(v):
        return float.__repr__(v)
    raise _Unusual


def _value(v, level: int, indent: int, out: list) -> None:
    t = type(v)
    if t is dict:
        brackets, entries = "{}", v.items()
    elif t is list or t is tuple:
        brackets, entries = "[]", ((None, item) for item in v)
    else:
        out.append(_scalar(v))
        return
    if not v:
        out.append(brackets)
        return
    inner = "\n" + " " * (indent * (level + 1))
    sep = brackets[0] + inner
    for key, item in entries:
        out.append(sep)
        if t is dict:
            if type(key) is not str:
                raise _Unusual
            out.append(_quote(key))
            out.append(": ")
        ti = type(item)
        if ti is dict or ti is list or ti is tuple:
            _value(item, level + 1, indent, out)
        else:
            out.append(_scalar(item))
        sep = "," + inner
    out.append("\n" + " " * (indent * level) + brackets[1])
