"""titlebar-spinner: the terminal's title spins while the agent works.

What it shows: ``ctx.ui.set_title`` from a background task. On ``agent_start`` a task starts
that writes ``⠋ pi - <folder>``, ``⠙ pi - <folder>`` … into the title every 80 ms; on
``agent_end`` the task stops and the title goes back to ``pi - <folder>``. Useful when the
terminal tab is not in view. Other modes have no title: the calls do nothing there (RPC sends
``setTitle`` requests).

Load it with ``pi -e examples/extensions/titlebar_spinner.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os

from pi_harness.coding.extensions import ExtensionAPI, ExtensionContext, ExtensionEvent

FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
INTERVAL = 0.08


def base_title(cwd: str) -> str:
    return f"pi - {os.path.basename(os.path.normpath(cwd)) or cwd}"


def extension(pi: ExtensionAPI) -> None:
    spinner: asyncio.Task[None] | None = None

    async def spin(ctx: ExtensionContext) -> None:
        title, frame = base_title(ctx.cwd), 0
        while True:
            ctx.ui.set_title(f"{FRAMES[frame]} {title}")
            frame = (frame + 1) % len(FRAMES)
            await asyncio.sleep(INTERVAL)

    async def stop() -> None:
        nonlocal spinner
        if spinner is not None:
            spinner.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await spinner
            spinner = None

    @pi.on("agent_start")
    async def started(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        nonlocal spinner
        await stop()
        if ctx.has_ui:
            ctx.ui.set_title(f"{FRAMES[0]} {base_title(ctx.cwd)}")
            spinner = asyncio.ensure_future(spin(ctx))

    @pi.on("agent_end")
    async def ended(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        await stop()
        ctx.ui.set_title(base_title(ctx.cwd))

    @pi.on("session_shutdown")
    async def shutdown(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        await stop()
