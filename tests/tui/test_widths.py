"""Every component keeps every line within the width it is given, wide characters included."""

from __future__ import annotations

from typing import Any

import pytest

from pi_harness.tui.components.autocomplete import Autocomplete, CommandInfo
from pi_harness.tui.components.base import Component, RenderContext
from pi_harness.tui.components.dialogs import ConfirmDialog, InputDialog, StatusBar, Toasts
from pi_harness.tui.components.editor import Editor
from pi_harness.tui.components.editor_view import EditorView
from pi_harness.tui.components.footer import Footer, FooterData
from pi_harness.tui.components.header import Diagnostic, Header, HeaderData
from pi_harness.tui.components.notices import Notice, WorkingIndicator
from pi_harness.tui.components.queue import QueueView
from pi_harness.tui.components.session_messages import BashExecutionView, CustomMessageView, SummaryView
from pi_harness.tui.components.tool_call import ToolCallView
from pi_harness.tui.components.trust_prompt import TrustPrompt
from pi_harness.tui.transcript import Transcript

from .conftest import assert_fits
from .scenario import failing_turn, first_turn

WIDE = "日本語のテキスト 🎉 emoji ünïcödé " * 3


def components(context: RenderContext) -> list[Component]:
    editor = Editor()
    editor.insert(WIDE + "\n" + WIDE)
    complete = Autocomplete(context.theme, commands=[CommandInfo("模型", WIDE)])
    complete.update(_slash(Editor()))
    queue = QueueView(context)
    queue.set([WIDE], [WIDE])
    status = StatusBar(context)
    status.set("k", WIDE)
    toasts = Toasts(context)
    toasts.notify(WIDE, "error")
    tool = ToolCallView("c", "bash", {"command": WIDE}, context)
    tool.finish({"content": [{"type": "text", "text": WIDE * 3}]}, False)
    message: dict[str, Any] = {"role": "bashExecution", "command": WIDE, "output": WIDE, "exitCode": 1,
                               "cancelled": False, "truncated": True, "fullOutputPath": WIDE, "timestamp": 0}  # fmt: skip
    return [
        EditorView(editor, context.theme, padding_x=3),
        complete,
        queue,
        status,
        toasts,
        tool,
        BashExecutionView(message, context),
        CustomMessageView({"role": "custom", "customType": WIDE, "content": WIDE, "display": True}, context),
        SummaryView({"role": "branchSummary", "summary": WIDE, "fromId": "x"}, context),
        Notice("error", WIDE, context),
        WorkingIndicator(context, WIDE),
        Footer(
            FooterData(
                cwd="/" + WIDE,
                git_branch=WIDE,
                session_name=WIDE,
                model=WIDE,
                provider=WIDE,
                thinking_level="high",
                context_tokens=5,
                context_window=10,
            ),
            context.theme,
        ),
        Header(HeaderData(version=WIDE, context_files=[WIDE], diagnostics=[Diagnostic("error", WIDE)]), context),
        TrustPrompt(WIDE, [WIDE], context),
        ConfirmDialog(WIDE, WIDE, context, timeout=3),
        InputDialog(WIDE, context, placeholder=WIDE, prefill=WIDE),
    ]


def _slash(editor: Editor) -> Editor:
    editor.insert("/")
    return editor


@pytest.mark.parametrize("width", [5, 13, 41, 80, 137])
def test_components_fit(context: RenderContext, width: int) -> None:
    for component in components(context):
        assert_fits(component.render(width), width)


@pytest.mark.parametrize("width", [9, 40, 120])
def test_transcript_fits(context: RenderContext, width: int) -> None:
    transcript = Transcript(context)
    for event in first_turn() + failing_turn():
        transcript.handle(event)
        assert_fits(transcript.take_finished(width, live_limit=5), width)
        assert_fits(transcript.render_live(width), width)
