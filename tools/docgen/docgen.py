"""Renders docs/api.md from what Bazel extracts from the public .bzl files.

Bazel's own `starlark_doc_extract` (//docs: one target per public file) reads
the files as Bazel loads them and writes a `ModuleInfo` (stardoc's
stardoc_output.proto) as text proto: every exported rule with its attributes,
macro, provider with its fields, module extension with its tag classes, and
repository rule, with the docstrings Bazel shows. This script only turns that
into Markdown. `--check API_MD TEXTPROTO...` fails when API_MD differs from the
rendering (//docs:api_doc_test); `--write API_MD TEXTPROTO...` rewrites it
(`tools/bazel run //docs:update_api`).
"""

from __future__ import annotations

import argparse
import re
import sys

from pagefile import check_or_write

_TOKEN = re.compile(r'\s*(?:(#[^\n]*)|("(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\')|([{}:<>\[\],;])|([^\s{}:<>\[\],;"\']+))')
_ESCAPES = {"n": b"\n", "t": b"\t", "r": b"\r", '"': b'"', "'": b"'", "\\": b"\\", "a": b"\a", "b": b"\b",
            "f": b"\f", "v": b"\v", "?": b"?"}


def _unquote(token: str) -> str:
    """A text-proto string literal: C escapes, octal/hex bytes; the bytes are UTF-8."""
    body, out, i = token[1:-1], bytearray(), 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            out += c.encode("utf-8")
            i += 1
            continue
        n = body[i + 1]
        if n in "01234567":
            j = i + 1
            while j < len(body) and j < i + 4 and body[j] in "01234567":
                j += 1
            out.append(int(body[i + 1:j], 8))
            i = j
        elif n == "x":
            j = i + 2
            while j < len(body) and j < i + 4 and body[j] in "0123456789abcdefABCDEF":
                j += 1
            out.append(int(body[i + 2:j], 16))
            i = j
        else:
            out += _ESCAPES.get(n, n.encode())
            i += 2
    return out.decode("utf-8")


def _tokens(text: str) -> list[tuple[str, str]]:
    pos, out = 0, []
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            if text[pos:].strip():
                raise ValueError("text proto: cannot read %r" % text[pos:pos + 40])
            break
        pos = m.end()
        if m.group(2):
            out.append(("str", _unquote(m.group(2))))
        elif m.group(3):
            out.append(("sym", m.group(3)))
        elif m.group(4):
            out.append(("word", m.group(4)))
    return out


def parse_textproto(text: str) -> dict:
    """A text proto as {field: [values]}; a message value is such a dict, adjacent strings are joined."""
    tokens = _tokens(text)
    pos = 0

    def message(end: str | None) -> dict:
        nonlocal pos
        fields: dict = {}
        while pos < len(tokens):
            kind, value = tokens[pos]
            if kind == "sym" and value == end:
                pos += 1
                return fields
            if kind == "sym" and value in ",;":
                pos += 1
                continue
            name = value
            pos += 1
            if tokens[pos] == ("sym", ":"):
                pos += 1
            kind, value = tokens[pos]
            if kind == "sym" and value in "{<":
                pos += 1
                fields.setdefault(name, []).append(message("}" if value == "{" else ">"))
            elif kind == "str":
                parts = []
                while pos < len(tokens) and tokens[pos][0] == "str":
                    parts.append(tokens[pos][1])
                    pos += 1
                fields.setdefault(name, []).append("".join(parts))
            else:
                pos += 1
                fields.setdefault(name, []).append(value)
        if end is not None:
            raise ValueError("text proto: missing %r" % end)
        return fields

    return message(None)


def _one(msg: dict, name: str, default=""):
    values = msg.get(name)
    return values[0] if values else default


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


_TYPES = {
    "NAME": "name", "INT": "int", "LABEL": "label", "STRING": "string", "STRING_LIST": "string_list",
    "INT_LIST": "int_list", "LABEL_LIST": "label_list", "BOOLEAN": "bool", "LABEL_STRING_DICT": "label_keyed_string_dict",
    "STRING_DICT": "string_dict", "STRING_LIST_DICT": "string_list_dict", "OUTPUT": "output", "OUTPUT_LIST": "output_list",
    "LABEL_DICT_UNARY": "label_dict", "LABEL_LIST_DICT": "label_list_dict",
}


def _attr_table(attrs: list[dict]) -> list[str]:
    rows = [a for a in attrs if _one(a, "natively_defined") != "true" and not _one(a, "name").startswith("_")]
    if not rows:
        return []
    out = ["| attribute | type | mandatory | default | description |", "|---|---|---|---|---|"]
    for a in rows:
        default = _one(a, "default_value")
        out.append("| `%s` | %s | %s | %s | %s |" % (
            _one(a, "name"), _TYPES.get(_one(a, "type"), _one(a, "type").lower()),
            "yes" if _one(a, "mandatory") == "true" else "", "`%s`" % _cell(default) if default else "",
            _cell(_one(a, "doc_string"))))
    return out + [""]


def _doc(text: str) -> list[str]:
    return [text.strip(), ""] if text.strip() else []


def _function(f: dict) -> list[str]:
    params = [p for p in f.get("parameter", [])]
    out = ["### `%s(%s)`" % (_one(f, "function_name"), ", ".join(_one(p, "name") for p in params)), "",
           "*function*", ""] + _doc(_one(f, "doc_string"))
    documented = [p for p in params if _one(p, "doc_string") or _one(p, "default_value")]
    if documented:
        out += ["| parameter | default | description |", "|---|---|---|"]
        for p in documented:
            default = _one(p, "default_value")
            out.append("| `%s` | %s | %s |" % (_one(p, "name"), "`%s`" % _cell(default) if default else "",
                                               _cell(_one(p, "doc_string"))))
        out.append("")
    returns = _one(f, "return")
    if returns and _one(returns, "doc_string"):
        out += ["Returns: " + _one(returns, "doc_string").strip(), ""]
    return out


def _rule(r: dict, kind: str) -> list[str]:
    if _one(r, "test") == "true":
        kind = "test rule"
    elif _one(r, "executable") == "true":
        kind = "executable rule"
    return ["### `%s`" % _one(r, "rule_name"), "", "*%s*" % kind, ""] + _doc(_one(r, "doc_string")) + \
        _attr_table(r.get("attribute", []))


def _provider(p: dict) -> list[str]:
    out = ["### `%s`" % _one(p, "provider_name"), "", "*provider*", ""] + _doc(_one(p, "doc_string"))
    fields = p.get("field_info", [])
    if fields:
        out += ["| field | description |", "|---|---|"]
        out += ["| `%s` | %s |" % (_one(f, "name"), _cell(_one(f, "doc_string"))) for f in fields]
        out.append("")
    return out


def _extension(e: dict) -> list[str]:
    out = ["### `%s`" % _one(e, "extension_name"), "", "*module extension*", ""] + _doc(_one(e, "doc_string"))
    for tag in e.get("tag_class", []):
        out += ["#### tag `%s.%s`" % (_one(e, "extension_name"), _one(tag, "tag_name")), ""] + \
            _doc(_one(tag, "doc_string")) + _attr_table(tag.get("attribute", []))
    return out


def _macro(m: dict) -> list[str]:
    return ["### `%s`" % _one(m, "macro_name"), "", "*macro*", ""] + _doc(_one(m, "doc_string")) + \
        _attr_table(m.get("attribute", []))


def _load_line(label: str, names: list[str]) -> list[str]:
    """The `load(...)` statement that imports every name the file exports, wrapped as Buildifier would.

    Rendered from the extracted entries rather than written in a docstring, so a new public name
    (sk_model_test was once missing) appears in it without anyone remembering to add it."""
    parts = ['"@rules_superkernel%s"' % label] + ['"%s"' % n for n in names]
    lines, line = [], "    load("
    for i, part in enumerate(parts):
        piece = part + (", " if i + 1 < len(parts) else ")")
        if len(line) + len(piece.rstrip()) > 110 and line.strip() != "load(":
            lines.append(line.rstrip())
            line = "         "
        line += piece
    return lines + [line, ""]


def render(modules: list[dict]) -> str:
    out = ["# rules_superkernel API", "",
           "Generated by `tools/bazel run //docs:update_api` (Bazel's `starlark_doc_extract` of each public file,",
           "rendered by tools/docgen/docgen.py); `bazel test //docs:api_doc_test` fails when this file is stale.", ""]
    for mod in modules:
        label = _one(mod, "file")
        path = label.split("//", 1)[-1].replace(":", "/")
        docstring = _one(mod, "module_docstring")
        if 'load("@rules_superkernel%s"' % label in docstring:
            raise SystemExit("docgen: the module docstring of %s spells out its own load(...) line; docgen renders "
                             "it from the exported names, delete it from the docstring" % label)
        out += ["## `%s`" % path, ""]
        entries = []
        for r in mod.get("rule_info", []):
            entries.append((_one(r, "rule_name"), _rule(r, "rule")))
        for m in mod.get("macro_info", []):
            entries.append((_one(m, "macro_name"), _macro(m)))
        for f in mod.get("func_info", []):
            entries.append((_one(f, "function_name"), _function(f)))
        for p in mod.get("provider_info", []):
            entries.append((_one(p, "provider_name"), _provider(p)))
        for e in mod.get("module_extension_info", []):
            entries.append((_one(e, "extension_name"), _extension(e)))
        for r in mod.get("repository_rule_info", []):
            entries.append((_one(r, "rule_name"), _rule(r, "repository rule")))
        for a in mod.get("aspect_info", []):
            entries.append((_one(a, "aspect_name"), ["### `%s`" % _one(a, "aspect_name"), "", "*aspect*", ""]
                            + _doc(_one(a, "doc_string")) + _attr_table(a.get("attribute", []))))
        loadable = [name for name, _ in entries if name not in
                    {_one(e, "extension_name") for e in mod.get("module_extension_info", [])}]
        if loadable:
            out += _load_line(label, loadable)
        out += _doc(docstring)
        for _, lines in entries:  # in the order the file exports them (Bazel's order per kind)
            out += lines
    return "\n".join(out).rstrip() + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="fail when API_MD is not the rendering")
    mode.add_argument("--write", action="store_true", help="rewrite API_MD")
    parser.add_argument("api_md")
    parser.add_argument("textprotos", nargs="+", help="starlark_doc_extract outputs (.textproto), in page order")
    args = parser.parse_args(argv)
    modules = []
    for path in args.textprotos:
        with open(path, encoding="utf-8") as f:
            modules.append(parse_textproto(f.read()))
    text = render(modules)
    return check_or_write(text, args.api_md, write=args.write, page="docs/api.md", source="from the .bzl files",
                          update="//docs:update_api")


if __name__ == "__main__":
    sys.exit(main())
