"""A tiny PNG line plot, pure Python (zlib + struct): the bench needs no plotting package.

`line_plot(series, ...)` rasterises log-log lines with markers, axes, ticks, a
legend and a title into an RGB canvas and `Canvas.png()` encodes it (8-bit
RGB, one IDAT, filter 0). Text uses the 5x7 upper-case font below; the output
bytes depend only on the inputs.
"""

from __future__ import annotations

import math
import struct
import zlib

# 5x7 glyphs, one string of 7 rows per character, '#' = ink.
_FONT_ROWS = {
    "0": ".###.#...##..###.#.###..##...#.###.", "1": "..#...##....#....#....#....#...###.",
    "2": ".###.#...#....#...#...#...#...#####", "3": "#####...#...#.....#.....##...#.###.",
    "4": "...#...##..#.#.#..#.#####...#....#.", "5": "######....####.....#....##...#.###.",
    "6": "..##..#...#....####.#...##...#.###.", "7": "#####....#...#...#...#....#....#...",
    "8": ".###.#...##...#.###.#...##...#.###.", "9": ".###.#...##...#.####....#...#..##..",
    "A": ".###.#...##...#######...##...##...#", "B": "####.#...##...#####.#...##...#####.",
    "C": ".###.#...##....#....#....#...#.###.", "D": "####.#...##...##...##...##...#####.",
    "E": "######....#....####.#....#....#####", "F": "######....#....####.#....#....#....",
    "G": ".###.#...##....#.####...##...#.####", "H": "#...##...##...#######...##...##...#",
    "I": ".###...#....#....#....#....#...###.", "K": "#...##..#.#.#..##...#.#..#..#.#...#",
    "L": "#....#....#....#....#....#....#####", "M": "#...###.###.#.##.#.##...##...##...#",
    "N": "#...###..##.#.##..###...##...##...#", "O": ".###.#...##...##...##...##...#.###.",
    "P": "####.#...##...#####.#....#....#....", "R": "####.#...##...#####.#.#..#..#.#...#",
    "S": ".#####....#.....###.....#....#####.", "T": "#####..#....#....#....#....#....#..",
    "U": "#...##...##...##...##...##...#.###.", "V": "#...##...##...##...##...#.#.#...#..",
    "W": "#...##...##...##.#.##.#.##.#..#.#..", "X": "#...##...#.#.#...#...#.#.#...##...#",
    "Y": "#...##...#.#.#...#....#....#....#..", "Z": "#####....#...#...#...#...#....#####",
    ".": "..............................##...", "+": ".......#....#..#####..#....#.......",
    "-": "...............#####...............", "/": ".....#...#...#...#...#...#.........",
    "(": "...#...#...#....#....#.....#.....#.", ")": ".#.....#.....#....#....#...#...#...",
    ":": ".......##...##........##...##......", "=": "..........#####.....#####..........",
    " ": "...................................",
}
GLYPH_W, GLYPH_H = 5, 7


class Canvas:
    def __init__(self, width: int, height: int, background=(255, 255, 255)):
        self.w, self.h = width, height
        self.px = bytearray(bytes(background) * (width * height))

    def set(self, x: int, y: int, color) -> None:
        if 0 <= x < self.w and 0 <= y < self.h:
            i = 3 * (y * self.w + x)
            self.px[i:i + 3] = bytes(color)

    def rect(self, x0: int, y0: int, x1: int, y1: int, color) -> None:
        for y in range(max(0, y0), min(self.h, y1 + 1)):
            for x in range(max(0, x0), min(self.w, x1 + 1)):
                self.set(x, y, color)

    def line(self, x0: float, y0: float, x1: float, y1: float, color, width: int = 1, dash: int = 0) -> None:
        steps = int(max(abs(x1 - x0), abs(y1 - y0))) + 1
        r = width // 2
        for k in range(steps + 1):
            if dash and (k // dash) % 2:
                continue
            t = k / steps
            x, y = round(x0 + (x1 - x0) * t), round(y0 + (y1 - y0) * t)
            self.rect(x - r, y - r, x + r, y + r, color)

    def text(self, x: int, y: int, s: str, color, scale: int = 1) -> int:
        """Draws s (upper-cased; unknown characters as blanks); returns the x after it."""
        for ch in s.upper():
            rows = _FONT_ROWS.get(ch, _FONT_ROWS[" "])
            for gy in range(GLYPH_H):
                for gx in range(GLYPH_W):
                    if rows[gy * GLYPH_W + gx] == "#":
                        self.rect(x + gx * scale, y + gy * scale, x + gx * scale + scale - 1,
                                  y + gy * scale + scale - 1, color)
            x += (GLYPH_W + 1) * scale
        return x

    def png(self) -> bytes:
        raw = b"".join(b"\x00" + bytes(self.px[3 * self.w * y:3 * self.w * (y + 1)]) for y in range(self.h))

        def chunk(kind: bytes, data: bytes) -> bytes:
            return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

        header = struct.pack(">IIBBBBB", self.w, self.h, 8, 2, 0, 0, 0)
        return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) + \
            chunk(b"IEND", b"")


def text_width(s: str, scale: int = 1) -> int:
    return len(s) * (GLYPH_W + 1) * scale


def _decades(lo: float, hi: float) -> list[float]:
    return [10.0 ** e for e in range(math.floor(math.log10(lo)), math.ceil(math.log10(hi)) + 1)]


def _label(v: float) -> str:
    return f"{v:g}"


def line_plot(series: list[dict], *, title: str, x_label: str, y_label: str, width: int = 720,
              height: int = 480) -> Canvas:
    """series: [{"label", "color": (r, g, b), "points": [(x, y), ...], "dash": bool}], log-log axes."""
    xs = [x for s in series for x, _ in s["points"]]
    ys = [y for s in series for _, y in s["points"]]
    if not xs or min(xs) <= 0 or min(ys) <= 0:
        raise ValueError("a log-log plot needs positive points")
    x_ticks = sorted(set(xs))
    y_ticks = _decades(min(ys), max(ys))
    x_lo, x_hi = math.log10(min(x_ticks)) - 0.1, math.log10(max(x_ticks)) + 0.1
    y_lo, y_hi = math.log10(y_ticks[0]), math.log10(y_ticks[-1])
    c = Canvas(width, height)
    left, right, top, bottom = 80, width - 20, 50, height - 60
    ink, grid = (30, 30, 30), (225, 225, 225)

    def px(x: float) -> float:
        return left + (math.log10(x) - x_lo) / (x_hi - x_lo) * (right - left)

    def py(y: float) -> float:
        return bottom - (math.log10(y) - y_lo) / ((y_hi - y_lo) or 1.0) * (bottom - top)

    for t in y_ticks:
        c.line(left, py(t), right, py(t), grid)
        lab = _label(t) + " S"
        c.text(left - 8 - text_width(lab), round(py(t)) - 3, lab, ink)
    for t in x_ticks:
        c.line(px(t), top, px(t), bottom, grid)
        lab = _label(t)
        c.text(round(px(t)) - text_width(lab) // 2, bottom + 8, lab, ink)
    c.line(left, top, left, bottom, ink)
    c.line(left, bottom, right, bottom, ink)
    c.text((left + right - text_width(title, 2)) // 2, 14, title, ink, scale=2)
    c.text((left + right - text_width(x_label)) // 2, bottom + 26, x_label, ink)
    c.text(8, top - 18, y_label, ink)
    legend_y = top + 8
    for s in series:
        pts = [(px(x), py(y)) for x, y in s["points"]]
        for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
            c.line(x0, y0, x1, y1, s["color"], width=3, dash=6 if s.get("dash") else 0)
        for x, y in pts:
            c.rect(round(x) - 4, round(y) - 4, round(x) + 4, round(y) + 4, s["color"])
        c.line(left + 14, legend_y + 3, left + 44, legend_y + 3, s["color"], width=3, dash=6 if s.get("dash") else 0)
        c.text(left + 52, legend_y, s["label"], ink)
        legend_y += 14
    return c
