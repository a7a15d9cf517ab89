"""Running a user's shell command (``!cmd``, ``!!cmd``, RPC ``bash``) with the bash tool's runner.

Only the execution: who runs the command (a ``user_bash`` extension handler may) and where its
result goes is the live session's ``pi_harness.coding.agent_session.user_shell``.

The result is the ``bashExecution`` record's data (``{output, exitCode, cancelled, truncated,
fullOutputPath?}``): ``output`` is the tail of the output without a notice (the context
conversion adds one), cleaned of terminal escape sequences and control characters; ``exitCode``
is absent (``None``) when the command was cancelled. ``on_data`` receives the cleaned text as it
arrives (for ``bash_execution_update`` deltas).
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable
from typing import NotRequired, TypedDict

from pi_harness.ai.abort import AbortSignal
from pi_harness.coding.tools.bash import default_bash_operations, prepare_spawn, run_bash
from pi_harness.coding.tools.bash_output import OutputCollector
from pi_harness.coding.tools.operations import BashOperations
from pi_harness.coding.tools.options import ToolOptions

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


class BashExecutionResult(TypedDict):
    output: str
    exitCode: int | None
    cancelled: bool
    truncated: bool
    fullOutputPath: NotRequired[str]


def clean_terminal_output(text: str) -> str:
    """Remove ANSI escape sequences, carriage returns and other control characters (tabs and
    newlines stay)."""
    return _CONTROL.sub("", _ANSI.sub("", text))


async def execute_bash(
    command: str,
    cwd: str,
    *,
    signal: AbortSignal | None = None,
    on_data: Callable[[str], None] | None = None,
    options: ToolOptions | None = None,
    operations: BashOperations | None = None,
) -> BashExecutionResult:
    """Run a user's command with the bash tool's process handling (``user_bash`` may supply
    ``operations``). Failing to start (missing directory, shell not found) raises."""
    opts = options or ToolOptions()
    spawn = prepare_spawn(command, cwd, opts)
    decoder = codecs.getincrementaldecoder("utf-8")("replace")

    def on_chunk(chunk: bytes, _collector: OutputCollector) -> None:
        if on_data is not None:
            text = clean_terminal_output(decoder.decode(chunk))
            if text:
                on_data(text)

    run = await run_bash(
        spawn["command"],
        spawn["cwd"],
        operations=operations or default_bash_operations(opts),
        env=spawn["env"],
        signal=signal,
        on_chunk=on_chunk,
    )
    truncation = run.output["details"].get("truncation")
    tail = truncation["content"] if truncation is not None else run.output["text"]
    result: BashExecutionResult = {
        "output": clean_terminal_output(tail),
        "exitCode": None if run.aborted or run.timeout_text is not None else run.exit_code,
        "cancelled": run.aborted,
        "truncated": run.output["truncated"],
    }
    if "fullOutputPath" in run.output:
        result["fullOutputPath"] = run.output["fullOutputPath"]
    return result
