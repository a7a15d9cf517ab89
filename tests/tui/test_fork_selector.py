"""/fork's list: every branch's user messages in file order, the newest selected."""

from __future__ import annotations

from pi_harness.tui.components.base import RenderContext
from pi_harness.tui.components.fork_selector import ForkSelector

from .conftest import assert_fits, plain

MESSAGES = [("u1", "first\nquestion"), ("u2", "second question"), ("u3", "third question")]


def test_messages_of_every_branch_with_their_position(context: RenderContext) -> None:
    chosen: list[str] = []
    selector = ForkSelector(MESSAGES, context, active_ids={"u1", "u3"}, on_select=chosen.append)
    text = plain(selector.render(80))
    assert text.index("first question") < text.index("second question") < text.index("third question")
    assert "› third question" in text  # the newest is selected
    assert text.split("\n")[:3] == [
        "",
        " Fork from Message",
        " Select a user message to copy the active path up to that point into a new",
    ]
    assert "  second question\n  Message 2 of 3\n\n" in text  # Pi's rows: text, position, blank
    selector.handle_action("tui.select.up")
    selector.handle_action("tui.select.confirm")
    assert chosen == ["u2"] and selector.done


def test_typing_filters_and_the_list_fits_any_width(context: RenderContext) -> None:
    cancelled: list[bool] = []
    selector = ForkSelector(MESSAGES, context, on_cancel=lambda: cancelled.append(True), max_visible=2)
    for width in (12, 40, 80):
        assert_fits(selector.render(width), width)
    assert "(3/3)" in plain(selector.render(80))  # more messages than rows
    for ch in "second":
        selector.handle_text(ch)
    text = plain(selector.render(80))
    assert "  > second" in text and "› second question" in text and "third question" not in text
    for ch in "zzz":
        selector.handle_text(ch)
    assert "No matching messages" in plain(selector.render(80))
    selector.handle_action("tui.select.confirm")  # nothing to choose
    assert not selector.done
    selector.handle_action("tui.select.cancel")
    assert cancelled == [True]
    assert "  No user messages found" in plain(ForkSelector([], context).render(80))
