"""In-memory sessions, and restoring history you keep elsewhere.

The session manager is the authority on the model context: to continue a conversation stored
outside pi-harness, put its messages into a ``SessionManager`` (assigning
``session.agent.state.messages`` would not change what is sent).

    python examples/sdk/in_memory_session.py [provider/model]
"""

from __future__ import annotations

import asyncio
import sys
import time

from pi_harness import create_agent_session
from pi_harness.coding.session_store import SessionManager


def restored_history() -> SessionManager:
    manager = SessionManager.in_memory()
    now = int(time.time() * 1000)
    manager.append_message({"role": "user", "content": "My favourite colour is teal.", "timestamp": now})
    return manager


async def main(model: str | None = None) -> list[str]:
    result = await create_agent_session(model=model, session_manager=restored_history())
    session = result.session
    answers: list[str] = []
    try:
        for question in ("What is my favourite colour?", "Say it again, in French."):
            await session.prompt(question)
            answers.append(session.get_last_assistant_text() or "")
        assert session.session_manager.get_session_file() is None  # nothing on disk
    finally:
        await result.runtime.shutdown()
    return answers


if __name__ == "__main__":
    print("\n".join(asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else None))))
