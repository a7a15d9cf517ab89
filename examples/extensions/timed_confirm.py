"""timed-confirm: dialogs that close by themselves.

What it shows:

* the ``timeout`` option of ``ctx.ui.confirm`` / ``ctx.ui.select`` (seconds): the interactive UI
  shows a countdown in the title and the dialog resolves to its default (``False`` / ``None``)
  when time runs out. The caller cannot tell a timeout from the user pressing Escape;
* the ``signal`` option: the caller dismisses the dialog itself with an ``AbortController``, so it
  knows exactly why the dialog closed (``signal.aborted`` is only true when *it* fired);
* commands taking an argument (``/timed 3`` waits three seconds instead of the default).

Commands: ``/timed [seconds]``, ``/timed-select [seconds]``, ``/timed-signal [seconds]``.
Without a UI (print and JSON mode) the commands do nothing: there is nobody to ask.

Load it with ``pi -e examples/extensions/timed_confirm.py`` or copy it into
``~/.pi/agent/extensions/``.
"""

from __future__ import annotations

import asyncio
from typing import Literal

from pi_harness.ai.abort import AbortController
from pi_harness.coding.extensions.api import ExtensionAPI
from pi_harness.coding.extensions.context import ExtensionCommandContext, ExtensionContext

DEFAULT_CONFIRM_SECONDS = 5.0
DEFAULT_SELECT_SECONDS = 10.0
SELECT_OPTIONS = ["Option A", "Option B", "Option C"]
TITLE = "Timed Confirmation"

Outcome = Literal["confirmed", "declined", "timed_out"]


def parse_seconds(args: str, default: float) -> float:
    """The command argument as a positive number of seconds, else ``default``."""
    try:
        seconds = float(args.strip())
    except ValueError:
        return default
    return seconds if seconds > 0 else default


def countdown_message(seconds: float) -> str:
    return f"This dialog closes by itself after {seconds:g} seconds. Confirm?"


async def confirm_before_deadline(ctx: ExtensionContext, title: str, message: str, seconds: float) -> Outcome:
    """Ask, and dismiss the dialog ourselves after ``seconds``: the answer says which happened."""
    controller = AbortController()
    timer = asyncio.get_running_loop().call_later(seconds, controller.abort)
    try:
        confirmed = await ctx.ui.confirm(title, message, signal=controller.signal)
    finally:
        timer.cancel()
    if confirmed:
        return "confirmed"
    return "timed_out" if controller.signal.aborted else "declined"


def extension(pi: ExtensionAPI) -> None:
    @pi.command("timed", description="A confirmation that cancels itself after a few seconds")
    async def timed(args: str, ctx: ExtensionCommandContext) -> None:
        if not ctx.has_ui:
            return
        seconds = parse_seconds(args, DEFAULT_CONFIRM_SECONDS)
        if await ctx.ui.confirm(TITLE, countdown_message(seconds), timeout=seconds):
            ctx.ui.notify("Confirmed by user!", "info")
        else:
            ctx.ui.notify("Cancelled or timed out", "info")

    @pi.command("timed-select", description="A choice that cancels itself after a few seconds")
    async def timed_select(args: str, ctx: ExtensionCommandContext) -> None:
        if not ctx.has_ui:
            return
        seconds = parse_seconds(args, DEFAULT_SELECT_SECONDS)
        choice = await ctx.ui.select("Pick an option", SELECT_OPTIONS, timeout=seconds)
        if choice is not None:
            ctx.ui.notify(f"Selected: {choice}", "info")
        else:
            ctx.ui.notify("Selection cancelled or timed out", "info")

    @pi.command("timed-signal", description="A timed confirmation that knows whether it timed out")
    async def timed_signal(args: str, ctx: ExtensionCommandContext) -> None:
        if not ctx.has_ui:
            return
        seconds = parse_seconds(args, DEFAULT_CONFIRM_SECONDS)
        outcome = await confirm_before_deadline(ctx, TITLE, countdown_message(seconds), seconds)
        if outcome == "confirmed":
            ctx.ui.notify("Confirmed by user!", "info")
        elif outcome == "timed_out":
            ctx.ui.notify("Dialog timed out", "warning")
        else:
            ctx.ui.notify("Cancelled by user", "info")
