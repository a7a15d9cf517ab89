"""hidden-thinking-label: your own words for a collapsed thinking block.

What it shows: ``ctx.ui.set_hidden_thinking_label(label)``. When thinking blocks are hidden
(Ctrl+T, or ``hideThinkingBlock`` in settings) each one is drawn as a single line; this
extension makes that line read ``Pondering quietly…``. ``/thinking-label <text>`` picks
another text, ``/thinking-label`` alone restores the built-in one.

Load it with ``pi -e examples/extensions/hidden_thinking_label.py``, hide thinking with Ctrl+T
and ask a reasoning model something.
"""

from __future__ import annotations

from pi_harness.coding.extensions import ExtensionAPI, ExtensionCommandContext, ExtensionContext, ExtensionEvent

LABEL = "Pondering quietly…"


def extension(pi: ExtensionAPI) -> None:
    @pi.on("session_start")
    async def started(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        ctx.ui.set_hidden_thinking_label(LABEL)

    @pi.command("thinking-label", description="Label of hidden thinking blocks (empty: the default)")
    async def label(args: str, ctx: ExtensionCommandContext) -> None:
        text = args.strip()
        ctx.ui.set_hidden_thinking_label(text or None)
        ctx.ui.notify(f"Hidden thinking label: {text}" if text else "Hidden thinking label restored", "info")
