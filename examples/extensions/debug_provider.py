"""debug-provider: keep the raw events a provider streamed, for debugging.

What it shows:

* ``provider_stream_event``: every event of the response stream, parsed, before pi-harness
  turns it into message deltas (with ``provider``, ``api`` and ``model``);
* collecting per turn (``turn_start`` ... ``message_end`` of the assistant) and saving at
  ``turn_end`` with ``pi.append_entry``: custom entries are kept in the session file and never
  sent to the model;
* ``pi.register_entry_renderer``, which the interactive mode uses for those entries (one line,
  the events themselves when expanded);
* a command with an on/off argument and a status line (``ctx.ui.set_status``).

``/debug-provider`` toggles the capture, ``/debug-provider on|off`` sets it. Each captured turn
becomes a ``debug-provider-events`` entry ``{provider, api, model, events}``.

Load it with ``pi -e examples/extensions/debug_provider.py``.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from pi_harness.coding.extensions.api import ExtensionAPI
from pi_harness.coding.extensions.context import ExtensionCommandContext
from pi_harness.coding.extensions.events import ExtensionEvent

ENTRY_TYPE = "debug-provider-events"
STATUS_KEY = "debug-provider"


def render_entry(entry: dict[str, Any], options: Any, theme: Any = None) -> list[str]:
    data = entry.get("data") or {}
    events = data.get("events", [])
    header = f"[provider debug] {data.get('provider')}/{data.get('model')} ({data.get('api')}): {len(events)} events"
    expanded = bool(getattr(options, "expanded", False) or (isinstance(options, dict) and options.get("expanded")))
    return [header, *json.dumps(events, indent=2).splitlines()] if expanded else [header]


def extension(pi: ExtensionAPI) -> None:
    state: dict[str, Any] = {"on": False, "events": None, "done": None}

    pi.register_entry_renderer(ENTRY_TYPE, render_entry)

    @pi.command("debug-provider", description="Capture the raw provider events: /debug-provider [on|off]")
    async def toggle(args: str, ctx: ExtensionCommandContext) -> None:
        wanted = args.strip().lower()
        if wanted not in ("", "on", "off"):
            ctx.ui.notify("Usage: /debug-provider [on|off]", "warning")
            return
        state["on"] = not state["on"] if wanted == "" else wanted == "on"
        if not state["on"]:
            state["events"] = state["done"] = None
        ctx.ui.set_status(STATUS_KEY, "provider debug" if state["on"] else None)
        ctx.ui.notify(f"Provider event capture {'on' if state['on'] else 'off'}", "info")

    @pi.on("turn_start")
    def start(event: ExtensionEvent) -> None:
        state["events"] = [] if state["on"] else None

    @pi.on("provider_stream_event")
    def collect(event: ExtensionEvent) -> None:
        if state["events"] is not None:
            state["events"].append(copy.deepcopy(event.data))

    @pi.on("message_end")
    def finish(event: ExtensionEvent) -> None:
        message = event.message
        if not isinstance(message, dict) or message.get("role") != "assistant" or state["events"] is None:
            return
        state["done"] = {
            "provider": message.get("provider"),
            "api": message.get("api"),
            "model": message.get("model"),
            "events": state["events"],
        }
        state["events"] = None

    @pi.on("turn_end")
    def save(event: ExtensionEvent) -> None:
        if state["done"] is not None:
            pi.append_entry(ENTRY_TYPE, state["done"])
            state["done"] = None
