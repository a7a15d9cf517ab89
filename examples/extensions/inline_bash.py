"""inline-bash: ``!{command}`` inside a prompt is replaced by the command's output.

Type ``The branch is !{git branch --show-current}, what is left to do?`` and the model receives
``The branch is main, what is left to do?``. Each ``!{...}`` runs with ``bash -c`` in the working
directory (30 s at most) and is replaced by its trimmed output (stdout, or stderr when there is no
stdout); a command that cannot run leaves ``[error: ...]``. With a UI you get a notification
listing each expansion. A prompt that is a whole-line shell command (``!ls``, ``!!ls``) is left
alone, so pi's own ``!`` handling keeps working.

What it shows: an async ``input`` transform that runs programs with ``pi.exec`` and keeps the
images of the message.

Load it with ``pi -e examples/extensions/inline_bash.py``.
"""

from __future__ import annotations

import re
from typing import Any

from pi_harness.coding.extensions import ExtensionAPI, ExtensionContext, ExtensionEvent

INLINE = re.compile(r"!\{([^}]+)\}")
TIMEOUT_MS = 30_000
PREVIEW = 50


def extension(pi: ExtensionAPI) -> None:
    async def expand(command: str) -> tuple[str, str | None]:
        """The replacement text and, when something went wrong, a note about it."""
        try:
            result = await pi.exec("bash", ["-c", command], timeout=TIMEOUT_MS)
        except Exception as error:  # a spawn failure must not swallow the whole prompt
            return f"[error: {error}]", str(error)
        output = (result["stdout"] or result["stderr"] or "").strip()
        note = f"exit code {result['code']}" if result["code"] != 0 and result["stderr"] else None
        return output, note

    @pi.on("input")
    async def expand_inline(event: ExtensionEvent, ctx: ExtensionContext) -> dict[str, Any]:
        text = str(event.text)
        stripped = text.lstrip()
        if (stripped.startswith("!") and not stripped.startswith("!{")) or not INLINE.search(text):
            return {"action": "continue"}
        report: list[str] = []
        pieces: list[str] = []
        position = 0
        for match in INLINE.finditer(text):
            output, note = await expand(match.group(1))
            pieces += [text[position : match.start()], output]
            position = match.end()
            preview = output if len(output) <= PREVIEW else output[:PREVIEW] + "..."
            report.append(f"!{{{match.group(1)}}}{f' ({note})' if note else ''} -> {preview!r}")
        pieces.append(text[position:])
        if ctx.has_ui:
            ctx.ui.notify(f"Ran {len(report)} inline command(s):\n" + "\n".join(report))
        answer: dict[str, Any] = {"action": "transform", "text": "".join(pieces)}
        if event.get("images"):
            answer["images"] = event.get("images")
        return answer
