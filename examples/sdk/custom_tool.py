"""Custom tools: a plain ``AgentTool`` and an extension-style ``ToolDefinition``.

A tool is a name, a description for the model, a JSON Schema for its arguments and an async
``execute``. Raise to fail (the message goes back to the model as an error result); return
``{"content": [...], "details": ...}`` to succeed.

    python examples/sdk/custom_tool.py [provider/model]
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from pi_harness import create_agent_session
from pi_harness.agent import AgentTool, AgentToolResult
from pi_harness.coding.extensions.types import ToolDefinition, ToolResult
from pi_harness.coding.session_store import SessionManager


async def count_words(tool_call_id: str, params: dict[str, Any], signal: Any, on_update: Any) -> AgentToolResult:
    words = len(str(params["text"]).split())
    return {"content": [{"type": "text", "text": f"{words} words"}], "details": {"words": words}}


WORD_COUNT = AgentTool(
    name="word_count",
    label="Word count",
    description="Count the words of a text.",
    parameters={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    execute=count_words,
)


async def shout(tool_call_id: str, params: dict[str, Any], signal: Any, on_update: Any, ctx: Any) -> ToolResult:
    # Extension-style tools also get ``ctx`` (working directory, session, nested tool calls...).
    return ToolResult(str(params["text"]).upper(), details={"cwd": ctx.cwd if ctx else None})


SHOUT = ToolDefinition(
    name="shout",
    description="Return the text in capital letters.",
    parameters={"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    execute=shout,
)


async def main(model: str | None = None) -> list[dict[str, Any]]:
    result = await create_agent_session(
        model=model, custom_tools=[WORD_COUNT, SHOUT], session_manager=SessionManager.in_memory()
    )
    session = result.session
    try:
        await session.prompt("How many words are in 'the quick brown fox'? Then shout 'done'.")
        return [m for m in session.get_messages() if m["role"] == "toolResult"]  # type: ignore[misc]
    finally:
        await result.runtime.shutdown()


if __name__ == "__main__":
    for message in asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else None)):
        print(message["toolName"], "->", message["content"][0]["text"])
