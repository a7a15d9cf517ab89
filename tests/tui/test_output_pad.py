"""``outputPad``: the blank columns left and right of every transcript block (Pi's setting).

Pi 1.4.0 passes the value as the horizontal padding of its user and assistant messages (text,
thinking, the error line), tool-call boxes, ``!`` command output and the summary and custom
message boxes: 1 keeps one column free on each side, 0 none. The backgrounds still span the
whole width and the ``!`` borders are not indented.

Observed in the real Pi 1.4.0 in tmux (60x40, dark theme, truecolor, fake model): with
``outputPad: 1`` the ``$ ls`` header, its output ``a.txt``, the user message ``hello there``
(on ``userMessageBg``), the answer and the ``read a.txt`` tool title each start in column 1
(one blank, coloured column on the boxes); after ``/settings`` → Output padding → 0 the same
rows start in column 0 at once, while the settings list is still open. The startup warnings
keep their column: they are not transcript blocks.
"""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from pi_harness.tui.ansi import strip_ansi, visible_width
from pi_harness.tui.components.assistant_message import AssistantMessageView
from pi_harness.tui.components.base import RenderContext
from pi_harness.tui.components.session_messages import BashExecutionView, CustomMessageView, SummaryView
from pi_harness.tui.components.tool_call import ToolCallView
from pi_harness.tui.components.user_message import UserMessageView
from pi_harness.tui.transcript import Transcript

from .conftest import assert_fits

WIDTH = 40
LONG = "x" * (3 * WIDTH)  # one word longer than a row: cut exactly at the content width


def text_rows(lines: list[str], marker: str) -> list[str]:
    """The plain rows (trailing blanks kept) that show ``marker``."""
    return [strip_ansi(line) for line in lines if marker in strip_ansi(line)]


def check_padding(lines: list[str], pad: int, marker: str = "x") -> None:
    """Rows showing ``marker`` start after ``pad`` blanks; for the long word (the default marker),
    its full rows hold exactly ``WIDTH - 2*pad`` cells."""
    assert_fits(lines, WIDTH)
    rows = text_rows(lines, marker)
    assert rows, f"no row shows {marker!r}"
    for row in rows:
        assert row[:pad] == " " * pad and row[pad] != " ", repr(row)
    if marker == "x":
        full = [row.strip() for row in rows if set(row.strip()) == {"x"}]
        assert max(len(row) for row in full) == WIDTH - 2 * pad


def user(text: str) -> Mapping[str, object]:
    return {"role": "user", "content": [{"type": "text", "text": text}]}


def answer(*content: Mapping[str, object], **extra: object) -> Mapping[str, object]:
    return {"role": "assistant", "content": list(content), "stopReason": "stop", **extra}


@pytest.mark.parametrize("pad", [1, 0])
def test_user_message(context: RenderContext, pad: int) -> None:
    context.set_output_pad(pad)
    lines = UserMessageView(user(LONG), context).render(WIDTH)
    check_padding(lines, pad)
    bg = context.theme.bg_code("userMessageBg")
    assert all(line.startswith(bg) and visible_width(line) == WIDTH for line in lines)  # the block is full width


@pytest.mark.parametrize("pad", [1, 0])
def test_assistant_text_thinking_and_error(context: RenderContext, pad: int) -> None:
    context.set_output_pad(pad)
    message = answer({"type": "thinking", "thinking": "hmm " + LONG}, {"type": "text", "text": LONG},
                     stopReason="error", errorMessage="boom")  # fmt: skip
    lines = AssistantMessageView(message, context).render(WIDTH)
    check_padding(lines, pad)
    check_padding(lines, pad, "hmm")
    check_padding(lines, pad, "Error: boom")
    context.set_hide_thinking(True)
    check_padding(AssistantMessageView(message, context).render(WIDTH), pad, "Thinking")


@pytest.mark.parametrize("pad", [1, 0])
def test_tool_call(context: RenderContext, pad: int) -> None:
    context.set_output_pad(pad)
    view = ToolCallView("c1", "bash", {"command": "echo " + LONG}, context)
    view.finish({"content": [{"type": "text", "text": LONG}]}, False, 5)
    lines = view.render(WIDTH)
    check_padding(lines, pad)
    check_padding(lines, pad, "$ echo")
    bg = context.theme.bg_code("toolSuccessBg")
    assert all(line.startswith(bg) and visible_width(line) == WIDTH for line in lines)


@pytest.mark.parametrize("pad", [1, 0])
def test_bash_command_output(context: RenderContext, pad: int) -> None:
    context.set_output_pad(pad)
    message = {"role": "bashExecution", "command": "ls", "output": LONG + "\na.txt\n", "exitCode": 2}
    lines = BashExecutionView(message, context).render(WIDTH)
    check_padding(lines, pad)
    for marker in ("$ ls", "a.txt", "(exit 2)"):
        check_padding(lines, pad, marker)
    assert strip_ansi(lines[0]) == strip_ansi(lines[-1]) == "─" * WIDTH  # the borders are never padded


@pytest.mark.parametrize("pad", [1, 0])
@pytest.mark.parametrize("role", ["compactionSummary", "branchSummary"])
def test_summaries(context: RenderContext, pad: int, role: str) -> None:
    context.set_output_pad(pad)
    context.set_expand_tools(True)
    message = {"role": role, "summary": LONG, "tokensBefore": 1200}
    lines = SummaryView(message, context).render(WIDTH)
    check_padding(lines, pad)
    check_padding(lines, pad, "[")
    bg = context.theme.bg_code("customMessageBg")
    assert all(line.startswith(bg) and visible_width(line) == WIDTH for line in lines)


@pytest.mark.parametrize("pad", [1, 0])
def test_custom_message(context: RenderContext, pad: int) -> None:
    context.set_output_pad(pad)
    message = {"role": "custom", "customType": "note", "content": LONG, "display": True}
    lines = CustomMessageView(message, context).render(WIDTH)
    check_padding(lines, pad)
    check_padding(lines, pad, "[note]")


def test_only_zero_turns_the_padding_off(context: RenderContext) -> None:
    # Pi reads anything but 0 as the default 1.
    assert RenderContext(context.theme, output_pad=5).output_pad == 1
    context.set_output_pad(0)
    assert context.output_pad == 0
    context.set_output_pad(3)
    assert context.output_pad == 1


def test_a_change_redraws_the_printed_history(context: RenderContext) -> None:
    transcript = Transcript(context)
    transcript.add_message(user("hello there"))
    transcript.add_message(answer({"type": "text", "text": "The file says hi."}))
    transcript.take_finished(WIDTH)
    before = [strip_ansi(line) for line in transcript.render_history(WIDTH)]
    assert " hello there" in "\n".join(before)
    generation = context.generation
    context.set_output_pad(0)
    assert context.generation != generation  # cached blocks are drawn again
    after = [strip_ansi(line) for line in transcript.render_history(WIDTH)]
    assert any(row.startswith("hello there") for row in after)
    assert any(row.startswith("The file says hi.") for row in after)
