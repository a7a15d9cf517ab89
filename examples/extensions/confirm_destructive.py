"""confirm-destructive: ask before leaving the current session.

What it shows:

* the cancellable session events: ``session_before_switch`` (``/new`` with reason ``new``,
  ``/resume`` with reason ``resume``) and ``session_before_fork`` (``/fork``); returning
  ``{"cancel": True}`` keeps the current session;
* reading the transcript through ``ctx.session_manager`` (only ask when there is something to
  lose);
* ``ctx.ui.confirm`` and ``ctx.ui.select``. Without a UI nothing is asked and the operation goes
  ahead: in print and JSON mode these operations only happen when a program asked for them.

Load it with ``pi -e examples/extensions/confirm_destructive.py`` or copy it into
``~/.pi/agent/extensions/``.
"""

from __future__ import annotations

from typing import Any

from pi_harness.coding.extensions.api import ExtensionAPI
from pi_harness.coding.extensions.context import ExtensionContext
from pi_harness.coding.extensions.events import ExtensionEvent

FORK_YES = "Yes, create fork"
FORK_NO = "No, stay in current session"


def has_user_messages(ctx: ExtensionContext) -> bool:
    for entry in ctx.session_manager.get_entries():
        if entry.get("type") == "message" and entry["message"].get("role") == "user":
            return True
    return False


def extension(pi: ExtensionAPI) -> None:
    async def before_switch(event: ExtensionEvent, ctx: ExtensionContext) -> dict[str, Any] | None:
        if not ctx.has_ui:
            return None
        if event.reason == "new":
            if await ctx.ui.confirm("Clear session?", "This will delete all messages in the current session."):
                return None
            ctx.ui.notify("Clear cancelled", "info")
            return {"cancel": True}
        # "resume", or "import" (which also leaves this session): only ask if there is work here.
        if not has_user_messages(ctx):
            return None
        if await ctx.ui.confirm("Switch session?", "You have messages in the current session. Switch anyway?"):
            return None
        ctx.ui.notify("Switch cancelled", "info")
        return {"cancel": True}

    pi.on("session_before_switch", before_switch)

    async def before_fork(event: ExtensionEvent, ctx: ExtensionContext) -> dict[str, Any] | None:
        if not ctx.has_ui:
            return None
        entry_id = str(event.get("entryId") or "")
        choice = await ctx.ui.select(f"Fork from entry {entry_id[:8]}?", [FORK_YES, FORK_NO])
        if choice == FORK_YES:
            return None
        ctx.ui.notify("Fork cancelled", "info")
        return {"cancel": True}

    pi.on("session_before_fork", before_fork)
