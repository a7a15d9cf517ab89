"""A read-only session: only read, grep, find and ls, kept in memory (nothing written to disk).

The model can look at the project but cannot change it or run commands. Tools are selected by
name; every built-in stays registered, so ``session.set_active_tools`` could switch more on.

    python examples/sdk/read_only_tools.py [provider/model]
"""

from __future__ import annotations

import asyncio
import sys

from pi_harness import create_agent_session
from pi_harness.coding.session_store import SessionManager


async def main(model: str | None = None) -> tuple[list[str], str | None]:
    result = await create_agent_session(
        model=model,
        tools=["read", "grep", "find", "ls"],
        session_manager=SessionManager.in_memory(),
    )
    session = result.session
    try:
        await session.prompt("Which Python files are in this directory? Do not change anything.")
        return session.get_active_tool_names(), session.get_last_assistant_text()
    finally:
        await result.runtime.shutdown()


if __name__ == "__main__":
    tools, answer = asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else None))
    print(f"tools: {', '.join(tools)}\n{answer}")
