"""handoff: continue the work in a fresh session that starts with exactly the context it needs.

``/handoff <goal>`` (for example ``/handoff now do the same for the teams API``) asks the current
model to read the conversation of the active branch (after a compaction: its summary and what
followed) and to write a self-contained opening prompt for a new session: the relevant decisions
and findings, the files involved, and the next task as given by your goal. You get the draft in
the editor to change or cancel; once you accept it a new session starts (linked to this one as
its parent) with the prompt waiting in its input editor, ready to send.

Unlike a compaction, nothing is summarised away blindly: the summary is written for one purpose,
the goal you named. It needs a model and a UI; ``Cancelled`` means nothing changed.

What it shows: ``pi_harness.ai.complete_simple`` for a one-off request with the session's model,
``build_session_context`` and ``serialize_conversation`` to turn the branch into text,
``ctx.ui.editor``, and ``ctx.new_session(parent_session=..., setup=...)``: ``setup`` writes a
``handoff-draft`` entry into the new session, which the extension (loaded afresh there) reads in
``session_start`` to fill the editor.

Load it with ``pi -e examples/extensions/handoff.py``.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping
from typing import Any

from pi_harness.ai import complete_simple
from pi_harness.ai.options import SimpleStreamOptions
from pi_harness.ai.types import Context
from pi_harness.coding.compaction import serialize_conversation
from pi_harness.coding.extensions import ExtensionAPI, ExtensionCommandContext, ExtensionContext, ExtensionEvent
from pi_harness.coding.session_store import build_session_context

DRAFT_TYPE = "handoff-draft"
SYSTEM_PROMPT = """You prepare the opening prompt of a new coding session that continues earlier work.
You receive the earlier conversation and the goal of the new session. Write a prompt that works
without the earlier conversation:

## Context
What was done and decided, what was found out, approaches that failed (brief bullet points).

Files:
- every file that matters for the goal, with its path

## Task
The next task, following the goal, concrete enough to start on at once.

Write only the prompt itself: no introduction, no closing remarks."""


def response_text(message: Mapping[str, Any]) -> str:
    return "\n".join(b.get("text", "") for b in message.get("content") or [] if b.get("type") == "text").strip()


async def write_prompt(ctx: ExtensionCommandContext, conversation: str, goal: str) -> str | None:
    """The drafted prompt, or ``None`` when the request failed (reported) or was aborted."""
    model = ctx.model
    assert model is not None
    request = f"## Earlier conversation\n\n{conversation}\n\n## Goal of the new session\n\n{goal}"
    context: Context = {
        "systemPrompt": SYSTEM_PROMPT,
        "messages": [{"role": "user", "content": [{"type": "text", "text": request}], "timestamp": _now()}],
    }
    options = SimpleStreamOptions(
        api_key=ctx.model_registry.get_api_key(str(model["provider"])),
        # A one-off request: no prompt cache worth keeping, and apart from the session's own.
        cache_retention="none",
        session_id=str(uuid.uuid4()),
    )
    try:
        response: Mapping[str, Any] = await complete_simple(model, context, options)
    except Exception as error:  # a provider error must end the command with a message, not a trace
        ctx.ui.notify(f"Could not write the handoff prompt: {error}", "error")
        return None
    if response.get("stopReason") == "aborted":
        return None
    if response.get("stopReason") == "error":
        ctx.ui.notify(f"Could not write the handoff prompt: {response.get('errorMessage')}", "error")
        return None
    return response_text(response)


def extension(pi: ExtensionAPI) -> None:
    @pi.command("handoff", description="Start a new session focused on a goal (/handoff <goal>)")
    async def handoff(args: str, ctx: ExtensionCommandContext) -> None:
        if not ctx.has_ui:
            ctx.ui.notify("/handoff needs a UI", "error")
            return
        if ctx.model is None:
            ctx.ui.notify("No model selected", "error")
            return
        goal = args.strip()
        if not goal:
            ctx.ui.notify("Usage: /handoff <goal of the new session>", "error")
            return
        messages = build_session_context(ctx.session_manager.get_branch()).messages
        if not messages:
            ctx.ui.notify("Nothing to hand off yet", "error")
            return
        ctx.ui.notify("Writing the handoff prompt...")
        draft = await write_prompt(ctx, serialize_conversation(messages), goal)
        if draft is None:
            ctx.ui.notify("Cancelled")
            return
        edited = await ctx.ui.editor("Edit the handoff prompt", draft)
        if edited is None:
            ctx.ui.notify("Cancelled")
            return
        parent = ctx.session_manager.get_session_file()

        def setup(manager: Any) -> None:
            manager.append_custom(DRAFT_TYPE, {"prompt": edited})

        outcome = await ctx.new_session(parent_session=str(parent) if parent else None, setup=setup)
        if outcome.get("cancelled"):
            ctx.ui.notify("The new session was cancelled")
        # On success this ctx belongs to the old session and is stale: the new session's
        # session_start below takes over.

    @pi.on("session_start")
    def offer_draft(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        if event.reason != "new":
            return
        drafts = [e for e in ctx.session_manager.get_entries() if e.get("customType") == DRAFT_TYPE]
        data = drafts[-1].get("data") if drafts else None
        if isinstance(data, Mapping) and isinstance(data.get("prompt"), str):
            ctx.ui.set_editor_text(data["prompt"])
            ctx.ui.notify("Handoff prompt ready: edit it or send it")


def _now() -> int:
    return int(time.time() * 1000)
