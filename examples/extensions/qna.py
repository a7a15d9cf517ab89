"""qna: turn the questions in the model's last answer into a form in the editor.

What it shows: the "prompt generator" pattern. ``/qna`` takes the last assistant message of the
current branch, asks the current model (``complete_simple`` from ``pi_harness.ai`` with the key
from ``ctx.model_registry``) to list the questions it contains, and puts the result into the
editor (``ctx.ui.set_editor_text``) as ``Q: …`` / ``A: `` pairs for you to fill in and send.
While the model works, a small component with a spinner stands in for the editor
(``ctx.ui.custom``); Escape there cancels the extraction.

Load it with ``pi -e examples/extensions/qna.py``; after an answer that asks you things, type ``/qna``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from pi_harness.ai import SimpleStreamOptions, complete_simple
from pi_harness.coding.extensions import ExtensionAPI, ExtensionCommandContext

INSTRUCTIONS = (
    "Read the text you are given and find every question in it that the reader is expected to answer. "
    "Reply with nothing but the questions, each on a line starting with 'Q: ' followed by a line 'A: ' "
    "left empty for the answer, and a blank line between pairs. If there is no question, reply 'NONE'."
)
FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


def last_assistant_text(entries: list[Any]) -> str | None:
    for entry in reversed(entries):
        message = entry.get("message") if entry.get("type") == "message" else None
        if isinstance(message, dict) and message.get("role") == "assistant":
            text = "".join(b.get("text", "") for b in message.get("content", []) if b.get("type") == "text")
            if text.strip():
                return text
    return None


class Extracting:
    """Stands in for the editor while the model reads; Escape cancels."""

    def __init__(self, theme: Any, done: Any) -> None:
        self.theme, self.done, self.frame = theme, done, 0

    def tick(self) -> bool:
        self.frame = (self.frame + 1) % len(FRAMES)
        return True

    def handle_input(self, key: str) -> None:
        if key == "escape":
            self.done(None)

    def render(self, width: int) -> list[str]:
        return [self.theme.fg("accent", f" {FRAMES[self.frame]} Extracting questions…  (esc to cancel)")]


async def extract(ctx: ExtensionCommandContext, text: str) -> str:
    model = ctx.model
    assert model is not None
    key = ctx.model_registry.get_api_key(model["provider"])
    context: Any = {
        "systemPrompt": INSTRUCTIONS,
        "messages": [{"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 0}],
    }
    answer = await complete_simple(model, context, SimpleStreamOptions(api_key=key))
    if answer.get("stopReason") == "error":
        raise RuntimeError(str(answer.get("errorMessage", "the model failed")))
    return "".join(b.get("text", "") for b in answer.get("content", []) if b.get("type") == "text").strip()


def extension(pi: ExtensionAPI) -> None:
    @pi.command("qna", description="Put the questions of the last answer into the editor, to answer them")
    async def qna(args: str, ctx: ExtensionCommandContext) -> None:
        if not ctx.has_ui:
            return
        text = last_assistant_text(ctx.session_manager.get_branch())
        if text is None:
            ctx.ui.notify("No assistant message to read questions from", "warning")
            return
        if ctx.model is None:
            ctx.ui.notify("No model selected", "error")
            return
        work = asyncio.ensure_future(extract(ctx, text))

        def build(context: Any, done: Any) -> Extracting:
            work.add_done_callback(lambda _task: done("finished"))
            return Extracting(context.theme, done)

        outcome = await ctx.ui.custom(build)
        if outcome is None:
            work.cancel()
            ctx.ui.notify("Cancelled", "info")
            return
        try:
            questions = work.result()
        except Exception as error:
            ctx.ui.notify(f"Could not extract questions: {error}", "error")
            return
        if not questions or questions == "NONE":
            ctx.ui.notify("No questions found in the last answer", "info")
            return
        ctx.ui.set_editor_text(questions + "\n")
