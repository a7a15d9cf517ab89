"""mac-system-theme: pi's theme follows the dark or light appearance of macOS.

What it shows: ``ctx.ui.set_theme(name)`` from a background task. Every two seconds the
extension asks macOS for its appearance (``defaults read -g AppleInterfaceStyle`` prints
``Dark`` in dark mode and fails in light mode) and switches to the built-in ``dark`` or
``light`` theme when it changed. The switch lasts for the run; ``settings.json`` is not
changed. On other systems nothing happens, unless you name another command that prints
``Dark`` or ``Light`` in ``PI_APPEARANCE_COMMAND`` (a way to try it, or to follow a desktop
that is not macOS).

Load it with ``pi -e examples/extensions/mac_system_theme.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import sys

from pi_harness.coding.extensions import ExtensionAPI, ExtensionContext, ExtensionEvent

POLL_SECONDS = 2.0
MAC_COMMAND = ["defaults", "read", "-g", "AppleInterfaceStyle"]


def appearance_command() -> list[str] | None:
    custom = os.environ.get("PI_APPEARANCE_COMMAND")
    if custom:
        return shlex.split(custom)
    return MAC_COMMAND if sys.platform == "darwin" else None


def extension(pi: ExtensionAPI) -> None:
    watcher: asyncio.Task[None] | None = None

    async def appearance(command: list[str], cwd: str) -> str:
        result = await pi.exec(command[0], command[1:], cwd=cwd, timeout=5)
        return "dark" if result["code"] == 0 and "dark" in result["stdout"].lower() else "light"

    async def follow(ctx: ExtensionContext, command: list[str]) -> None:
        current: str | None = None
        while True:
            wanted = await appearance(command, ctx.cwd)
            if wanted != current:
                outcome = ctx.ui.set_theme(wanted)
                if outcome.get("success"):
                    current = wanted
            await asyncio.sleep(POLL_SECONDS)

    @pi.on("session_start")
    async def started(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        nonlocal watcher
        command = appearance_command()
        if command is None or not ctx.has_ui or watcher is not None:
            return
        watcher = asyncio.ensure_future(follow(ctx, command))

    @pi.on("session_shutdown")
    async def shutdown(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        nonlocal watcher
        if watcher is not None:
            watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watcher
            watcher = None
