"""session-name: give the session a name of your choosing.

``/session-name <name>`` names the current session; the session list (``/resume``) then shows the
name instead of the first message. ``/session-name`` without an argument tells you the current
name, or that there is none.

What it shows: ``pi.set_session_name`` / ``pi.get_session_name`` (stored as a ``session_info``
entry in the session file) and a command with an optional argument.

Load it with ``pi -e examples/extensions/session_name.py``.
"""

from __future__ import annotations

from pi_harness.coding.extensions import ExtensionAPI, ExtensionCommandContext


def extension(pi: ExtensionAPI) -> None:
    @pi.command("session-name", description="Name this session, or show its name (/session-name [name])")
    async def session_name(args: str, ctx: ExtensionCommandContext) -> None:
        name = args.strip()
        if name:
            pi.set_session_name(name)
            ctx.ui.notify(f"This session is now called: {name}")
            return
        current = pi.get_session_name()
        ctx.ui.notify(f"Session name: {current}" if current else "This session has no name yet")
