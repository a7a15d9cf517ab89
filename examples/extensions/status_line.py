"""status-line: a line under the footer that follows the agent's turns.

What it shows: ``ctx.ui.set_status(key, text)`` keeps one entry per key in the status line (an
entry with ``None`` is removed), coloured with ``ctx.ui.theme``. At session start the entry says
the agent is ready; each turn replaces it with ``turn N…`` and, when the turn ends, ``turn N done``.
In RPC mode the entries travel as ``setStatus`` requests; print and JSON mode show nothing.

Load it with ``pi -e examples/extensions/status_line.py``.
"""

from __future__ import annotations

from pi_harness.coding.extensions import ExtensionAPI, ExtensionContext, ExtensionEvent

KEY = "turns"


def _paint(ctx: ExtensionContext, token: str, text: str) -> str:
    theme = ctx.ui.theme
    fg = getattr(theme, "fg", None)
    return str(fg(token, text)) if callable(fg) else text


def extension(pi: ExtensionAPI) -> None:
    turns = 0

    @pi.on("session_start")
    async def ready(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        nonlocal turns
        turns = 0
        ctx.ui.set_status(KEY, _paint(ctx, "muted", "agent ready"))

    @pi.on("turn_start")
    async def started(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        nonlocal turns
        turns += 1
        ctx.ui.set_status(KEY, _paint(ctx, "accent", f"turn {turns}…"))

    @pi.on("turn_end")
    async def ended(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        ctx.ui.set_status(KEY, _paint(ctx, "success", f"✓ turn {turns} done"))
