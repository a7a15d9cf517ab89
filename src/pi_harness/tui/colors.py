"""Colour values and SGR sequences: truecolor, the xterm 256-colour palette and the fallback between them."""

from __future__ import annotations

import os
from collections.abc import Mapping
from functools import lru_cache
from typing import Literal, TypeAlias

ColorMode: TypeAlias = Literal["truecolor", "256"]
# A resolved colour: "#rrggbb", an xterm palette index, or "" for the terminal's default.
Color: TypeAlias = str | int

_CUBE_LEVELS = (0, 95, 135, 175, 215, 255)
_SYSTEM_COLORS = (
    (0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205), (229, 229, 229),
    (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255), (255, 0, 255), (0, 255, 255),
    (255, 255, 255),
)  # fmt: skip


def detect_color_mode(env: Mapping[str, str] | None = None) -> ColorMode:
    """Truecolor when the terminal announces it through ``COLORTERM``, else the 256-colour palette."""
    env = os.environ if env is None else env
    return "truecolor" if env.get("COLORTERM", "").lower() in ("truecolor", "24bit") else "256"


def is_hex(value: str) -> bool:
    if len(value) != 7 or value[0] != "#":
        return False
    try:
        int(value[1:], 16)
    except ValueError:
        return False
    return True


def hex_to_rgb(value: str) -> tuple[int, int, int]:
    return int(value[1:3], 16), int(value[3:5], 16), int(value[5:7], 16)


def index_to_rgb(index: int) -> tuple[int, int, int]:
    """The usual xterm rendering of a 256-palette index."""
    if index < 16:
        return _SYSTEM_COLORS[index]
    if index < 232:
        index -= 16
        return _CUBE_LEVELS[index // 36], _CUBE_LEVELS[(index // 6) % 6], _CUBE_LEVELS[index % 6]
    grey = 8 + (index - 232) * 10
    return grey, grey, grey


def to_hex(color: Color) -> str:
    """``#rrggbb`` for a colour ("" stays "")."""
    if isinstance(color, int):
        return "#{:02x}{:02x}{:02x}".format(*index_to_rgb(color))
    return color


def _nearest_level(component: int) -> int:
    return min(range(6), key=lambda i: abs(_CUBE_LEVELS[i] - component))


@lru_cache(maxsize=1024)
def rgb_to_index(red: int, green: int, blue: int) -> int:
    """Nearest colour of the 6×6×6 cube or the grey ramp (the system colours vary by terminal)."""
    r, g, b = _nearest_level(red), _nearest_level(green), _nearest_level(blue)
    cube = (_CUBE_LEVELS[r], _CUBE_LEVELS[g], _CUBE_LEVELS[b])
    cube_index = 16 + 36 * r + 6 * g + b
    average = (red + green + blue) // 3
    grey_step = max(0, min(23, round((average - 8) / 10)))
    grey_value = 8 + grey_step * 10

    def distance(rgb: tuple[int, int, int]) -> int:
        return (rgb[0] - red) ** 2 + (rgb[1] - green) ** 2 + (rgb[2] - blue) ** 2

    if distance((grey_value, grey_value, grey_value)) < distance(cube):
        return 232 + grey_step
    return cube_index


def sgr(color: Color, mode: ColorMode, *, background: bool = False) -> str:
    """The SGR sequence selecting ``color`` as foreground (or background); "" for the default colour."""
    if color == "":
        return ""
    base = 48 if background else 38
    if isinstance(color, int):
        return f"\x1b[{base};5;{color}m"
    red, green, blue = hex_to_rgb(color)
    if mode == "truecolor":
        return f"\x1b[{base};2;{red};{green};{blue}m"
    return f"\x1b[{base};5;{rgb_to_index(red, green, blue)}m"
