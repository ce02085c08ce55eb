"""The one error type for bad user input, and how it is printed.

A user error is something the person running the build can fix (an option
string, a BUILD attribute, a JSON file, an object file). It is printed as one
paragraph and exits with status 2. Anything else that escapes is a bug in sk
and exits with status 1 and a request for a bug report.
"""

from __future__ import annotations

EXIT_USER_ERROR = 2
EXIT_INTERNAL_ERROR = 1
# A bad value longer than this is shown cut short: a pasted megabyte must not
# become a megabyte-long error paragraph.
MAX_VALUE_CHARS = 200


class SkError(Exception):
    """A user error.

    what:    what is wrong, as a sentence fragment ("unknown option").
    where:   the place: a target label, "op 2 (is_inf__kernel0)", an option
             name, a JSON path such as "op_list[2].json_path", "file.o: symbol".
    value:   the bad value as the user wrote it (None when there is none).
    allowed: what is allowed, or how to fix it.
    """

    def __init__(self, what: str, *, where: str = "", value=None, allowed: str = ""):
        self.what = what
        self.where = where
        self.value = value
        self.allowed = allowed
        super().__init__(self.paragraph())

    def __reduce__(self):
        # Pickled as its fields (Exception's default would rebuild it from the paragraph):
        # `sk gen`'s helper process reports errors found in its share of the sub-ops this way.
        return _rebuild, (self.what, self.where, self.value, self.allowed)

    def paragraph(self) -> str:
        where = _clip(self.where, MAX_VALUE_CHARS + 100)
        head = f"{where}: {self.what}" if where else self.what
        if self.value is not None:
            head += f" (got {_shown_value(self.value)})"
        sentences = [_sentence(part) for part in (head, self.allowed) if part]
        return " ".join(" ".join(sentences).split())


def _rebuild(what, where, value, allowed) -> SkError:
    return SkError(what, where=where, value=value, allowed=allowed)


def _shown_value(value) -> str:
    return _clip(repr(value), MAX_VALUE_CHARS)


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text)} characters in all)"


def _sentence(text: str) -> str:
    text = text.strip()
    first = text.split(" ", 1)[0]
    # Capitalise prose, not identifiers or paths such as op_list[2] or x.json.
    if first.isalpha() and first.islower():
        text = text[0].upper() + text[1:]
    return text if text[-1] in ".?!" else text + "."
