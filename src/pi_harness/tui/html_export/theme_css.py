"""The current theme as CSS custom properties, so the page looks like the terminal did.

Every theme colour becomes ``--<token>``. The page, card and info backgrounds come from the
theme's ``export`` section; without one they are derived from the user-message background
(darker for a dark theme, lighter for a light one). Light or dark follows the page background.
"""

from __future__ import annotations

from pi_harness.tui.colors import hex_to_rgb, is_hex, to_hex
from pi_harness.tui.theme import ThemeSpec

_DARK_DEFAULTS = {"pageBg": "#16171d", "cardBg": "#1f2029", "infoBg": "#2a2b36", "text": "#d9dbe3", "muted": "#8b8fa3"}
_LIGHT_DEFAULTS = {"pageBg": "#f5f6f8", "cardBg": "#ffffff", "infoBg": "#eceef3", "text": "#1f2328", "muted": "#6a7080"}


def _luminance(color: str) -> float:
    red, green, blue = hex_to_rgb(color)
    return (0.2126 * red + 0.7152 * green + 0.0722 * blue) / 255


def _mix(color: str, other: str, weight: float) -> str:
    """``color`` moved ``weight`` of the way towards ``other``."""
    pairs = zip(hex_to_rgb(color), hex_to_rgb(other), strict=True)
    return "#" + "".join(f"{round(a + (b - a) * weight):02x}" for a, b in pairs)


def theme_colors(spec: ThemeSpec) -> tuple[dict[str, str], bool]:
    """The variables (name without ``--``) and whether the page is dark."""
    colors = {name: to_hex(value) for name, value in spec.colors.items()}
    colors = {name: value for name, value in colors.items() if is_hex(value)}
    exported = {name: to_hex(value) for name, value in spec.export.items() if is_hex(to_hex(value))}
    base = colors.get("userMessageBg", "")
    dark = _luminance(exported.get("pageBg") or base or "#000000") < 0.5
    defaults = _DARK_DEFAULTS if dark else _LIGHT_DEFAULTS
    if base:
        derived = (
            {"pageBg": _mix(base, "#000000", 0.35), "cardBg": _mix(base, "#000000", 0.15), "infoBg": base}
            if dark
            else {"pageBg": _mix(base, "#ffffff", 0.5), "cardBg": "#ffffff", "infoBg": base}
        )
    else:
        derived = {key: defaults[key] for key in ("pageBg", "cardBg", "infoBg")}
    for key in ("pageBg", "cardBg", "infoBg"):
        colors[f"export-{key}"] = exported.get(key) or derived[key]
    colors["page-text"] = colors.get("text") or defaults["text"]
    colors["page-muted"] = colors.get("muted") or defaults["muted"]
    return colors, dark


def theme_css(spec: ThemeSpec) -> str:
    """``:root{--token:#rrggbb;...;color-scheme:dark}``."""
    colors, dark = theme_colors(spec)
    variables = "".join(f"--{name}:{value};" for name, value in sorted(colors.items()))
    return f":root{{{variables}color-scheme:{'dark' if dark else 'light'}}}"
