"""message-renderer: extension messages with their own look in the transcript.

What it shows: ``pi.register_message_renderer(custom_type, renderer)``. ``/status <text>`` sends a
``status-update`` message (``pi.send_message`` with ``display: True``) carrying a level and the
time in its ``details``; the renderer draws it as one coloured line, ``● [INFO] text``, and, when
tool output is expanded (Ctrl+O), a second line with the time and level. The renderer is called
as ``renderer(message, width, context)`` and returns lines (``context.theme`` for colours,
``context.expand_tools`` for the expanded state). Print and JSON mode show no transcript; the
message itself is still part of the session.

Load it with ``pi -e examples/extensions/message_renderer.py``; try ``/status warning disk almost full``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from pi_harness.coding.extensions import ExtensionAPI, ExtensionCommandContext

CUSTOM_TYPE = "status-update"
LEVELS = {"info": "accent", "warning": "warning", "error": "error", "success": "success"}


def render_status(message: Mapping[str, Any], width: int, context: Any) -> list[str]:
    theme = context.theme
    details = message.get("details") or {}
    level = str(details.get("level", "info"))
    token = LEVELS.get(level, "accent")
    text = message.get("content") if isinstance(message.get("content"), str) else ""
    lines = [theme.fg(token, f"● [{level.upper()}] ") + str(text)]
    if context.expand_tools:
        stamp = time.strftime("%H:%M:%S", time.localtime(float(details.get("time", 0))))
        lines.append(theme.fg("dim", f"  sent at {stamp}, level {level}"))
    return lines


def extension(pi: ExtensionAPI) -> None:
    pi.register_message_renderer(CUSTOM_TYPE, render_status)

    @pi.command("status", description="Send a status message: /status [info|warning|error|success] <text>")
    async def status(args: str, ctx: ExtensionCommandContext) -> None:
        first, _, rest = args.strip().partition(" ")
        level, text = (first, rest) if first in LEVELS else ("info", args.strip())
        await pi.send_message(
            {"customType": CUSTOM_TYPE, "content": text or "(no text)", "display": True,
             "details": {"level": level, "time": time.time()}}
        )  # fmt: skip
