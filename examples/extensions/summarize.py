"""summarize: a summary of the conversation so far, for you, without touching the session.

``/summarize`` sends the user and assistant messages of the active branch (text, plus one line per
tool call with its arguments) to a summarising model and shows the answer: goals, decisions,
progress, open questions and next steps, under headings. The summary is shown to you and not
added to the session, so the model never sees it and the context does not grow.

The model is ``openai/gpt-5.2`` (asked for high reasoning effort), or another one named in
``PI_SUMMARY_MODEL`` (``provider/model-id``); without credentials for it you are told so.
``create_extension("provider/id")`` builds the extension for another model from code.

What it shows: reading the branch with ``ctx.session_manager.get_branch()``, a one-off request
with ``pi_harness.ai.complete_simple`` and ``ctx.model_registry`` (``find``,
``has_credentials``, ``get_api_key``), and a transient display (a notification) instead of a
session entry.

Load it with ``pi -e examples/extensions/summarize.py``.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pi_harness.ai import complete_simple
from pi_harness.ai.options import SimpleStreamOptions
from pi_harness.ai.types import Context
from pi_harness.coding.extensions import ExtensionAPI, ExtensionCommandContext

MODEL_ENV = "PI_SUMMARY_MODEL"
DEFAULT_MODEL = "openai/gpt-5.2"
INSTRUCTIONS = (
    "Summarise the conversation below so that I can pick it up again later. Cover the goals, the "
    "decisions taken, what is done, what is still open and the next steps. Be brief and use headings."
)


def text_parts(content: object) -> list[str]:
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [
        b["text"] for b in content if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
    ]


def tool_call_lines(content: object) -> list[str]:
    if not isinstance(content, list):
        return []
    return [
        f"Tool {block['name']} called with {json.dumps(block.get('arguments') or {})}"
        for block in content
        if isinstance(block, dict) and block.get("type") == "toolCall" and isinstance(block.get("name"), str)
    ]


def conversation_text(branch: Sequence[Mapping[str, Any]]) -> str:
    sections: list[str] = []
    for entry in branch:
        message = entry.get("message") if entry.get("type") == "message" else None
        role = message.get("role") if isinstance(message, Mapping) else None
        if role not in ("user", "assistant"):
            continue
        assert isinstance(message, Mapping)
        lines: list[str] = []
        text = "\n".join(text_parts(message.get("content"))).strip()
        if text:
            lines.append(f"{'User' if role == 'user' else 'Assistant'}: {text}")
        if role == "assistant":
            lines += tool_call_lines(message.get("content"))
        if lines:
            sections.append("\n".join(lines))
    return "\n\n".join(sections)


def create_extension(model_spec: str) -> Callable[[ExtensionAPI], None]:
    provider, _, model_id = model_spec.partition("/")

    def extension(pi: ExtensionAPI) -> None:
        @pi.command("summarize", description="Show a summary of this conversation (not added to it)")
        async def summarize(args: str, ctx: ExtensionCommandContext) -> None:
            conversation = conversation_text(list(ctx.session_manager.get_branch()))
            if not conversation.strip():
                ctx.ui.notify("There is no conversation to summarise", "warning")
                return
            model = ctx.model_registry.find(provider, model_id)
            if model is None:
                ctx.ui.notify(f"Model {model_spec} not found", "warning")
                return
            if not ctx.model_registry.has_credentials(provider):
                ctx.ui.notify(f"No credentials for {model_spec}", "warning")
                return
            ctx.ui.notify("Summarising...")
            prompt = f"{INSTRUCTIONS}\n\n<conversation>\n{conversation}\n</conversation>"
            context: Context = {
                "messages": [{"role": "user", "content": [{"type": "text", "text": prompt}], "timestamp": _now()}]
            }
            options = SimpleStreamOptions(
                api_key=ctx.model_registry.get_api_key(provider),
                reasoning="high",
                cache_retention="none",
                session_id=str(uuid.uuid4()),
            )
            try:
                response: Mapping[str, Any] = await complete_simple(model, context, options)
            except Exception as error:  # a provider failure ends the command with a message
                ctx.ui.notify(f"Summary failed: {error}", "error")
                return
            if response.get("stopReason") in ("error", "aborted"):
                ctx.ui.notify(f"Summary failed: {response.get('errorMessage') or 'aborted'}", "error")
                return
            summary = "\n".join(text_parts(response.get("content"))).strip()
            ctx.ui.notify(f"Conversation summary\n\n{summary}")

    return extension


def _now() -> int:
    return int(time.time() * 1000)


extension = create_extension(os.environ.get(MODEL_ENV) or DEFAULT_MODEL)
