"""The ``/thinking`` selector: its rows, hint line, filtering and ``app.thinking.save``."""

from __future__ import annotations

from pi_harness.tui.components.base import RenderContext
from pi_harness.tui.components.thinking_selector import ThinkingChoice, ThinkingSelector

from .conftest import assert_fits, plain

LEVELS = ["off", "minimal", "low", "medium", "high"]


def selector(context: RenderContext, results: list[ThinkingChoice | None]) -> ThinkingSelector:
    return ThinkingSelector(LEVELS, context, current="low", default_level="medium", on_done=results.append)


def test_rows_mark_the_current_and_the_default_level(context: RenderContext) -> None:
    lines = selector(context, []).render(70)
    assert_fits(lines, 70)
    text = plain(lines).split("\n")
    assert text[1:3] == ["Thinking Level", "shift+tab cycles thinking levels in-session"]
    assert "→ ✓ low      Light reasoning (~2k tokens)" in text
    assert "    medium   Moderate reasoning (~8k tokens) · default" in text
    assert text[-2] == "  Enter to select · Ctrl+S to set as default · Escape/Ctrl+C to cancel"
    assert_fits(selector(context, []).render(20), 20)


def test_save_takes_the_highlighted_level_of_the_filtered_list(context: RenderContext) -> None:
    results: list[ThinkingChoice | None] = []
    picker = selector(context, results)
    for ch in "hig":
        picker.handle_text(ch)
    assert picker.handle_action("app.thinking.save")
    assert results == [ThinkingChoice("high", as_default=True)] and picker.done
    assert picker.handle_action("app.thinking.save") and len(results) == 1  # once only


def test_confirm_cancel_and_an_empty_filter(context: RenderContext) -> None:
    results: list[ThinkingChoice | None] = []
    picker = selector(context, results)
    picker.handle_action("tui.select.down")
    picker.handle_action("tui.select.confirm")
    assert results == [ThinkingChoice("medium", as_default=False)]
    empty = selector(context, results)
    for ch in "zzz":
        empty.handle_text(ch)
    assert empty.handle_action("app.thinking.save") and not empty.done
    assert not empty.handle_action("app.model.saveDefault")  # another selector's key: declined
    empty.handle_action("tui.select.cancel")
    assert results[-1] is None
