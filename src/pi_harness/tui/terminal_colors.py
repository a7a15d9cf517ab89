"""The terminal's own colours: its default foreground and background and its 16 ANSI colours.

At startup the interactive mode asks for them with OSC 11 (background), OSC 10 (foreground) and
OSC 4 (palette entries 0-15), followed by a DA1 request that every terminal answers: its reply
ends the wait, so a terminal that ignores colour queries costs one round trip. Without any
reply the wait ends after ``QUERY_TIMEOUT`` (100 ms, as Pi). The ``system`` theme is built from
what came back (``system_theme``); without a reported background it falls back to ``COLORFGBG``.
"""

from __future__ import annotations

import os
import re
import select
import time
from dataclasses import dataclass

__all__ = [
    "QUERY",
    "QUERY_TIMEOUT",
    "TerminalColors",
    "parse_color_value",
    "parse_replies",
    "query_terminal_colors",
    "reported_colors",
    "set_reported_colors",
]

RGB = tuple[int, int, int]
QUERY_TIMEOUT = 0.1
QUERY = "\x1b]11;?\x07\x1b]10;?\x07" + "".join(f"\x1b]4;{index};?\x07" for index in range(16)) + "\x1b[c"
_REPLY_RE = re.compile(r"\x1b\](?:(1[01])|4;(\d{1,3}));([^\x07\x1b]*)(?:\x07|\x1b\\)")
_DA1_RE = re.compile(r"\x1b\[\?[0-9;]*c")


@dataclass(frozen=True)
class TerminalColors:
    background: RGB | None = None
    foreground: RGB | None = None
    palette: tuple[RGB, ...] | None = None  # all 16 ANSI colours, or None


def _channel(text: str) -> int | None:
    if not text or len(text) > 4 or any(ch not in "0123456789abcdefABCDEF" for ch in text):
        return None
    return round(int(text, 16) / ((1 << (4 * len(text))) - 1) * 255)


def parse_color_value(value: str) -> RGB | None:
    """``rgb:RRRR/GGGG/BBBB`` (1-4 hex digits a channel), ``#rrggbb`` or ``#rrrrggggbbbb``."""
    value = value.strip()
    if value.startswith("#"):
        digits = value[1:]
        size = len(digits) // 3
        if len(digits) not in (6, 12):
            return None
        channels = [_channel(digits[i * size : (i + 1) * size]) for i in range(3)]
    else:
        if value.lower().startswith(("rgb:", "rgba:")):
            value = value.split(":", 1)[1]
        parts = value.split("/")
        if len(parts) < 3:
            return None
        channels = [_channel(part) for part in parts[:3]]
    if any(channel is None for channel in channels):
        return None
    red, green, blue = (int(channel or 0) for channel in channels)
    return red, green, blue


def parse_replies(data: str) -> TerminalColors:
    """Every colour reply found in ``data`` (other bytes are ignored)."""
    background = foreground = None
    palette: dict[int, RGB] = {}
    for match in _REPLY_RE.finditer(data):
        rgb = parse_color_value(match.group(3))
        if rgb is None:
            continue
        if match.group(1) == "11":
            background = rgb
        elif match.group(1) == "10":
            foreground = rgb
        elif int(match.group(2)) < 16:
            palette[int(match.group(2))] = rgb
    full = tuple(palette[index] for index in range(16)) if len(palette) == 16 else None
    return TerminalColors(background, foreground, full)


def query_terminal_colors(fd_in: int, fd_out: int, timeout: float = QUERY_TIMEOUT) -> TerminalColors:
    """Ask the terminal on ``fd_out`` and read its replies from ``fd_in`` (a tty in cbreak mode)."""
    import termios
    import tty

    saved = termios.tcgetattr(fd_in)
    data = ""
    try:
        tty.setcbreak(fd_in, termios.TCSANOW)
        os.write(fd_out, QUERY.encode())
        deadline = time.monotonic() + timeout
        while not _DA1_RE.search(data):
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd_in], [], [], left)[0]:
                break
            chunk = os.read(fd_in, 4096)
            if not chunk:
                break
            data += chunk.decode("latin-1")
    finally:
        termios.tcsetattr(fd_in, termios.TCSANOW, saved)
    return parse_replies(data)


_reported: TerminalColors | None = None


def set_reported_colors(colors: TerminalColors | None) -> None:
    """Remember what the terminal reported (once per process: there is one terminal)."""
    global _reported
    _reported = colors


def reported_colors() -> TerminalColors | None:
    return _reported
