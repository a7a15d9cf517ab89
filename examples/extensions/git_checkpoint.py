"""git-checkpoint: snapshot the working tree every turn and offer it back on ``/fork``.

Moving around the session tree (``/fork``, ``/tree``) never undoes what tools did to your files.
This extension closes that gap with git, without touching your branch, index or stash list:

* at every ``turn_start`` it records a snapshot with ``git stash create`` (a commit object holding
  the tracked files as they are; nothing is stashed away) or, on a clean tree, ``HEAD``;
* at ``tool_result`` - the first moment the turn's entries exist in the session - it maps the
  current leaf entry, and the user message that started the run, to that snapshot (the earliest
  snapshot of a run wins, so a user message maps to the files as they were before it);
* on ``session_before_fork`` for an entry with a snapshot it asks ``Restore code state?``. On
  yes, it saves the current state in the stash list first (so nothing is lost), then restores the
  tracked files of the snapshot. Files created since then are left alone.

It never restores without a UI. Snapshots live as long as the session instance (they are
forgotten on ``/reload``, ``/resume`` and after a fork).

What it shows: ``pi.exec`` for programs (no shell), ``ctx.session_manager`` reads
(``get_leaf_id``, ``get_branch``), a ``session_before_fork`` handler doing work before the fork
instead of cancelling it, and ``session_start`` / ``session_shutdown`` for per-session state.

Pi's original applies the snapshot with ``git stash apply``, which refuses to run when the
files changed since the snapshot - the case the extension exists for - so this version restores
with ``git restore --source=<snapshot>`` instead.

Load it with ``pi -e examples/extensions/git_checkpoint.py`` or copy it into
``~/.pi/agent/extensions/``.
"""

from __future__ import annotations

from typing import Any

from pi_harness.coding.extensions.api import ExtensionAPI
from pi_harness.coding.extensions.context import ExtensionContext
from pi_harness.coding.extensions.events import ExtensionEvent

RESTORE_YES = "Yes, restore code to that point"
RESTORE_NO = "No, keep current code"
SAFETY_STASH_MESSAGE = "pi: working tree before restoring a checkpoint"


class Checkpoints:
    """Snapshots of one session: entry id -> commit, plus the one taken for the running turn."""

    def __init__(self) -> None:
        self.by_entry: dict[str, str] = {}
        self.pending: str | None = None
        self.in_repo = False

    def reset(self) -> None:
        self.by_entry.clear()
        self.pending = None

    def remember(self, entry_id: str | None, snapshot: str) -> None:
        if entry_id is not None:
            self.by_entry.setdefault(entry_id, snapshot)


def last_user_entry_id(branch: list[dict[str, Any]]) -> str | None:
    for entry in reversed(branch):
        if entry.get("type") == "message" and entry["message"].get("role") == "user":
            entry_id: str = entry["id"]
            return entry_id
    return None


def extension(pi: ExtensionAPI) -> None:
    checkpoints = Checkpoints()

    async def git(*args: str) -> dict[str, Any]:
        return await pi.exec("git", list(args))

    async def snapshot() -> str | None:
        """A commit with the tracked files as they are now (``None`` outside a repository)."""
        created = await git("stash", "create")
        if created["code"] == 0 and created["stdout"].strip():
            return str(created["stdout"].strip())
        head = await git("rev-parse", "--verify", "-q", "HEAD")  # clean tree: HEAD is the state
        return str(head["stdout"].strip()) if head["code"] == 0 and head["stdout"].strip() else None

    async def start(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        checkpoints.reset()
        inside = await git("rev-parse", "--is-inside-work-tree")
        checkpoints.in_repo = inside["code"] == 0 and inside["stdout"].strip() == "true"

    pi.on("session_start", start)

    async def take_snapshot(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        if checkpoints.in_repo:
            checkpoints.pending = await snapshot()

    pi.on("turn_start", take_snapshot)

    async def tie_snapshot(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        if checkpoints.pending is None:
            return
        manager = ctx.session_manager
        checkpoints.remember(manager.get_leaf_id(), checkpoints.pending)
        checkpoints.remember(last_user_entry_id(manager.get_branch()), checkpoints.pending)

    pi.on("tool_result", tie_snapshot)

    async def end_of_run(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        checkpoints.pending = None  # the next run starts with a fresh snapshot

    pi.on("agent_end", end_of_run)

    async def offer_restore(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        if event.get("position") == "at":  # a clone keeps the current state by definition
            return
        target = checkpoints.by_entry.get(str(event.get("entryId")))
        if target is None or not ctx.has_ui:
            return
        choice = await ctx.ui.select("Restore code state?", [RESTORE_YES, RESTORE_NO])
        if choice != RESTORE_YES:
            return
        current = await git("stash", "create")
        if current["code"] == 0 and current["stdout"].strip():
            await git("stash", "store", "-m", SAFETY_STASH_MESSAGE, current["stdout"].strip())
        restored = await git("restore", f"--source={target}", "--worktree", "--", ":/")
        if restored["code"] == 0:
            ctx.ui.notify("Code restored to checkpoint", "info")
        else:
            ctx.ui.notify(f"Could not restore the checkpoint: {restored['stderr'].strip()}", "error")

    pi.on("session_before_fork", offer_restore)

    async def forget(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        checkpoints.reset()

    pi.on("session_shutdown", forget)
