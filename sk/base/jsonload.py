"""Reading user-written JSON strictly: duplicate keys and absurd nesting are syntax errors.

`json.load` keeps the last of two equal keys without a word (a hand-edited
kernel_infos with `"stream_id": 0, "stream_id": 1` would silently fuse on
stream 1) and overflows the interpreter's stack on deeply nested input.
`load(f)` raises `json.JSONDecodeError` for both, with the line and column
of the culprit, so callers report them like any other JSON error.
"""

from __future__ import annotations

import json

# Our documents nest about six levels; anything deeper than this is not one of them.
MAX_DEPTH = 100
# No field takes a number of more than 20 digits; a longer literal is a typo or an attack, on every Python
# (3.11+ would refuse only beyond 4,300 digits, older ones convert any length at quadratic cost).
MAX_NUMBER_CHARS = 100


class _LongNumber(Exception):
    def __init__(self, literal: str):
        super().__init__(literal)
        self.literal = literal


def _int(literal: str) -> int:
    if len(literal) > MAX_NUMBER_CHARS:
        raise _LongNumber(literal)
    return int(literal)


def _float(literal: str) -> float:
    if len(literal) > MAX_NUMBER_CHARS:
        raise _LongNumber(literal)
    return float(literal)


class _DuplicateKey(Exception):
    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def _pairs(pairs):
    doc = dict(pairs)
    if len(doc) != len(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return doc


def loads(text: str):
    """json.loads that rejects duplicate keys, nesting deeper than MAX_DEPTH and number literals
    longer than MAX_NUMBER_CHARS (JSONDecodeError)."""
    try:
        doc = json.loads(text, object_pairs_hook=_pairs, parse_int=_int, parse_float=_float)
    except _DuplicateKey as dup:
        pos = _locate(text, duplicate=dup.key)
        raise json.JSONDecodeError(f"key {dup.key!r} appears twice in one object", text, pos) from None
    except RecursionError:
        pos = _locate(text)
        raise json.JSONDecodeError(f"nested deeper than {MAX_DEPTH} levels (depth limit)", text, pos) from None
    except _LongNumber as long:
        raise json.JSONDecodeError(
            f"a number has too many digits ({len(long.literal)} characters; no field takes more than 20 digits, "
            f"the limit is {MAX_NUMBER_CHARS})", text, max(text.find(long.literal), 0)) from None
    if not _within_depth(doc):
        raise json.JSONDecodeError(f"nested deeper than {MAX_DEPTH} levels (depth limit)", text, _locate(text))
    return doc


def _within_depth(doc) -> bool:
    """Whether no container lies deeper than MAX_DEPTH (the parser's own limit is the interpreter's stack)."""
    stack = [(doc, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            return False
        if isinstance(node, dict):
            stack.extend((v, depth + 1) for v in node.values() if isinstance(v, (dict, list)))
        elif isinstance(node, list):
            stack.extend((v, depth + 1) for v in node if isinstance(v, (dict, list)))
    return True


def load(f):
    return loads(f.read())


def _locate(text: str, duplicate: str | None = None) -> int:
    """Offset of the second `duplicate` key in one object, else of the first bracket beyond MAX_DEPTH.

    Only runs on the error path; a plain scan that skips string contents.
    """
    stack: list = []  # per open bracket: the keys seen (object) or None (array)
    expect_key = False
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            if expect_key and stack and stack[-1] is not None:
                try:
                    key = json.loads(text[i:j + 1])
                except ValueError:
                    key = text[i + 1:j]
                if duplicate is not None and key == duplicate and key in stack[-1]:
                    return i
                stack[-1].add(key)
                expect_key = False
            i = j + 1
            continue
        if c in "{[":
            stack.append(set() if c == "{" else None)
            if duplicate is None and len(stack) > MAX_DEPTH:
                return i
            expect_key = c == "{"
        elif c in "}]":
            if stack:
                stack.pop()
            expect_key = False
        elif c == ",":
            expect_key = bool(stack) and stack[-1] is not None
        elif c == ":":
            expect_key = False
        i += 1
    return 0
