"""entry-renderer: notes kept in the session file and shown in the chat, never sent to the model.

What it shows: ``pi.append_entry(custom_type, data)`` stores extension data as a custom entry
(it survives a restart with the session, and is not part of the model's context), and
``pi.register_entry_renderer(custom_type, renderer)`` draws such entries in the interactive
transcript as they are added. ``/status-card <text>`` adds a card: a framed box with the text
and the time it was written. The renderer is ``renderer(entry, width, context) -> lines``; the
entry has ``customType`` and ``data``.

Load it with ``pi -e examples/extensions/entry_renderer.py``; try ``/status-card deploy finished``.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from pi_harness.coding.extensions import ExtensionAPI, ExtensionCommandContext

CUSTOM_TYPE = "status-card"


def render_card(entry: Mapping[str, Any], width: int, context: Any) -> list[str]:
    theme = context.theme
    data = entry.get("data") or {}
    text = str(data.get("text", ""))
    stamp = time.strftime("%H:%M", time.localtime(float(data.get("time", 0))))
    inner = max(len(text), len(stamp) + 6, 12)
    inner = min(inner, max(4, width - 4))
    border = theme.fg("borderAccent", "╭" + "─" * (inner + 2) + "╮")
    bottom = theme.fg("borderAccent", "╰" + "─" * (inner + 2) + "╯")
    side = theme.fg("borderAccent", "│")
    body = [f"{side} {theme.style(text[:inner].ljust(inner), 'accent', bold=True)} {side}",
            f"{side} {theme.fg('dim', ('at ' + stamp).ljust(inner))} {side}"]  # fmt: skip
    return [border, *body, bottom]


def extension(pi: ExtensionAPI) -> None:
    pi.register_entry_renderer(CUSTOM_TYPE, render_card)

    @pi.command("status-card", description="Add a status card to the session (not sent to the model)")
    async def card(args: str, ctx: ExtensionCommandContext) -> None:
        pi.append_entry(CUSTOM_TYPE, {"text": args.strip() or "status", "time": time.time()})
