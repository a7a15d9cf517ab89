"""working-message-test: a working message and indicator that last the whole session.

What it shows: what ``ctx.ui.set_working_message`` and ``ctx.ui.set_working_indicator`` set in
``session_start`` stays for every run of the agent, not just the first one: each time the
working row appears it reads ``Working... (custom)`` next to a brown dot. Send a few prompts and
watch the row between turns.

Load it with ``pi -e examples/extensions/working_message_test.py``.
"""

from __future__ import annotations

from pi_harness.coding.extensions import ExtensionAPI, ExtensionContext, ExtensionEvent

MESSAGE = "Working... (custom)"
BROWN_DOT = "\x1b[38;5;130m●\x1b[0m"


def extension(pi: ExtensionAPI) -> None:
    @pi.on("session_start")
    async def started(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        ctx.ui.set_working_message(MESSAGE)
        ctx.ui.set_working_indicator([BROWN_DOT])
