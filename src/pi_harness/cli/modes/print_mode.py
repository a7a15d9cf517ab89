"""Print mode (modes-and-cli.md section 6): run the prompts, print the final answer's text.

Exit codes: 0 on success; 1 when the last assistant message stopped with ``error``, ``aborted``
or ``length`` (its error text, or ``Request <stopReason>``, goes to stderr), or when a prompt
raised (no credentials, streaming conflict...).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from pi_harness.cli.modes.common import (
    PromptInput,
    last_assistant,
    report_extension_errors_to_stderr,
    run_prompts,
    run_with_signal_shutdown,
)

if TYPE_CHECKING:
    from pi_harness.cli.output import ByteSink
    from pi_harness.coding.session_runtime.runtime import AgentSessionRuntime


def assistant_text(message: dict[str, Any]) -> str:
    return "".join(block.get("text", "") + "\n" for block in message.get("content", []) if block.get("type") == "text")


async def run_print_mode(runtime: AgentSessionRuntime, prompts: list[PromptInput], out: ByteSink) -> int:
    session = runtime.session
    report_extension_errors_to_stderr(session)
    await session.bind_extensions(ui=None, has_ui=False, mode="print")

    async def work() -> int:
        try:
            await run_prompts(runtime, prompts)
        except Exception as exc:
            print(str(exc), file=sys.stderr, flush=True)
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
        return 0

    try:
        return await run_with_signal_shutdown(work(), runtime.shutdown)
    finally:
        await runtime.shutdown()
