"""bookmark: label points of the conversation so you find them again in ``/tree``.

* ``/bookmark [label]`` puts a label on the latest assistant message (without a label:
  ``bookmark-<milliseconds since 1970>``); ``/tree`` shows labels next to their entries;
* ``/unbookmark`` removes the most recent label found, walking back from the end of the session.

What it shows: ``pi.set_label(entry_id, label)`` (``None`` removes it), reading entries with
``ctx.session_manager.get_entries()`` and ``get_label(id)``.

Load it with ``pi -e examples/extensions/bookmark.py``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

from pi_harness.coding.extensions import ExtensionAPI, ExtensionCommandContext


def is_assistant_message(entry: Mapping[str, object]) -> bool:
    message = entry.get("message")
    return entry.get("type") == "message" and isinstance(message, Mapping) and message.get("role") == "assistant"


def extension(pi: ExtensionAPI) -> None:
    @pi.command("bookmark", description="Label the latest answer for /tree (/bookmark [label])")
    async def bookmark(args: str, ctx: ExtensionCommandContext) -> None:
        label = args.strip() or f"bookmark-{int(time.time() * 1000)}"
        for entry in reversed(ctx.session_manager.get_entries()):
            if is_assistant_message(entry):
                pi.set_label(str(entry["id"]), label)
                ctx.ui.notify(f"Bookmark set: {label}")
                return
        ctx.ui.notify("There is no answer to bookmark yet", "warning")

    @pi.command("unbookmark", description="Remove the latest bookmark")
    async def unbookmark(args: str, ctx: ExtensionCommandContext) -> None:
        manager = ctx.session_manager
        for entry in reversed(manager.get_entries()):
            label = manager.get_label(str(entry["id"]))
            if label:
                pi.set_label(str(entry["id"]), None)
                ctx.ui.notify(f"Bookmark removed: {label}")
                return
        ctx.ui.notify("No bookmark to remove", "warning")
