"""system-prompt-header: show how long the system prompt is.

Whenever a run starts, a status line ``system-prompt`` shows the number of characters of the
system prompt that run uses (after every extension has had its say in ``before_agent_start``).
The status is cleared when the session ends.

What it shows: ``ctx.get_system_prompt()`` and ``ctx.ui.set_status`` (``None`` clears).

Load it with ``pi -e examples/extensions/system_prompt_header.py``.
"""

from __future__ import annotations

from pi_harness.coding.extensions import ExtensionAPI, ExtensionContext, ExtensionEvent

STATUS_KEY = "system-prompt"


def extension(pi: ExtensionAPI) -> None:
    @pi.on("agent_start")
    def show_length(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        ctx.ui.set_status(STATUS_KEY, f"System prompt: {len(ctx.get_system_prompt())} chars")

    @pi.on("session_shutdown")
    def clear(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        ctx.ui.set_status(STATUS_KEY, None)
