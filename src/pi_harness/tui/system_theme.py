"""The ``system`` theme: the built-in ``dark`` or ``light`` look re-coloured from the terminal's own colours.

Our construction (Pi documents the idea, not a formula we follow): the terminal's background
decides light or dark and the base theme. Every coloured token keeps the base theme's lightness
and takes the hue of the reported ANSI colour nearest to its own (errors the terminal's red,
links its blue …), its chroma never above that ANSI colour's. Then the lightness moves away from
the background until the token reaches a WCAG contrast: 4.5:1 for body text, 3:1 for other
text, less for faint decorations. Panels (message and tool backgrounds, the selection) are the
background moved a small step toward the foreground, tinted with their hue. Text drawn in the
terminal's default colour stays so. With a background but no palette, the base hues are kept.
"""

from __future__ import annotations

import math

from pi_harness.tui.colors import Color, hex_to_rgb, index_to_rgb
from pi_harness.tui.oklab import oklch_to_hex
from pi_harness.tui.terminal_colors import TerminalColors
from pi_harness.tui.theme import SYSTEM_THEME, ThemeSpec, builtin_theme

__all__ = ["build_system_theme", "contrast", "is_dark"]

RGB = tuple[int, int, int]
PANELS = frozenset({"selectedBg", "userMessageBg", "customMessageBg", "toolPendingBg", "toolSuccessBg",
                    "toolErrorBg", "searchMatchBg"})  # fmt: skip
BODY_TEXT = frozenset({"text", "userMessageText", "customMessageText", "toolTitle", "toolOutput", "mdCodeBlock"})
FAINT = frozenset({"dim", "borderMuted", "mdHr", "mdQuoteBorder", "mdCodeBlockBorder", "mdLinkUrl", "thinkingOff",
                   "scrollbarTrack", "syntaxComment"})  # fmt: skip
PANEL_CONTRAST, PANEL_SELECTED_CONTRAST = 1.12, 1.25
GREY_CHROMA = 0.03  # below this a colour counts as grey and keeps no hue of its own


def _linear(channel: int) -> float:
    value = channel / 255
    return value / 12.92 if value <= 0.04045 else ((value + 0.055) / 1.055) ** 2.4


def luminance(rgb: RGB) -> float:
    red, green, blue = (_linear(channel) for channel in rgb)
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def contrast(first: RGB, second: RGB) -> float:
    """WCAG 2 contrast ratio, 1 to 21."""
    high, low = sorted((luminance(first), luminance(second)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def is_dark(background: RGB) -> bool:
    """Whether white text stands out more than black on ``background``."""
    return contrast((255, 255, 255), background) >= contrast((0, 0, 0), background)


def oklch(rgb: RGB) -> tuple[float, float, float]:
    """Lightness, chroma and hue (degrees) of an sRGB colour."""
    red, green, blue = (_linear(channel) for channel in rgb)
    long_ = math.cbrt(0.4122214708 * red + 0.5363325363 * green + 0.0514459929 * blue)
    medium = math.cbrt(0.2119034982 * red + 0.6806995451 * green + 0.1073969566 * blue)
    short = math.cbrt(0.0883024619 * red + 0.2817188376 * green + 0.6299787005 * blue)
    lightness = 0.2104542553 * long_ + 0.7936177850 * medium - 0.0040720468 * short
    a = 1.9779984951 * long_ - 2.4285922050 * medium + 0.4505937099 * short
    b = 0.0259040371 * long_ + 0.7827717662 * medium - 0.8086757660 * short
    return lightness, math.hypot(a, b), math.degrees(math.atan2(b, a)) % 360


def _rgb(value: Color) -> RGB | None:
    if isinstance(value, int):
        return index_to_rgb(value)
    return hex_to_rgb(value) if value.startswith("#") else None


def _hue_distance(first: float, second: float) -> float:
    return abs((first - second + 180) % 360 - 180)


def _nearest_ansi(hue: float, palette: tuple[RGB, ...]) -> tuple[float, float] | None:
    """Chroma and hue of the palette colour (red … cyan, normal or bright) closest in hue."""
    candidates = [oklch(palette[index]) for index in (*range(1, 7), *range(9, 15))]
    coloured = [(chroma, h) for _, chroma, h in candidates if chroma >= GREY_CHROMA]
    if not coloured:
        return None
    return min(coloured, key=lambda entry: _hue_distance(entry[1], hue))


def _reach(
    lightness: float, chroma: float, hue: float, background: RGB, target: float, dark: bool, step: float = 0.01
) -> str:
    """The colour at ``hue``/``chroma`` nearest to ``lightness`` that reaches ``target`` contrast on ``background``."""
    step = step if dark else -step
    current = lightness
    color = oklch_to_hex(current, chroma, hue)
    while contrast(hex_to_rgb(color), background) < target and 0.0 <= current + step <= 1.0:
        current += step
        color = oklch_to_hex(current, chroma, hue)
    return color


def _target(token: str) -> float:
    if token in BODY_TEXT:
        return 4.5
    if token in FAINT:
        return 1.8
    return 3.0


def _panel(token: str, base: RGB, background: RGB, dark: bool, hue_of: tuple[float, float] | None) -> str:
    """A surface one small contrast step from the background (a larger one for the selection)."""
    light, _, _ = oklch(background)
    _, base_chroma, base_hue = oklch(base)
    hue = hue_of[1] if hue_of is not None else base_hue
    target = PANEL_SELECTED_CONTRAST if token in ("selectedBg", "searchMatchBg") else PANEL_CONTRAST
    return _reach(light, min(base_chroma, 0.035), hue, background, target, dark, step=0.005)


def build_system_theme(colors: TerminalColors) -> ThemeSpec:
    """The ``system`` theme for a terminal that reported at least its background."""
    background = colors.background
    if background is None:
        raise ValueError("the system theme needs the terminal's background")
    dark = is_dark(background)
    base = builtin_theme("dark" if dark else "light")
    out: dict[str, Color] = {}
    for token, value in base.colors.items():
        rgb = _rgb(value)
        if rgb is None:  # the terminal's default colour: its own foreground
            out[token] = value
            continue
        lightness, chroma, hue = oklch(rgb)
        nearest = _nearest_ansi(hue, colors.palette) if colors.palette and chroma >= GREY_CHROMA else None
        if token in PANELS:
            out[token] = _panel(token, rgb, background, dark, nearest)
            continue
        if nearest is not None:
            chroma, hue = min(chroma, nearest[0]), nearest[1]
        out[token] = _reach(lightness, chroma, hue, background, _target(token), dark)
    return ThemeSpec(SYSTEM_THEME, out, dict(base.export))
