"""Print mode (``pi -p``): run the prompts, print the final answer's text.

Exit codes: 0 on success; 1 when the last assistant message stopped with ``error``, ``aborted``
or ``length`` (its error text, or ``Request <stopReason>``, goes to stderr), or when a prompt
raised (no credentials, streaming conflict...).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING

from pi_harness.cli.initial_input import PromptInput
from pi_harness.cli.modes.common import (
    last_assistant,
    rehearse_next_request,
    report_extension_errors_to_stderr,
    run_prompts,
    run_with_signal_shutdown,
)

if TYPE_CHECKING:
    from pi_harness.cli.output import ByteSink
    from pi_harness.coding.session_runtime.runtime import AgentSessionRuntime


def assistant_text(message: Mapping[str, object]) -> str:
    """The text blocks of an assistant message, each followed by a newline."""
    content = message.get("content")
    blocks = content if isinstance(content, list) else []
    return "".join(str(block.get("text", "")) + "\n" for block in blocks if block.get("type") == "text")


async def run_print_mode(runtime: AgentSessionRuntime, prompts: list[PromptInput], out: ByteSink) -> int:
    session = runtime.session
    report_extension_errors_to_stderr(session)
    await session.bind_extensions(ui=None, has_ui=False, mode="print")

    async def work() -> int:
        if not await run_prompts(runtime, prompts):
            return 1
        message = last_assistant(runtime.session)
        if message is None:
            return 0
        stop = message.get("stopReason")
        if stop in ("error", "aborted"):
            print(message.get("errorMessage") or f"Request {stop}", file=sys.stderr, flush=True)
            return 1
        if stop == "length":
            text = assistant_text(message)
            if text:
                out.write(text)
            print("Request length: the response hit the output token limit", file=sys.stderr, flush=True)
            return 1
        text = assistant_text(message)
        if text:
            out.write(text)
        await rehearse_next_request(runtime.session)
        return 0

    try:
        return await run_with_signal_shutdown(work(), runtime.shutdown, runtime)
    finally:
        await runtime.shutdown()
