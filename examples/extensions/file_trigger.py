"""file-trigger: let other programs talk to the agent through a file.

While a session runs, the extension watches ``/tmp/agent-trigger.txt``. When something writes text
into it (``echo "run the tests" > /tmp/agent-trigger.txt``), the text is added to the conversation
as a visible ``file-trigger`` message (``Trigger file: <text>``) that starts a run, and the file is
emptied. A CI job, an editor plugin or a cron job can hand the agent work this way.

The file is polled (twice a second, by its modification time and size), which needs no extra
package and works on every OS. With a UI you are told which file is watched.

What it shows: a background task started in ``session_start`` and cancelled in
``session_shutdown``, and ``pi.send_message(..., trigger_turn=True)``.
``create_extension(path, interval)`` builds it for another file (SDK hosts, tests).

Load it with ``pi -e examples/extensions/file_trigger.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable
from pathlib import Path

from pi_harness.coding.extensions import ExtensionAPI, ExtensionContext, ExtensionEvent

TRIGGER_FILE = "/tmp/agent-trigger.txt"
POLL_SECONDS = 0.5


def signature(path: Path) -> tuple[float, int] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return info.st_mtime, info.st_size


def take_text(path: Path) -> str:
    """The file's text, trimmed; the file is emptied once something was read."""
    try:
        text = path.read_text(encoding="utf-8").strip()
        if text:
            path.write_text("", encoding="utf-8")
    except OSError:
        return ""
    return text


def create_extension(
    path: str | os.PathLike[str] = TRIGGER_FILE, interval: float = POLL_SECONDS
) -> Callable[[ExtensionAPI], None]:
    trigger = Path(path)

    def extension(pi: ExtensionAPI) -> None:
        tasks: list[asyncio.Task[None]] = []

        async def watch(seen: tuple[float, int] | None, ctx: ExtensionContext) -> None:
            while True:
                await asyncio.sleep(interval)
                current = signature(trigger)
                if current is None or current == seen:
                    continue
                text = take_text(trigger)
                seen = signature(trigger)
                if not text:
                    continue
                message = {"customType": "file-trigger", "content": f"Trigger file: {text}", "display": True}
                try:
                    await pi.send_message(message, trigger_turn=True)
                except Exception as error:  # keep watching: the next write may well go through
                    if ctx.has_ui:
                        ctx.ui.notify(f"file-trigger: could not send the message: {error}", "error")

        @pi.on("session_start")
        def start(event: ExtensionEvent, ctx: ExtensionContext) -> None:
            # The state at the start is taken now, not when the task first runs: a write in between
            # must count as a change.
            tasks.append(asyncio.get_running_loop().create_task(watch(signature(trigger), ctx)))
            if ctx.has_ui:
                ctx.ui.notify(f"Watching {trigger} for instructions")

        @pi.on("session_shutdown")
        async def stop(event: ExtensionEvent) -> None:
            while tasks:
                task = tasks.pop()
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    return extension


extension = create_extension()
