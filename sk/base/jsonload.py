"""Reading user-written JSON strictly: duplicate keys, absurd nesting, NaN and Infinity are syntax errors.

`json.load` keeps the last of two equal keys without a word (a hand-edited
kernel_infos with `"stream_id": 0, "stream_id": 1` would silently fuse on
stream 1) and overflows the interpreter's stack on deeply nested input.
`load(f)` raises `json.JSONDecodeError` for both, with the line and column
of the culprit, so callers report them like any other JSON error. Python's
json also takes `NaN`, `Infinity` and `-Infinity`, which JSON has not and no
field of ours can hold; they are refused the same way.
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
    value = float(literal)
    if value in (float("inf"), float("-inf")):  # 1e400: as unusable as Infinity
        raise _NotANumber(literal)
    return value


class _NotANumber(Exception):
    def __init__(self, literal: str):
        super().__init__(literal)
        self.literal = literal


def _constant(literal: str):
    raise _NotANumber(literal)


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


def _pairs_keeping_last(found: list):
    """An object hook that keeps the last of two equal keys (what json.load does) and notes each such key in found."""

    def hook(pairs):
        doc = dict(pairs)
        if len(doc) != len(pairs):
            seen = set()
            for key, _ in pairs:
                if key in seen:
                    found.append(key)
                seen.add(key)
        return doc

    return hook


def duplicate_lines(text: str) -> list:
    """(key, 1-based line) of every key that appears a second (third, ...) time in one object, in text order."""
    return [(key, text.count("\n", 0, pos) + 1) for key, pos in _locate(text, every_duplicate=True)]


def loads(text: str, *, duplicates: list | None = None):
    """json.loads that rejects duplicate keys, nesting deeper than MAX_DEPTH, number literals
    longer than MAX_NUMBER_CHARS and NaN / Infinity (JSONDecodeError).

    duplicates: for a document sk does not own but must read as its producer's tools read it (a CANN binary
    config, built by the ADK's Python json): two equal keys in one object are then accepted, the last value
    kept as json.load keeps it, and each such key appended to this list; the caller must say so (a warning).
    """
    try:
        doc = json.loads(text, object_pairs_hook=_pairs if duplicates is None else _pairs_keeping_last(duplicates),
                         parse_int=_int, parse_float=_float, parse_constant=_constant)
    except _DuplicateKey as dup:
        pos = _locate(text, duplicate=dup.key)
        raise json.JSONDecodeError(f"key {dup.key!r} appears twice in one object", text, pos) from None
    except RecursionError:
        pos = _locate(text)
        raise json.JSONDecodeError(f"nested deeper than {MAX_DEPTH} levels (depth limit)", text, pos) from None
    except _NotANumber as nan:
        raise json.JSONDecodeError(f"{nan.literal} is not a finite number (JSON has no NaN or Infinity)", text,
                                   max(text.find(nan.literal), 0)) from None
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


def _locate(text: str, duplicate: str | None = None, every_duplicate: bool = False):
    """Offset of the second `duplicate` key in one object, else of the first bracket beyond MAX_DEPTH; with
    every_duplicate, the list of (key, offset) of every repeated key instead.

    Only runs on the error (or warning) path; a plain scan that skips string contents.
    """
    stack: list = []  # per open bracket: the keys seen (object) or None (array)
    found: list = []  # every_duplicate: (key, offset) of each repeated key
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
                if every_duplicate and key in stack[-1]:
                    found.append((key, i))
                elif duplicate is not None and key == duplicate and key in stack[-1]:
                    return i
                stack[-1].add(key)
                expect_key = False
            i = j + 1
            continue
        if c in "{[":
            stack.append(set() if c == "{" else None)
            if duplicate is None and not every_duplicate and len(stack) > MAX_DEPTH:
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
    return found if every_duplicate else 0


# What a JSON value is called in an error message, by Python type.
_JSON_NAMES = {dict: "an object", list: "a list", str: "a string", int: "a whole number", float: "a number",
               bool: "true or false", type(None): "null"}


def json_kind(value) -> str:
    """The JSON kind of a decoded value, in words ("a list")."""
    return _JSON_NAMES.get(type(value), type(value).__name__)


def check_fields(doc, fields: dict, where: str, *, required=()) -> dict:
    """`doc` if it is a JSON object whose listed fields have the listed types; SkError naming
    `where`.field, the value and the type wanted otherwise.

    fields: key -> a type or a tuple of types (int excludes true/false, float takes whole numbers;
    None in a tuple allows null). required: the keys that must be there; the others may be absent.
    """
    from sk.base.errors import SkError

    if not isinstance(doc, dict):
        raise SkError(f"must be a JSON object, not {json_kind(doc)}", where=where, value=doc)
    def at(key):  # "plan.json: kernel_name", "plan.json: ops[0].block_dim"
        return f"{where}.{key}" if ": " in where else f"{where}: {key}"

    for key in required:
        if key not in doc:
            raise SkError("a required field is missing", where=at(key),
                          allowed=f"{_wanted(fields.get(key, object))}")
    for key, types in fields.items():
        if key not in doc:
            continue
        value = doc[key]
        if not _is(value, types if isinstance(types, tuple) else (types,)):
            raise SkError(f"field is {json_kind(value)}", where=at(key), value=value,
                          allowed=f"{_wanted(types)}")
    return doc


def _is(value, types: tuple) -> bool:
    for t in types:
        if t is None and value is None:
            return True
        if t is int and isinstance(value, int) and not isinstance(value, bool):
            return True
        if t is float and isinstance(value, (int, float)) and not isinstance(value, bool):
            return True
        if t not in (int, float, None) and isinstance(value, t):
            return True
    return False


def _wanted(types) -> str:
    types = types if isinstance(types, tuple) else (types,)
    return " or ".join(_JSON_NAMES.get(type(None) if t is None else t, getattr(t, "__name__", str(t)))
                       for t in types)
