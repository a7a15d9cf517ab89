"""The ``system`` theme: the terminal's colours asked over a real pseudo-terminal, parsed, and turned
into a theme whose text stands out from the reported background."""

from __future__ import annotations

import os
import pty
import threading
from collections.abc import Iterator

import pytest

from pi_harness.tui import terminal_colors
from pi_harness.tui.colors import hex_to_rgb
from pi_harness.tui.system_theme import build_system_theme, contrast
from pi_harness.tui.terminal_colors import (
    QUERY,
    TerminalColors,
    parse_color_value,
    parse_replies,
    query_terminal_colors,
    set_reported_colors,
)
from pi_harness.tui.theme import SYSTEM_THEME, builtin_theme
from pi_harness.tui.theme_registry import ThemeRegistry, terminal_appearance

XTERM = ((0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205),
         (229, 229, 229), (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255), (255, 0, 255),
         (0, 255, 255), (255, 255, 255))  # fmt: skip


@pytest.fixture(autouse=True)
def no_reported_colors() -> Iterator[None]:
    set_reported_colors(None)
    yield
    set_reported_colors(None)


def test_color_values_in_the_forms_terminals_answer() -> None:
    assert parse_color_value("rgb:1e1e/1e1e/2e2e") == (30, 30, 46)
    assert parse_color_value("rgb:f/8/0") == (255, 136, 0)
    assert parse_color_value("#fdf6e3") == (253, 246, 227)
    assert parse_color_value("#ffff00000000") == (255, 0, 0)
    assert parse_color_value("rgb:zz/00/00") is None and parse_color_value("blue") is None


def test_replies_with_either_terminator_are_collected() -> None:
    palette = "".join(f"\x1b]4;{i};rgb:{r:02x}/{g:02x}/{b:02x}\x07" for i, (r, g, b) in enumerate(XTERM))
    data = "\x1b]11;rgb:1e1e/1e1e/2e2e\x1b\\" + "\x1b]10;rgb:cdcd/d6d6/f4f4\x07" + palette + "\x1b[?62;22c"
    assert parse_replies(data) == TerminalColors((30, 30, 46), (205, 214, 244), XTERM)
    # Fewer than 16 palette entries: no palette (the theme then keeps its own hues).
    assert parse_replies("\x1b]11;rgb:00/00/00\x07\x1b]4;1;rgb:ff/00/00\x07").palette is None


def _answer(master: int, reply: str, seen: list[bytes]) -> None:
    data = b""
    while not data.endswith(b"\x1b[c"):  # the query ends with the DA1 request
        data += os.read(master, 1024)
    seen.append(data)
    os.write(master, reply.encode())


def test_the_query_is_answered_over_a_real_pty() -> None:
    master, slave = pty.openpty()
    seen: list[bytes] = []
    reply = "\x1b]11;rgb:fdfd/f6f6/e3e3\x07\x1b]10;rgb:6565/7b7b/8383\x07\x1b[?1;2c"
    answering = threading.Thread(target=_answer, args=(master, reply, seen))
    answering.start()
    try:
        colors = query_terminal_colors(slave, slave, timeout=30)  # the DA1 reply ends the wait, not the timeout
    finally:
        answering.join()
        os.close(master)
        os.close(slave)
    assert seen == [QUERY.encode()]
    assert QUERY.startswith("\x1b]11;?\x07\x1b]10;?\x07\x1b]4;0;?\x07") and "\x1b]4;15;?\x07" in QUERY
    assert colors == TerminalColors((253, 246, 227), (101, 123, 131), None)


def test_a_silent_terminal_gives_nothing_after_the_timeout() -> None:
    master, slave = pty.openpty()
    try:
        assert query_terminal_colors(slave, slave, timeout=0.01) == TerminalColors()
    finally:
        os.close(master)
        os.close(slave)


@pytest.mark.parametrize("background", [(30, 30, 46), (0, 0, 0), (253, 246, 227), (255, 255, 255), (40, 44, 52)])
def test_system_theme_text_reaches_contrast_on_the_background(background: tuple[int, int, int]) -> None:
    spec = build_system_theme(TerminalColors(background, None, XTERM))
    for token in ("toolOutput", "mdCodeBlock"):
        assert contrast(hex_to_rgb(str(spec.colors[token])), background) >= 4.5, token
    for token in ("error", "success", "warning", "accent", "mdLink", "muted", "mdHeading"):
        assert contrast(hex_to_rgb(str(spec.colors[token])), background) >= 3.0, token
    for panel in ("userMessageBg", "toolSuccessBg", "toolErrorBg", "selectedBg"):
        assert 1.0 < contrast(hex_to_rgb(str(spec.colors[panel])), background) < 1.6, panel  # a gentle step
    assert spec.colors["text"] == ""  # body text in the terminal's own foreground
    assert spec.name == SYSTEM_THEME


def test_system_theme_takes_its_hues_from_the_terminal_palette() -> None:
    # A palette whose "red" is magenta-ish: errors follow the terminal, not the built-in red.
    palette = list(XTERM)
    palette[1] = palette[9] = (200, 0, 160)
    spec = build_system_theme(TerminalColors((20, 20, 20), None, tuple(palette)))
    _, green, blue = hex_to_rgb(str(spec.colors["error"]))
    assert blue > green  # pulled toward the reported colour's hue
    assert spec.colors != builtin_theme("dark").colors


def test_registry_builds_system_from_reported_colours_and_appearance_follows_them() -> None:
    registry = ThemeRegistry(env={"COLORFGBG": "0;15"})  # COLORFGBG says light
    assert registry.get(SYSTEM_THEME) == builtin_theme("light")
    set_reported_colors(TerminalColors((10, 10, 10), None, XTERM))  # the terminal says dark
    assert terminal_appearance({"COLORFGBG": "0;15"}) == "dark"
    spec = registry.get(SYSTEM_THEME)
    assert spec is not None and spec.name == SYSTEM_THEME and spec.colors != builtin_theme("dark").colors
    assert registry.get("light/dark") == builtin_theme("dark")
    assert terminal_colors.reported_colors() is not None
