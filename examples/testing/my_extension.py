"""my_extension: a small extension, tested offline by ``test_my_extension.py`` next to it.

It adds a ``word_count`` tool and a gate that refuses ``bash`` commands containing ``rm -rf``.
Load it with ``pi -e examples/testing/my_extension.py``.
"""

from __future__ import annotations

from typing import Any

from pi_harness.coding.extensions.api import ExtensionAPI
from pi_harness.coding.extensions.context import ExtensionContext
from pi_harness.coding.extensions.events import ExtensionEvent

WORD_COUNT_PARAMETERS = {
    "type": "object",
    "properties": {"text": {"type": "string", "description": "The text to count"}},
    "required": ["text"],
}


def extension(pi: ExtensionAPI) -> None:
    @pi.tool(
        name="word_count",
        label="Word count",
        description="Count the words of a text.",
        parameters=WORD_COUNT_PARAMETERS,
    )
    async def word_count(tool_call_id: str, params: dict[str, Any], signal: Any, on_update: Any, ctx: Any) -> str:
        return f"{len(params['text'].split())} words"

    @pi.on("tool_call")
    async def no_rm_rf(event: ExtensionEvent, ctx: ExtensionContext) -> dict[str, Any] | None:
        if event.tool_name == "bash" and "rm -rf" in str(event.input.get("command", "")):
            return {"block": True, "reason": "rm -rf is not allowed"}
        return None
