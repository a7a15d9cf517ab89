"""auto-commit-on-exit: commit whatever the session changed when it ends.

On ``session_shutdown`` (exit, ``/new``, ``/resume``, ``/fork``, ``/reload``), if
``git status --porcelain`` shows changes, it runs ``git add -A`` and commits with the message
``[pi] <first line of the last assistant answer>`` (cut to 50 characters plus ``...``), or
``[pi] Work in progress`` when the session has no answer yet.

What it shows:

* cleanup work in ``session_shutdown``, which must be idempotent: shutdown can be reached more
  than once (a signal during exit, a reload right after a replacement). A second call finds a
  clean tree and does nothing; a lock keeps two overlapping calls from both committing;
* the last answer read from the active branch (``ctx.session_manager.get_branch()``), not from
  every entry of the file (abandoned branches are alternative history);
* ``pi.exec`` to run git without a shell, and ``ctx.has_ui`` before notifying.

Load it with ``pi -e examples/extensions/auto_commit_on_exit.py`` or copy it into
``~/.pi/agent/extensions/``.
"""

from __future__ import annotations

import asyncio
from typing import Any

from pi_harness.coding.extensions.api import ExtensionAPI
from pi_harness.coding.extensions.context import ExtensionContext
from pi_harness.coding.extensions.events import ExtensionEvent

FALLBACK_SUBJECT = "Work in progress"
SUBJECT_LIMIT = 50


def last_assistant_text(branch: list[dict[str, Any]]) -> str:
    """The text of the last assistant message on the branch that has any text."""
    for entry in reversed(branch):
        if entry.get("type") != "message" or entry["message"].get("role") != "assistant":
            continue
        content = entry["message"].get("content")
        if isinstance(content, str):
            text = content
        else:
            text = "".join(block.get("text", "") for block in content or [] if block.get("type") == "text")
        if text.strip():
            return text
    return ""


def commit_message(answer: str) -> str:
    first_line = answer.strip().split("\n", 1)[0].strip() or FALLBACK_SUBJECT
    if len(first_line) > SUBJECT_LIMIT:
        first_line = first_line[:SUBJECT_LIMIT] + "..."
    return f"[pi] {first_line}"


def extension(pi: ExtensionAPI) -> None:
    lock = asyncio.Lock()

    async def commit_on_exit(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        async with lock:
            status = await pi.exec("git", ["status", "--porcelain"])
            if status["code"] != 0 or not status["stdout"].strip():
                return  # not a repository, or nothing to commit (also: the second shutdown)
            message = commit_message(last_assistant_text(ctx.session_manager.get_branch()))
            added = await pi.exec("git", ["add", "-A"])
            committed = await pi.exec("git", ["commit", "-q", "-m", message]) if added["code"] == 0 else added
            if not ctx.has_ui:
                return
            if committed["code"] == 0:
                ctx.ui.notify(f"Auto-committed: {message}", "info")
            else:
                details = (committed["stderr"] or committed["stdout"]).strip()
                ctx.ui.notify(f"Auto-commit failed: {details}", "error")

    pi.on("session_shutdown", commit_on_exit)
