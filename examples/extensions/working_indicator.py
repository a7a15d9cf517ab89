"""working-indicator: choose what spins while the agent works.

What it shows: ``ctx.ui.set_working_indicator(frames, interval_ms=...)``. ``/working-indicator``
takes a style:

* ``dot``: one static dot (a single frame does not animate);
* ``pulse``: a custom animation, frames drawn exactly as given (so they carry their own colour);
* ``none``: no spinner at all, only the message (``frames=[]``);
* ``reset``: the built-in spinner again (no arguments).

Without an argument it tells you the current style. The indicator exists only in the
interactive mode; elsewhere the call does nothing.

Load it with ``pi -e examples/extensions/working_indicator.py``.
"""

from __future__ import annotations

from pi_harness.coding.extensions import ExtensionAPI, ExtensionCommandContext

STYLES: dict[str, list[str] | None] = {
    "dot": ["●"],
    "pulse": ["\x1b[36m·\x1b[0m", "\x1b[36m•\x1b[0m", "\x1b[36m●\x1b[0m", "\x1b[36m•\x1b[0m"],
    "none": [],
    "reset": None,
}


def extension(pi: ExtensionAPI) -> None:
    current = "reset"

    @pi.command("working-indicator", description="Working indicator style: dot, pulse, none or reset")
    async def choose(args: str, ctx: ExtensionCommandContext) -> None:
        nonlocal current
        style = args.strip()
        if not style:
            ctx.ui.notify(f"Working indicator: {'default' if current == 'reset' else current}", "info")
            return
        if style not in STYLES:
            ctx.ui.notify(f"Unknown style {style!r}; use one of {', '.join(STYLES)}", "error")
            return
        current = style
        frames = STYLES[style]
        if frames is None:
            ctx.ui.set_working_indicator()
        else:
            ctx.ui.set_working_indicator(frames, interval_ms=150)
        ctx.ui.notify(f"Working indicator set to {style}", "info")
