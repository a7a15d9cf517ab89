"""Fixtures of the TUI tests: a theme in truecolor, a render context, and golden snapshots.

Golden files hold the screens as plain text (ANSI removed, trailing spaces trimmed). Run the
tests with ``TUI_UPDATE_GOLDEN=1`` (``PI_*`` variables are scrubbed) to rewrite them after an intended change of the look.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from pi_harness.tui.ansi import strip_ansi, visible_width
from pi_harness.tui.components.base import RenderContext
from pi_harness.tui.theme import Theme, load_theme

GOLDEN_DIR = Path(__file__).parent / "golden"


@pytest.fixture
def theme() -> Theme:
    return load_theme("dark", "truecolor")


@pytest.fixture
def context(theme: Theme) -> RenderContext:
    return RenderContext(theme, cwd="/work/project", home="/work")


def plain(lines: list[str]) -> str:
    return "\n".join(strip_ansi(line).rstrip() for line in lines)


def assert_fits(lines: list[str], width: int) -> None:
    for line in lines:
        assert visible_width(line) <= width, f"{visible_width(line)} > {width}: {strip_ansi(line)!r}"


@pytest.fixture
def golden() -> Callable[[str, list[str], int], None]:
    def check(name: str, lines: list[str], width: int) -> None:
        assert_fits(lines, width)
        text = plain(lines) + "\n"
        path = GOLDEN_DIR / f"{name}.txt"
        if os.environ.get("TUI_UPDATE_GOLDEN") == "1":
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        if not path.exists():
            pytest.fail(f"missing golden file {path}; run with TUI_UPDATE_GOLDEN=1 to create it")
        assert text == path.read_text(encoding="utf-8"), f"screen differs from {path.name}"

    return check
