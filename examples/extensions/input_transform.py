"""input-transform: rewrite or answer what you type before the model sees it.

* ``?quick <question>`` becomes a request for a one- or two-sentence answer to the question
  (``?quick`` alone only shows how to use it);
* ``ping`` is answered with a ``pong`` notification and ``time`` with the current local time,
  without asking the model at all;
* everything else, and every message sent by an extension, goes through unchanged.

What it shows: the ``input`` event and its three answers: ``{"action": "transform", "text"}``,
``{"action": "handled"}`` (nothing is sent) and ``{"action": "continue"}``, plus
``event.source`` (``interactive``, ``rpc`` or ``extension``).

Load it with ``pi -e examples/extensions/input_transform.py``.
"""

from __future__ import annotations

import datetime

from pi_harness.coding.extensions import ExtensionAPI, ExtensionContext, ExtensionEvent

QUICK_PREFIX = "?quick"


def extension(pi: ExtensionAPI) -> None:
    @pi.on("input")
    def transform(event: ExtensionEvent, ctx: ExtensionContext) -> dict[str, str]:
        text = str(event.text)
        if event.source == "extension":
            return {"action": "continue"}
        if text == QUICK_PREFIX or text.startswith(QUICK_PREFIX + " "):
            question = text[len(QUICK_PREFIX) :].strip()
            if not question:
                ctx.ui.notify("Usage: ?quick <question>", "warning")
                return {"action": "handled"}
            return {"action": "transform", "text": f"Answer in one or two sentences at most: {question}"}
        word = text.strip().lower()
        if word == "ping":
            ctx.ui.notify("pong")
            return {"action": "handled"}
        if word == "time":
            ctx.ui.notify(datetime.datetime.now().strftime("%c"))
            return {"action": "handled"}
        return {"action": "continue"}
