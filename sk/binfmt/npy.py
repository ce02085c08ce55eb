"""NumPy's `.npy` format (versions 1.0-3.0), read and written without numpy.

A file is the magic `\\x93NUMPY`, a version (major, minor), the header's length (2 bytes little-endian
in 1.0, 4 bytes in 2.0/3.0), the header — a Python dict literal with `descr`, `fortran_order` and
`shape`, space-padded and ending in a newline — and then the elements, C order unless
fortran_order. We read and write the little-endian, C-order arrays of the element types below;
anything else is refused with the reason.
"""

from __future__ import annotations

import ast
import struct

MAGIC = b"\x93NUMPY"
# Our dtype names -> the descr numpy writes for them ('|' where byte order does not apply).
DESCRS = {
    "float32": "<f4", "float16": "<f2", "float64": "<f8", "int8": "|i1", "uint8": "|u1", "int16": "<i2",
    "uint16": "<u2", "int32": "<i4", "uint32": "<u4", "int64": "<i8", "uint64": "<u8", "bool": "|b1",
}
_BY_DESCR = {d: name for name, d in DESCRS.items()}
# numpy accepts '=' (native: little-endian here) and '<' for one-byte types as well.
_BY_DESCR.update({"<i1": "int8", "<u1": "uint8", "<b1": "bool", "|b1": "bool"})


class NpyError(ValueError):
    """Not an .npy file we can read; the message says what is wrong."""


def parse(data: bytes):
    """(dtype name, shape tuple, element bytes) of an .npy file's contents."""
    if not data.startswith(MAGIC) or len(data) < 10:
        raise NpyError("not an .npy file (no \\x93NUMPY magic)")
    major = data[6]
    if major == 1:
        (hlen,), start = struct.unpack_from("<H", data, 8), 10
    elif major in (2, 3):
        if len(data) < 12:
            raise NpyError("truncated .npy header")
        (hlen,), start = struct.unpack_from("<I", data, 8), 12
    else:
        raise NpyError(f".npy version {major}.{data[7]} is unknown (1.0, 2.0 and 3.0 are)")
    if start + hlen > len(data):
        raise NpyError("truncated .npy header")
    try:
        header = ast.literal_eval(data[start:start + hlen].decode("latin-1" if major < 3 else "utf-8").strip())
    except (ValueError, SyntaxError, UnicodeDecodeError):
        raise NpyError("the .npy header is not a dict literal") from None
    if not isinstance(header, dict) or set(header) != {"descr", "fortran_order", "shape"}:
        raise NpyError("the .npy header must have exactly descr, fortran_order and shape")
    descr, fortran, shape = header["descr"], header["fortran_order"], header["shape"]
    if not isinstance(descr, str) or descr.replace("=", "<") not in _BY_DESCR:
        raise NpyError(f"element type {descr!r} is not one sk reads (little-endian: "
                       + ", ".join(sorted(DESCRS.values())) + ")")
    if not isinstance(shape, tuple) or not all(isinstance(d, int) and d >= 0 for d in shape):
        raise NpyError(f"shape {shape!r} is not a tuple of sizes")
    dtype = _BY_DESCR[descr.replace("=", "<")]
    if fortran and sum(1 for d in shape if d > 1) > 1:
        raise NpyError("a Fortran-order array (save it C-ordered: numpy.ascontiguousarray)")
    body = data[start + hlen:]
    count = 1
    for d in shape:
        count *= d
    want = count * int(DESCRS[dtype][2:])
    if len(body) != want:
        raise NpyError(f"holds {len(body)} data bytes, its header ({dtype} {list(shape)}) says {want}")
    return dtype, tuple(shape), body


def dumps(dtype: str, shape, body: bytes) -> bytes:
    """An .npy 1.0 file of C-order little-endian elements (numpy.load reads it back as is)."""
    if dtype not in DESCRS:
        raise ValueError(f"no .npy element type for {dtype}")
    dims = tuple(int(d) for d in shape)
    text = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (
        DESCRS[dtype], "(%d,)" % dims[0] if len(dims) == 1 else "(" + ", ".join(map(str, dims)) + ")")
    # numpy pads the header so the data starts on a 64-byte boundary.
    pad = -(10 + len(text) + 1) % 64
    header = (text + " " * pad + "\n").encode("latin-1")
    return MAGIC + bytes([1, 0]) + struct.pack("<H", len(header)) + header + body
