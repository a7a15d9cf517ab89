"""input-transform-streaming: add ``git diff --stat`` to prompts about changes, but not while steering.

When your message mentions changes (``change``, ``changes``, ``diff``, ``modified``), the extension
runs ``git diff --stat`` and appends its output to the message, so the model starts with a picture
of the uncommitted work. Outside a repository, with a clean tree, or when git fails, the message
goes through unchanged.

A message typed while the agent is working (``event.streamingBehavior == "steer"``) skips the
work: a correction should reach the model without waiting for a subprocess.

What it shows: an ``input`` transform doing I/O with ``pi.exec``, and choosing by
``event.streamingBehavior`` (``"steer"``, ``"followUp"`` or absent when the agent is idle).

Load it with ``pi -e examples/extensions/input_transform_streaming.py``.
"""

from __future__ import annotations

import re

from pi_harness.coding.extensions import ExtensionAPI, ExtensionEvent

MENTIONS_CHANGES = re.compile(r"\b(changes?|diff|modified)\b", re.IGNORECASE)


def extension(pi: ExtensionAPI) -> None:
    @pi.on("input")
    async def add_diffstat(event: ExtensionEvent) -> dict[str, str]:
        text = str(event.text)
        if event.get("streamingBehavior") == "steer" or not MENTIONS_CHANGES.search(text):
            return {"action": "continue"}
        result = await pi.exec("git", ["diff", "--stat"])
        stat = result["stdout"].strip()
        if result["code"] != 0 or not stat:
            return {"action": "continue"}
        return {"action": "transform", "text": f"{text}\n\nUncommitted changes (git diff --stat):\n```\n{stat}\n```"}
