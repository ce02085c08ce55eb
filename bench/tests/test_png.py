"""The pure-Python PNG writer: a valid PNG that decodes back to the drawn pixels."""

import struct
import zlib

import pytest

from bench import png


def _decode(data: bytes):
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks = 8, []
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        (crc,) = struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])
        assert crc == zlib.crc32(kind + body)
        chunks.append((kind, body))
        pos += 12 + n
    assert [k for k, _ in chunks] == [b"IHDR", b"IDAT", b"IEND"]
    w, h, depth, ctype, *_ = struct.unpack(">IIBBBBB", chunks[0][1])
    raw = zlib.decompress(chunks[1][1])
    rows = [raw[y * (3 * w + 1):(y + 1) * (3 * w + 1)] for y in range(h)]
    assert all(r[0] == 0 for r in rows) and (depth, ctype) == (8, 2)
    return w, h, [r[1:] for r in rows]


def test_pixels_round_trip():
    c = png.Canvas(4, 3)
    c.set(1, 2, (10, 20, 30))
    w, h, rows = _decode(c.png())
    assert (w, h) == (4, 3)
    assert rows[2][3:6] == bytes([10, 20, 30]) and rows[0] == bytes([255] * 12)


def test_every_glyph_is_5x7():
    assert all(len(rows) == png.GLYPH_W * png.GLYPH_H for rows in png._FONT_ROWS.values())


def test_line_plot_is_deterministic_and_draws_series():
    series = [{"label": "A", "color": (200, 0, 0), "points": [(10, 1.0), (1200, 3.0)]},
              {"label": "B", "color": (0, 0, 200), "points": [(10, 0.01), (1200, 0.6)], "dash": True}]
    a = png.line_plot(series, title="T", x_label="X", y_label="Y").png()
    assert a == png.line_plot(series, title="T", x_label="X", y_label="Y").png()
    _, _, rows = _decode(a)
    pixels = b"".join(rows)
    assert bytes([200, 0, 0]) in pixels and bytes([0, 0, 200]) in pixels


def test_log_plot_rejects_non_positive_points():
    with pytest.raises(ValueError):
        png.line_plot([{"label": "A", "color": (0, 0, 0), "points": [(0, 1.0)]}], title="", x_label="", y_label="")
