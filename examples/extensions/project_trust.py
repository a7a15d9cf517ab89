"""project-trust: decide yourself whether a project's ``.pi/`` resources may load.

What it shows:

* the ``project_trust`` event, which runs before the session exists: only global and ``-e``
  extensions take part, and ``ctx`` is the small trust context (``cwd``, ``mode``,
  ``has_ui`` and the ``select``/``confirm``/``input``/``notify`` dialogs);
* Pi's answer shape ``{"trusted": "yes" | "no" | "undecided", "remember"?}``: the first yes or
  no wins and skips the built-in question; ``undecided`` passes the decision on;
* failing safe: without a UI nothing is decided here.

The menu offers trusting the project (remembered, or for this session), not trusting it, or
leaving the choice to the built-in question.

Install it globally (``cp examples/extensions/project_trust.py ~/.pi/agent/extensions/``) or
pass it with ``-e``, then start ``pi`` in a project with a ``.pi/`` directory or ``AGENTS.md``.
"""

from __future__ import annotations

from typing import Any

from pi_harness.coding.extensions.api import ExtensionAPI
from pi_harness.coding.extensions.context import ExtensionContext
from pi_harness.coding.extensions.events import ExtensionEvent

TRUST_REMEMBER = "Trust, and remember"
TRUST_ONCE = "Trust for this session"
DISTRUST = "Do not trust"
BUILT_IN = "Let the built-in question decide"
CHOICES = [TRUST_REMEMBER, TRUST_ONCE, DISTRUST, BUILT_IN]

ANSWERS: dict[str, dict[str, Any]] = {
    TRUST_REMEMBER: {"trusted": "yes", "remember": True},
    TRUST_ONCE: {"trusted": "yes"},
    DISTRUST: {"trusted": "no"},
}


def extension(pi: ExtensionAPI) -> None:
    @pi.on("project_trust")
    async def decide(event: ExtensionEvent, ctx: Any) -> dict[str, Any]:
        if not ctx.has_ui:
            return {"trusted": "undecided"}
        choice = await ctx.ui.select(f"Load the project resources of\n{event.cwd}?", CHOICES)
        return ANSWERS.get(choice or "", {"trusted": "undecided"})

    @pi.on("session_start")
    def started(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        trust = "trusted" if ctx.is_project_trusted() else "not trusted"
        ctx.ui.notify(f"The project in {ctx.cwd} is {trust}", "info")
