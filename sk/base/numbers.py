"""The ranges of the numbers sk reads, as upstream's types hold them.

A JSON number has no bounds, and Python's int none either; the generated C++
and the runtime do. A block dim of 2^32 or a tiling key of 2^64 would be
truncated by the compiler into another, valid-looking value (a key of 2^64
matches key 0), so every numeric field is checked against the range of the
type upstream gives it, and refused outside it naming the field.
"""

from __future__ import annotations

from sk.base.errors import SkError

UINT32 = ("uint32_t", 0, 2**32 - 1)
UINT64 = ("uint64_t", 0, 2**64 - 1)
INT32 = ("int32_t", -(2**31), 2**31 - 1)


def whole(value, ctype: tuple, *, where: str, minimum: int | None = None, what: str = "") -> int:
    """`value` if it is an integer (not a bool) in [minimum or the type's low, the type's high]; else SkError.

    ctype: UINT32, UINT64 or INT32. where: the field ("op_list[2] (add) add.json: blockDim").
    """
    name, low, high = ctype
    low = low if minimum is None else max(low, minimum)
    allowed = f"a whole number from {low} to {high} ({name})"
    if isinstance(value, bool) or not isinstance(value, int):
        raise SkError(f"{what or 'field'} must be a whole number", where=where, value=value, allowed=allowed)
    if not low <= value <= high:
        raise SkError(f"{what or 'value'} is out of range", where=where, value=value, allowed=allowed)
    return value
