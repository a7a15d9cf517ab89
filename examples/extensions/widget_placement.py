"""widget-placement: one widget above the editor and one below it.

What it shows: ``ctx.ui.set_widget(key, lines, placement=...)`` with both placements,
``"aboveEditor"`` (the default) and ``"belowEditor"`` (between the editor and the footer).
``/widgets off`` removes both (a widget set to ``None`` disappears), ``/widgets`` brings them back.
Over RPC the lines are sent as ``setWidget`` requests with their placement.

Load it with ``pi -e examples/extensions/widget_placement.py``.
"""

from __future__ import annotations

from pi_harness.coding.extensions import ExtensionAPI, ExtensionCommandContext, ExtensionContext, ExtensionEvent

ABOVE = "Widget above the editor"
BELOW = "Widget below the editor"


def show(ctx: ExtensionContext, visible: bool = True) -> None:
    ctx.ui.set_widget("placement-above", [ABOVE] if visible else None)
    ctx.ui.set_widget("placement-below", [BELOW] if visible else None, placement="belowEditor")


def extension(pi: ExtensionAPI) -> None:
    @pi.on("session_start")
    async def started(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        if ctx.has_ui:
            show(ctx)

    @pi.command("widgets", description="Show the two widgets, or hide them with 'off'")
    async def widgets(args: str, ctx: ExtensionCommandContext) -> None:
        show(ctx, args.strip() != "off")
