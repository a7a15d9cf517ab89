"""Inline images: the kitty graphics protocol, iTerm2's inline files, or a one-line placeholder.

An image becomes as many lines as the rows it covers. For kitty the escape sits on the first
line and the cursor does not move (``C=1``); for iTerm2 it sits on the last line after moving the
cursor up, because that protocol draws from the cursor and then moves below the picture. The
other lines are empty, so the widths of all lines stay true for wrapping and padding.
Sizes come from the image header (PNG, JPEG, GIF, WebP) and an assumed 9×18 px cell.
"""

from __future__ import annotations

import base64
import binascii
import math
import os
import random
import struct
from dataclasses import dataclass

from pi_harness.tui.capabilities import ImageProtocol
from pi_harness.tui.hyperlinks import file_url, hyperlink

__all__ = [
    "CellSize",
    "ImageSize",
    "cell_size",
    "encode_iterm2",
    "encode_kitty",
    "image_fallback",
    "image_lines",
    "image_size",
]

KITTY_CHUNK = 4096
CELL_WIDTH_PX, CELL_HEIGHT_PX = 9, 18


@dataclass(frozen=True)
class ImageSize:
    width: int
    height: int


@dataclass(frozen=True)
class CellSize:
    columns: int
    rows: int


def _png(raw: bytes) -> ImageSize | None:
    if len(raw) < 24 or raw[:4] != b"\x89PNG":
        return None
    width, height = struct.unpack(">II", raw[16:24])
    return ImageSize(width, height)


def _jpeg(raw: bytes) -> ImageSize | None:
    if len(raw) < 2 or raw[:2] != b"\xff\xd8":
        return None
    offset = 2
    while offset < len(raw) - 9:
        if raw[offset] != 0xFF:
            offset += 1
            continue
        marker = raw[offset + 1]
        if 0xC0 <= marker <= 0xC2:  # start of frame: height then width
            height, width = struct.unpack(">HH", raw[offset + 5 : offset + 9])
            return ImageSize(width, height)
        (length,) = struct.unpack(">H", raw[offset + 2 : offset + 4])
        if length < 2:
            return None
        offset += 2 + length
    return None


def _gif(raw: bytes) -> ImageSize | None:
    if len(raw) < 10 or raw[:6] not in (b"GIF87a", b"GIF89a"):
        return None
    width, height = struct.unpack("<HH", raw[6:10])
    return ImageSize(width, height)


def _webp(raw: bytes) -> ImageSize | None:
    if len(raw) < 30 or raw[:4] != b"RIFF" or raw[8:12] != b"WEBP":
        return None
    chunk = raw[12:16]
    if chunk == b"VP8 ":
        width, height = struct.unpack("<HH", raw[26:30])
        return ImageSize(width & 0x3FFF, height & 0x3FFF)
    if chunk == b"VP8L":
        (bits,) = struct.unpack("<I", raw[21:25])
        return ImageSize((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
    if chunk == b"VP8X":
        return ImageSize(int.from_bytes(raw[24:27], "little") + 1, int.from_bytes(raw[27:30], "little") + 1)
    return None


_READERS = {"image/png": _png, "image/jpeg": _jpeg, "image/gif": _gif, "image/webp": _webp}


def _decode(data: str) -> bytes | None:
    try:
        return base64.b64decode(data, validate=False)
    except (binascii.Error, ValueError):
        return None


def image_size(data: str, mime_type: str) -> ImageSize | None:
    """Pixel size from the header of base64 ``data``, or None when it cannot be read."""
    reader = _READERS.get(mime_type)
    raw = _decode(data[:4096]) if reader is not None else None  # headers sit in the first bytes
    if reader is None or raw is None:
        return None
    try:
        return reader(raw)
    except struct.error:
        return None


def cell_size(size: ImageSize, max_columns: int, max_rows: int | None = None) -> CellSize:
    """Columns and rows the image covers when scaled to fit, keeping its aspect ratio."""
    max_columns = max(1, max_columns)
    width, height = max(1, size.width), max(1, size.height)
    scale = max_columns * CELL_WIDTH_PX / width
    if max_rows is not None:
        scale = min(scale, max(1, max_rows) * CELL_HEIGHT_PX / height)
    columns = max(1, min(max_columns, math.ceil(width * scale / CELL_WIDTH_PX)))
    rows = max(1, math.ceil(height * scale / CELL_HEIGHT_PX))
    if max_rows is not None:
        rows = min(max(1, max_rows), rows)
    return CellSize(columns, rows)


def encode_kitty(data: str, cells: CellSize, image_id: int | None = None) -> str:
    """kitty's transmit-and-display command (PNG), in 4096-byte chunks, cursor left in place."""
    params = ["a=T", "f=100", "q=2", "C=1", f"c={cells.columns}", f"r={cells.rows}"]
    if image_id is not None:
        params.append(f"i={image_id}")
    head = ",".join(params)
    if len(data) <= KITTY_CHUNK:
        return f"\x1b_G{head};{data}\x1b\\"
    chunks = [data[i : i + KITTY_CHUNK] for i in range(0, len(data), KITTY_CHUNK)]
    out = [f"\x1b_G{head},m=1;{chunks[0]}\x1b\\"]
    out.extend(f"\x1b_Gm=1;{chunk}\x1b\\" for chunk in chunks[1:-1])
    out.append(f"\x1b_Gm=0;{chunks[-1]}\x1b\\")
    return "".join(out)


def encode_iterm2(data: str, columns: int) -> str:
    """iTerm2's inline file escape, ``columns`` wide with the height following the aspect ratio."""
    size = len(data) * 3 // 4 - data[-2:].count("=")
    return f"\x1b]1337;File=inline=1;size={size};width={columns};height=auto:{data}\x07"


def _short(path: str, home: str | None) -> str:
    if home and home != "/" and (path == home or path.startswith(home.rstrip("/") + os.sep)):
        return "~" + path[len(home.rstrip("/")) :]
    return path


def image_fallback(
    mime_type: str,
    size: ImageSize | None,
    filename: str | None = None,
    *,
    hyperlinks: bool = False,
    home: str | None = None,
) -> str:
    """What stands for an image the terminal cannot show: ``[Image: [image/png] 800x600]``."""
    parts: list[str] = []
    if filename:
        shown = _short(filename, home if home is not None else os.path.expanduser("~"))
        parts.append(hyperlink(shown, file_url(filename)) if hyperlinks and os.path.isabs(filename) else shown)
    parts.append(f"[{mime_type}]")
    if size is not None:
        parts.append(f"{size.width}x{size.height}")
    return f"[Image: {' '.join(parts)}]"


def image_lines(
    data: str,
    mime_type: str,
    protocol: ImageProtocol | None,
    width: int,
    *,
    max_columns: int = 60,
    image_id: int | None = None,
) -> list[str] | None:
    """The lines drawing the image, or None when it has to be the placeholder.

    kitty only takes PNG here (other types would need converting first), iTerm2 any of them.
    """
    size = image_size(data, mime_type)
    if protocol is None or size is None or (protocol == "kitty" and mime_type != "image/png"):
        return None
    columns = max(1, min(width - 2, max_columns))
    max_rows = max(1, math.ceil(columns * CELL_WIDTH_PX / CELL_HEIGHT_PX))
    cells = cell_size(size, columns, max_rows)
    payload = "".join(data.split())
    if protocol == "kitty":
        if image_id is None:
            image_id = random.randint(1, 0xFFFFFFFE)
        return [encode_kitty(payload, cells, image_id), *([""] * (cells.rows - 1))]
    up = f"\x1b[{cells.rows - 1}A" if cells.rows > 1 else ""
    return [*([""] * (cells.rows - 1)), up + encode_iterm2(payload, cells.columns)]
