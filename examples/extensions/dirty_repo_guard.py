"""dirty-repo-guard: do not leave a session while the git working tree has uncommitted changes.

Before ``/new``, ``/resume`` (or an import) and ``/fork``/``/clone``, the extension runs
``git status --porcelain``. With a clean tree, or outside a git repository, nothing happens. With
changes it asks ``<n> uncommitted file(s). Start a new session anyway?`` (or switch, fork) and
cancels unless you answer that you want to go on, reminding you to commit first. Without a UI
nobody can answer, so the switch is cancelled.

What it shows: the cancellable ``session_before_switch`` / ``session_before_fork`` events
(``{"cancel": True}``), ``pi.exec`` to ask git, and failing closed without a UI.

Load it with ``pi -e examples/extensions/dirty_repo_guard.py``.
"""

from __future__ import annotations

from pi_harness.coding.extensions import ExtensionAPI, ExtensionContext, ExtensionEvent

PROCEED = "Yes, go on anyway"
STAY = "No, I will commit first"
ACTIONS = {"new": "Start a new session", "resume": "Switch sessions", "import": "Switch sessions"}


def extension(pi: ExtensionAPI) -> None:
    async def guard(ctx: ExtensionContext, action: str) -> dict[str, bool] | None:
        status = await pi.exec("git", ["status", "--porcelain"])
        if status["code"] != 0:  # not a repository (or no git): nothing to protect
            return None
        changed = [line for line in status["stdout"].splitlines() if line.strip()]
        if not changed:
            return None
        if not ctx.has_ui:
            return {"cancel": True}
        choice = await ctx.ui.select(f"{len(changed)} uncommitted file(s). {action} anyway?", [PROCEED, STAY])
        if choice != PROCEED:
            ctx.ui.notify("Commit (or stash) your changes first", "warning")
            return {"cancel": True}
        return None

    @pi.on("session_before_switch")
    async def before_switch(event: ExtensionEvent, ctx: ExtensionContext) -> dict[str, bool] | None:
        return await guard(ctx, ACTIONS.get(str(event.get("reason")), "Switch sessions"))

    @pi.on("session_before_fork")
    async def before_fork(event: ExtensionEvent, ctx: ExtensionContext) -> dict[str, bool] | None:
        return await guard(ctx, "Fork")
