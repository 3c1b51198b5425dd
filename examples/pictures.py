"""Small PNG pictures drawn in pure Python: a bar chart for the chart tool, and the "generated"
image (with its coarser partial images) of the offline demo model. No imaging library: rows of
RGB pixels, deflated and framed as PNG chunks."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence

__all__ = ["bar_chart_png", "sunset_png"]

Pixel = tuple[int, int, int]
_PALETTE: tuple[Pixel, ...] = ((37, 99, 235), (5, 150, 105), (217, 119, 6), (190, 24, 93))


def _chunk(kind: bytes, data: bytes) -> bytes:
    body = kind + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def png(rows: Sequence[Sequence[Pixel]]) -> bytes:
    """A PNG (8-bit RGB) of ``rows`` of pixels, all of the same width."""
    height, width = len(rows), len(rows[0])
    raw = b"".join(b"\x00" + bytes(v for pixel in row for v in pixel) for row in rows)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"".join(
        [
            b"\x89PNG\r\n\x1a\n",
            _chunk(b"IHDR", header),
            _chunk(b"IDAT", zlib.compress(raw, 9)),
            _chunk(b"IEND", b""),
        ]
    )


def bar_chart_png(values: Sequence[float], width: int = 320, height: int = 180) -> bytes:
    """A bar chart of ``values`` (one bar each, scaled to the largest) on a white ground, with
    a baseline and faint grid lines."""
    white, grid, ink = (255, 255, 255), (226, 232, 240), (71, 85, 105)
    rows = [[white] * width for _ in range(height)]
    top, bottom, left = 12, height - 16, 16
    for y in range(top, bottom, max(1, (bottom - top) // 4)):
        rows[y][left:width] = [grid] * (width - left)
    peak = max(values) if values and max(values) > 0 else 1.0
    slot = (width - left - 8) / max(1, len(values))
    for index, value in enumerate(values):
        x0 = left + 4 + int(index * slot + slot * 0.15)
        x1 = left + 4 + int((index + 1) * slot - slot * 0.15)
        y0 = bottom - int((bottom - top) * max(0.0, value) / peak)
        color = _PALETTE[index % len(_PALETTE)]
        for y in range(y0, bottom):
            rows[y][x0:x1] = [color] * (x1 - x0)
    rows[bottom][left:width] = [ink] * (width - left)
    for y in range(top, bottom + 1):
        rows[y][left] = ink
    return png(rows)


def _sunset(x: int, y: int, size: int) -> Pixel:
    sky = y / size
    dx, dy = x - size / 2, y - size * 0.62
    if dx * dx + dy * dy < (size * 0.18) ** 2:
        return (253, 224, 71)  # the sun
    if y > size * 0.7:
        return (30, 41, 59 + int(40 * (y - size * 0.7) / (size * 0.3)))  # the sea
    return (int(124 + 120 * sky), int(58 + 60 * sky), int(237 - 150 * sky))


def sunset_png(size: int = 128, block: int = 1) -> bytes:
    """A sunset over the sea; ``block`` > 1 draws it in coarse squares (a partial image)."""
    rows = [[_sunset(x - x % block, y - y % block, size) for x in range(size)] for y in range(size)]
    return png(rows)
