"""event-bus: extensions talking to each other through ``pi.events``.

What it shows:

* ``pi.events.on(channel, handler)`` and ``pi.events.emit(channel, data)``: one bus shared by
  every extension of the session, so extensions can cooperate without importing each other;
* keeping the latest ``ctx`` from ``session_start`` for code that runs outside a handler (a bus
  listener gets only the data);
* a command that emits on the bus.

Anything emitted on ``my:notification`` as ``{"message", "from"}`` is shown as a notification.
The extension announces itself there when the session starts, and ``/emit [text]`` sends your
text (``hello`` without one).

Load it with ``pi -e examples/extensions/event_bus.py``.
"""

from __future__ import annotations

from pi_harness.coding.extensions.api import ExtensionAPI
from pi_harness.coding.extensions.context import ExtensionCommandContext, ExtensionContext
from pi_harness.coding.extensions.events import ExtensionEvent

CHANNEL = "my:notification"


def extension(pi: ExtensionAPI) -> None:
    current: list[ExtensionContext] = []  # the context of the running session, once it started

    def show(data: object) -> None:
        if not current or not isinstance(data, dict):
            return
        current[-1].ui.notify(f"Event from {data.get('from', '?')}: {data.get('message', '')}", "info")

    pi.events.on(CHANNEL, show)

    @pi.on("session_start")
    def remember(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        current[:] = [ctx]
        pi.events.emit(CHANNEL, {"message": "session started", "from": "event-bus example"})

    @pi.command("emit", description="Send a notification over the event bus: /emit [text]")
    async def emit(args: str, ctx: ExtensionCommandContext) -> None:
        pi.events.emit(CHANNEL, {"message": args.strip() or "hello", "from": "/emit"})
