"""```mermaid blocks drawn as diagrams (markdown.mermaid), as Pi 1.4.0 does: "streaming" draws a
block as soon as its fence closes, "final" once the answer is complete, "off" never; a source
that cannot be drawn, or a drawing wider than the screen, stays the code block."""

from __future__ import annotations

from pi_harness.tui.ansi import strip_ansi
from pi_harness.tui.components.assistant_message import AssistantMessageView
from pi_harness.tui.components.base import RenderContext
from pi_harness.tui.markdown import MarkdownRenderer
from pi_harness.tui.theme import load_theme

THEME = load_theme("dark", "truecolor")
ANSWER = "Here:\n\n```mermaid\ngraph TD; Alpha-->Beta\n```\n\nDone."


def plain(lines: list[str]) -> str:
    return "\n".join(strip_ansi(line) for line in lines)


def is_diagram(text: str) -> bool:
    return "┌" in text and "▼" in text and "```mermaid" not in text and "Alpha" in text and "Beta" in text


def answer(text: str) -> dict[str, object]:
    return {"role": "assistant", "content": [{"type": "text", "text": text}]}


def test_a_flowchart_is_drawn_with_box_characters_and_its_labels() -> None:
    text = plain(MarkdownRenderer(THEME).render(ANSWER, 80, diagrams=True))
    assert is_diagram(text)
    assert text.startswith("Here:") and text.endswith("Done.")


def test_invalid_source_stays_a_code_block() -> None:
    text = plain(MarkdownRenderer(THEME).render("```mermaid\nthis is not (( a diagram\n```", 80, diagrams=True))
    assert text.splitlines() == ["```mermaid", "  this is not (( a diagram", "```"]


def test_a_diagram_wider_than_the_screen_stays_a_code_block() -> None:
    source = "```mermaid\ngraph LR; Alpha-->Beta-->Gamma-->Delta-->Epsilon\n```"
    assert "┌" in plain(MarkdownRenderer(THEME).render(source, 200, diagrams=True))
    narrow = plain(MarkdownRenderer(THEME).render(source, 30, diagrams=True))
    assert narrow.startswith("```mermaid") and "┌" not in narrow


def view(mode: str, text: str) -> tuple[AssistantMessageView, RenderContext]:
    context = RenderContext(THEME, cwd="/p", home="/h", mermaid=mode)
    return AssistantMessageView(answer(text), context, streaming=True), context


def test_streaming_draws_the_diagram_once_the_fence_closes() -> None:
    message, _ = view("streaming", "Here:\n\n```mermaid\ngraph TD; Alpha-->Beta")
    assert "```mermaid" in plain(message.render(80))  # still open: the code so far
    message.update(answer(ANSWER))
    assert is_diagram(plain(message.render(80)))  # closed, while the answer still streams


def test_final_waits_for_the_finished_answer() -> None:
    message, _ = view("final", ANSWER)
    assert "```mermaid" in plain(message.render(80))
    _lines, stable = message.render_stable(80)
    assert stable == 0  # the code will be replaced: none of it may go to the scrollback yet
    message.finish(answer(ANSWER))
    assert is_diagram(plain(message.render(80)))


def test_off_never_draws_and_thinking_is_never_drawn() -> None:
    message, context = view("off", ANSWER)
    message.finish(answer(ANSWER))
    assert "```mermaid" in plain(message.render(80))
    context.mermaid = "streaming"
    context.changed()
    assert is_diagram(plain(message.render(80)))
    thinking = {"role": "assistant", "content": [{"type": "thinking", "thinking": ANSWER}]}
    assert "```mermaid" in plain(AssistantMessageView(thinking, context).render(80))
