"""bfloat16, the upper half of an IEEE float32: 1 sign, 8 exponent and 7 fraction bits.

Neither Python's struct nor numpy has the type, so its elements travel as their 16-bit patterns
(uint16) and are widened here: the bits shifted into the upper half of a float32 give the exact
value (every bfloat16 is a float32). Narrowing rounds to nearest, ties to even, as Ascend's Cast
does by default (CAST_RINT); NaN stays a quiet NaN.
"""

from __future__ import annotations

import struct


def to_float(bits: int) -> float:
    """The exact value of a bfloat16 given as its 16-bit pattern."""
    return struct.unpack("<f", struct.pack("<I", (bits & 0xFFFF) << 16))[0]


def from_float(value: float) -> int:
    """The 16-bit pattern of the bfloat16 nearest to value (via float32; ties to even)."""
    u = struct.unpack("<I", struct.pack("<f", value))[0]
    if (u & 0x7F800000) == 0x7F800000 and (u & 0x7FFFFF):
        return ((u >> 16) | 0x40) & 0xFFFF  # NaN: keep it a (quiet) NaN
    u += 0x7FFF + ((u >> 16) & 1)
    return (u >> 16) & 0xFFFF


def unpack(data: bytes) -> list:
    """The values of little-endian bfloat16 elements."""
    return [to_float(b) for b in struct.unpack(f"<{len(data) // 2}H", data)]


def pack(values) -> bytes:
    """Little-endian bfloat16 elements of values (rounded to nearest even)."""
    values = list(values)
    return struct.pack(f"<{len(values)}H", *(from_float(float(v)) for v in values))
