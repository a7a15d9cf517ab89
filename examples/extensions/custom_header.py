"""custom-header: a mascot instead of the built-in header.

What it shows: ``ctx.ui.set_header(factory)`` replaces the block drawn above the conversation
(the built-in one lists what was loaded and the main keys) with the extension's component;
``factory(context)`` gets the render context for the theme. The transcript is drawn again, so
the new header sits at the top. ``/builtin-header`` restores the original (``set_header(None)``).

Load it with ``pi -e examples/extensions/custom_header.py``.
"""

from __future__ import annotations

from typing import Any

from pi_harness.coding.extensions import ExtensionAPI, ExtensionCommandContext, ExtensionContext, ExtensionEvent

MASCOT = (
    "   .--.   ",
    "  ( oo )  ",
    " /|-##-|\\ ",
    "  /_/\\_\\  ",
)
TAGLINE = "pi-harness · type a message, / for commands"


class MascotHeader:
    def __init__(self, context: Any) -> None:
        self.theme = context.theme

    def render(self, width: int) -> list[str]:
        art = [self.theme.fg("accent", row) for row in MASCOT]
        return [*art, self.theme.fg("muted", TAGLINE)]


def extension(pi: ExtensionAPI) -> None:
    @pi.on("session_start")
    async def started(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        if ctx.has_ui:
            ctx.ui.set_header(MascotHeader)

    @pi.command("builtin-header", description="Put the built-in header back")
    async def builtin(args: str, ctx: ExtensionCommandContext) -> None:
        ctx.ui.set_header(None)
        ctx.ui.notify("Built-in header restored", "info")
