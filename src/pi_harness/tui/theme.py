"""Themes (``docs/themes.md``): JSON files of named colour tokens, validated and resolved.

A theme file has a unique ``name``, optional ``vars`` (name → colour), ``colors`` (every required
token) and optional ``export`` colours for the HTML export. A colour is ``"#rrggbb"``, ``"#rgb"``,
``"oklch(L C H)"``, ``"okhsl(H S L)"``, an xterm index ``0``–``255``, the name of a var, or ``""``
for the terminal's default. Output is truecolor when the terminal says so (``COLORTERM``), else
each colour falls back to the nearest of the 256-colour palette.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import orjson
from rich.color import Color as RichColor
from rich.style import Style

from pi_harness.tui.colors import Color, ColorMode, detect_color_mode, sgr
from pi_harness.tui.oklab import parse_color_string

CORE_TOKENS = ("accent", "border", "borderAccent", "borderMuted", "success", "error", "warning", "muted", "dim",
               "text", "thinkingText")  # fmt: skip
CONTENT_TOKENS = ("selectedBg", "userMessageBg", "userMessageText", "customMessageBg", "customMessageText",
                  "customMessageLabel", "toolPendingBg", "toolSuccessBg", "toolErrorBg", "toolTitle",
                  "toolOutput")  # fmt: skip
MARKDOWN_TOKENS = ("mdHeading", "mdLink", "mdLinkUrl", "mdCode", "mdCodeBlock", "mdCodeBlockBorder", "mdQuote",
                   "mdQuoteBorder", "mdHr", "mdListBullet")  # fmt: skip
DIFF_TOKENS = ("toolDiffAdded", "toolDiffRemoved", "toolDiffContext")
SYNTAX_TOKENS = ("syntaxComment", "syntaxKeyword", "syntaxFunction", "syntaxVariable", "syntaxString", "syntaxNumber",
                 "syntaxType", "syntaxOperator", "syntaxPunctuation")  # fmt: skip
THINKING_TOKENS = ("thinkingOff", "thinkingMinimal", "thinkingLow", "thinkingMedium", "thinkingHigh", "thinkingXhigh")
REQUIRED_TOKENS: tuple[str, ...] = (
    *CORE_TOKENS, *CONTENT_TOKENS, *MARKDOWN_TOKENS, *DIFF_TOKENS, *SYNTAX_TOKENS, *THINKING_TOKENS, "bashMode",
)  # fmt: skip
# Optional tokens and the required token each one falls back to.
OPTIONAL_TOKENS: Mapping[str, str] = {
    "thinkingMax": "thinkingXhigh", "scrollbarTrack": "muted", "scrollbarThumb": "text",
    "searchMatchBg": "selectedBg", "searchMatchText": "text",
}  # fmt: skip
EXPORT_KEYS = ("pageBg", "cardBg", "infoBg")
BUILTIN_THEMES = ("dark", "light")
# Pi's default: follows the terminal's light or dark background (see ``theme_registry``).
SYSTEM_THEME = "system"


@dataclass(frozen=True)
class ThemeSpec:
    """A validated theme: every token resolved to a concrete colour."""

    name: str
    colors: Mapping[str, Color]
    export: Mapping[str, Color] = field(default_factory=dict)
    source_path: str | None = None


def _resolve_color(value: Any, variables: Mapping[str, object], where: str, errors: list[str]) -> Color | None:
    seen: set[str] = set()
    while isinstance(value, str) and value and parse_color_string(value) is None:
        if value not in variables and (value.startswith("#") or "(" in value):
            break  # a malformed colour rather than a var name: reported below
        if value in seen or value not in variables:
            errors.append(f"{where}: unknown variable or invalid color {value!r}")
            return None
        seen.add(value)
        value = variables[value]
    if isinstance(value, bool) or not isinstance(value, int | str):
        errors.append(f"{where}: invalid color {value!r}")
        return None
    if isinstance(value, int):
        if 0 <= value <= 255:
            return value
        errors.append(f"{where}: color index {value} is outside 0-255")
        return None
    if value == "":
        return value
    parsed = parse_color_string(value)
    if parsed is not None:
        return parsed
    errors.append(f'{where}: invalid color {value!r} (expected #rrggbb, oklch(), okhsl(), 0-255, a var name or "")')
    return None


def parse_theme(data: Any, source: str | None = None) -> tuple[ThemeSpec | None, list[str]]:
    """Validate a theme document; on failure the spec is None and the errors say why."""
    label = source or "theme"
    if not isinstance(data, dict):
        return None, [f"{label}: a theme must be a JSON object"]
    errors: list[str] = []
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        errors.append(f'{label}: missing or empty "name"')
    variables = data.get("vars", {})
    if not isinstance(variables, dict):
        errors.append(f'{label}: "vars" must be an object')
        variables = {}
    colors = data.get("colors")
    if not isinstance(colors, dict):
        errors.append(f'{label}: missing "colors" object')
        return None, errors
    missing = [token for token in REQUIRED_TOKENS if token not in colors]
    if missing:
        errors.append(f"{label}: missing color tokens: {', '.join(missing)}")
    resolved: dict[str, Color] = {}
    for token in (*REQUIRED_TOKENS, *OPTIONAL_TOKENS):
        if token in colors:
            color = _resolve_color(colors[token], variables, f"{label}: colors.{token}", errors)
            if color is not None:
                resolved[token] = color
    for token, fallback in OPTIONAL_TOKENS.items():
        if token not in resolved and fallback in resolved:
            resolved[token] = resolved[fallback]
    export: dict[str, Color] = {}
    raw_export = data.get("export", {})
    if isinstance(raw_export, dict):
        for key in EXPORT_KEYS:
            if key in raw_export:
                color = _resolve_color(raw_export[key], variables, f"{label}: export.{key}", errors)
                if color is not None:
                    export[key] = color
    else:
        errors.append(f'{label}: "export" must be an object')
    if errors:
        return None, errors
    assert isinstance(name, str)
    return ThemeSpec(name=name, colors=resolved, export=export, source_path=source), []


def load_theme_file(path: str | Path) -> tuple[ThemeSpec | None, list[str]]:
    """A theme JSON file by path; unreadable or invalid files give error messages, never exceptions."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        return None, [f"Failed to read theme {path}: {exc.strerror or exc}"]
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        return None, [f"Failed to parse theme {path}: {exc}"]
    return parse_theme(data, str(path))


def builtin_theme(name: str) -> ThemeSpec:
    if name not in BUILTIN_THEMES:
        raise KeyError(name)
    raw = resources.files("pi_harness.tui").joinpath("themes", f"{name}.json").read_bytes()
    spec, errors = parse_theme(orjson.loads(raw), None)
    if spec is None:  # the package's own files are tested; this would be a packaging bug
        raise ValueError("; ".join(errors))
    return spec


_ATTRIBUTE_CODES = {
    "bold": ("\x1b[1m", "\x1b[22m"),
    "dim": ("\x1b[2m", "\x1b[22m"),
    "italic": ("\x1b[3m", "\x1b[23m"),
    "underline": ("\x1b[4m", "\x1b[24m"),
    "inverse": ("\x1b[7m", "\x1b[27m"),
    "strike": ("\x1b[9m", "\x1b[29m"),
}

_RICH_ATTRIBUTES = {"inverse": "reverse"}


def bold(text: str) -> str:
    return f"\x1b[1m{text}\x1b[22m"


def italic(text: str) -> str:
    return f"\x1b[3m{text}\x1b[23m"


def underline(text: str) -> str:
    return f"\x1b[4m{text}\x1b[24m"


def inverse(text: str) -> str:
    return f"\x1b[7m{text}\x1b[27m"


def strike(text: str) -> str:
    return f"\x1b[9m{text}\x1b[29m"


class Theme:
    """A theme bound to a colour mode; turns tokens into SGR sequences and rich styles.

    Foreground helpers close with "default foreground" (``39``) rather than a full reset, so text
    styled inside a background block keeps the block's background.
    """

    def __init__(self, spec: ThemeSpec, mode: ColorMode | None = None) -> None:
        self.spec = spec
        self.mode: ColorMode = mode or detect_color_mode()
        self._fg: dict[str, str] = {}
        self._bg: dict[str, str] = {}
        self._rich: dict[str, Style] = {}

    @property
    def name(self) -> str:
        return self.spec.name

    def color(self, token: str) -> Color:
        try:
            return self.spec.colors[token]
        except KeyError:
            raise KeyError(f"unknown theme token {token!r}") from None

    def fg_code(self, token: str) -> str:
        code = self._fg.get(token)
        if code is None:
            code = self._fg[token] = sgr(self.color(token), self.mode)
        return code

    def bg_code(self, token: str) -> str:
        code = self._bg.get(token)
        if code is None:
            code = self._bg[token] = sgr(self.color(token), self.mode, background=True)
        return code

    def fg(self, token: str, text: str) -> str:
        code = self.fg_code(token)
        return f"{code}{text}\x1b[39m" if code else text

    def bg(self, token: str, text: str) -> str:
        code = self.bg_code(token)
        return f"{code}{text}\x1b[49m" if code else text

    def style(self, text: str, token: str | None = None, **attributes: bool) -> str:
        """``text`` in ``token``'s colour with attributes (``bold``, ``dim``, ``italic``, ``underline``, …)."""
        opening = self.fg_code(token) if token else ""
        closing = "\x1b[39m" if opening else ""
        for attribute, enabled in attributes.items():
            if enabled:
                on, off = _ATTRIBUTE_CODES[attribute]
                opening += on
                closing = off + closing
        return f"{opening}{text}{closing}" if opening else text

    def rich_color(self, token: str) -> RichColor | None:
        color = self.color(token)
        if color == "":
            return None
        return RichColor.from_ansi(color) if isinstance(color, int) else RichColor.parse(color)

    def rich_style(self, token: str | None = None, **attributes: bool) -> Style:
        key = f"{token}|{sorted(attributes.items())}"
        style = self._rich.get(key)
        if style is None:
            color = self.rich_color(token) if token else None
            style = Style(color=color)
            flags = [_RICH_ATTRIBUTES.get(name, name) for name, enabled in attributes.items() if enabled]
            if flags:
                style += Style.parse(" ".join(flags))
            self._rich[key] = style
        return style

    def thinking_token(self, level: str | None) -> str:
        """The border token of a thinking level (``off`` when the model does not reason)."""
        name = "thinking" + (level or "off").capitalize()
        return name if name in self.spec.colors else "thinkingOff"


def load_theme(name: str, mode: ColorMode | None = None) -> Theme:
    """A built-in theme by name (``dark`` or ``light``)."""
    return Theme(builtin_theme(name), mode)
