"""The smallest SDK program: one session with the defaults, one prompt, the answer.

Defaults (as in Pi): the current directory, settings from ~/.pi/agent and .pi/, a new session
file for this directory, the tools read/bash/edit/write, and the first model you have
credentials for. Pass a model pattern to choose one:

    python examples/sdk/minimal.py anthropic/claude-sonnet-4-5
"""

from __future__ import annotations

import asyncio
import sys

from pi_harness import create_agent_session


async def main(model: str | None = None) -> str | None:
    result = await create_agent_session(model=model)
    try:
        await result.session.prompt("In one sentence: what is a coding agent harness?")
        return result.session.get_last_assistant_text()
    finally:
        await result.runtime.shutdown()


if __name__ == "__main__":
    print(asyncio.run(main(sys.argv[1] if len(sys.argv) > 1 else None)))
