"""Streaming: subscribe to the session's events and show the answer as it is written.

Every event is a plain dict with Pi's camelCase fields. ``message_update`` carries the provider's
streaming event; tool events name the call; ``agent_settled`` says the session will not go on by
itself (retries, compaction and queued messages are over) - wait for it, not for ``agent_end``.

    python examples/sdk/streaming_events.py [provider/model]
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from pi_harness import create_agent_session
from pi_harness.coding.session_store import SessionManager


def show(event: dict[str, Any]) -> None:
    kind = event["type"]
    if kind == "message_update":
        delta = event["assistantMessageEvent"]
        if delta["type"] == "text_delta":
            print(delta["delta"], end="", flush=True)
    elif kind == "tool_execution_start":
        print(f"\n[tool {event['toolName']} {event['args']}]", flush=True)
    elif kind == "tool_execution_end":
        print(f"[tool {event['toolName']} {'failed' if event['isError'] else 'done'}]", flush=True)
    elif kind == "auto_retry_start":
        print(f"\n[retrying in {event['delayMs']} ms: {event['errorMessage']}]", flush=True)
    elif kind == "agent_settled":
        print("\n[settled]", flush=True)


async def main(model: str | None = None) -> list[str]:
    result = await create_agent_session(model=model, session_manager=SessionManager.in_memory())
    kinds: list[str] = []
    session = result.session
    session.subscribe(show)
    session.subscribe(lambda event: kinds.append(event["type"]))
    try:
        await session.prompt("List the files here with the bash tool, then say how many there are.")
    finally:
        await result.runtime.shutdown()
    return kinds


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else None))
