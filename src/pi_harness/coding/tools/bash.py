"""The ``bash`` tool and the command runner it shares with user ``!cmd``.

Output is streamed to ``on_update`` (at most every 50 ms; each update replaces the previous one),
only its tail is kept in memory and the whole of a long output is saved to a temp file named in
the result. Every outcome except exit code 0 fails the call with the output plus a status line.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from pi_harness.agent.types import AgentTool, AgentToolResult
from pi_harness.ai.abort import AbortSignal
from pi_harness.ai.json_values import JsonObject
from pi_harness.coding.tools.bash_output import CommandOutput, OutputCollector
from pi_harness.coding.tools.declarations import BASH
from pi_harness.coding.tools.definition import BuiltinTool, ToolCall
from pi_harness.coding.tools.operations import BashOperations, LocalBashOperations
from pi_harness.coding.tools.options import SpawnContext, ToolOptions
from pi_harness.coding.tools.results import ToolError, format_number, text_result
from pi_harness.coding.tools.shell import build_command_env, prepare_command

UPDATE_INTERVAL_SECONDS = 0.05
# Limit of ``structuredContent.output``: programmatic callers get much more than the model.
STRUCTURED_OUTPUT_MAX_BYTES = 1024 * 1024


@dataclass
class BashRun:
    output: CommandOutput
    exit_code: int | None
    aborted: bool = False
    timeout_text: str | None = None  # "<secs>" when the command timed out
    # The output for programmatic callers (``structuredContent``), set when the command exited.
    full_output: str = ""
    full_output_truncated: bool = False
    wall_time_seconds: float = 0.0


class UpdateThrottle:
    """Calls ``emit`` at most once per interval, trailing edge included (no update is lost)."""

    def __init__(self, emit: Callable[[], None], interval: float = UPDATE_INTERVAL_SECONDS) -> None:
        self._emit = emit
        self._interval = interval
        self._last = float("-inf")
        self._handle: asyncio.TimerHandle | None = None
        self._loop = asyncio.get_running_loop()

    def poke(self) -> None:
        now = self._loop.time()
        if now - self._last >= self._interval:
            self._fire()
        elif self._handle is None:
            self._handle = self._loop.call_later(self._interval - (now - self._last), self._fire)

    def _fire(self) -> None:
        self._handle = None
        self._last = self._loop.time()
        self._emit()

    def close(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None


async def run_bash(
    command: str,
    cwd: str,
    *,
    operations: BashOperations,
    env: dict[str, str],
    signal: AbortSignal | None = None,
    timeout: float | None = None,
    on_chunk: Callable[[bytes, OutputCollector], None] | None = None,
) -> BashRun:
    """Run one command through ``operations`` and collect its output (never raises for the
    command's own failure; raises for failures to run it, such as a missing directory)."""
    collector = OutputCollector()

    def on_data(chunk: bytes) -> None:
        collector.add(chunk)
        if on_chunk is not None:
            on_chunk(chunk, collector)

    started = time.perf_counter()
    try:
        result = await operations.exec(command, cwd, on_data=on_data, signal=signal, timeout=timeout, env=env)
    except Exception as exc:
        message = str(exc)
        if message == "aborted":
            return BashRun(collector.finish(), None, aborted=True)
        if message.startswith("timeout:"):
            return BashRun(collector.finish(), None, timeout_text=message[len("timeout:") :])
        collector.close()
        raise
    output = collector.finish()
    # Seconds to one decimal, halves rounded up.
    wall_time = math.floor((time.perf_counter() - started) * 10 + 0.5) / 10
    full_output, full_truncated = collector.read_full_output(STRUCTURED_OUTPUT_MAX_BYTES)
    return BashRun(
        output,
        result.exit_code,
        full_output=full_output,
        full_output_truncated=full_truncated,
        wall_time_seconds=wall_time,
    )


def _with_status(text: str, status: str) -> str:
    return f"{text}\n\n{status}" if text else status


def bash_run_to_result(run: BashRun) -> AgentToolResult:
    """Success for exit code 0; an error result with the status line for another exit code
    (both with ``structuredContent``); a raise for an abort, a timeout or no exit code."""
    text = run.output["text"]
    if run.aborted:
        raise ToolError(_with_status(text, "Command aborted"))
    if run.timeout_text is not None:
        raise ToolError(_with_status(text, f"Command timed out after {run.timeout_text} seconds"))
    if run.exit_code is None:
        raise ToolError(_with_status(text, "Command terminated without an exit code"))
    structured: JsonObject = {"output": run.full_output, "truncated": run.full_output_truncated}
    path = run.output.get("fullOutputPath")
    if run.full_output_truncated and path:
        structured["full_output_path"] = path
    structured["exit_code"] = run.exit_code
    structured["wall_time_seconds"] = run.wall_time_seconds
    details = run.output["details"] or None
    if run.exit_code != 0:
        result = text_result(_with_status(text or "(no output)", f"Command exited with code {run.exit_code}"), details)
        result["structuredContent"] = structured
        result["isError"] = True
        return result
    result = text_result(text or "(no output)", details)
    result["structuredContent"] = structured
    return result


def prepare_spawn(command: str, cwd: str, options: ToolOptions) -> SpawnContext:
    """Command prefix, environment and the optional spawn hook, in that order."""
    context: SpawnContext = {
        "command": prepare_command(command, options.shell_command_prefix),
        "cwd": cwd,
        "env": build_command_env(options.env, options.agent_dir),
    }
    return options.spawn_hook(context) if options.spawn_hook is not None else context


def default_bash_operations(options: ToolOptions) -> BashOperations:
    return options.bash_operations or LocalBashOperations(
        shell_path=options.shell_path,
        settings_path=options.settings_path,
        reap_orphans=options.reap_orphans,
        kill_grace=options.kill_grace,
    )


async def run_shell_tool(call: ToolCall[BashOperations]) -> AgentToolResult:
    """The body of the shell tools (bash, powershell): run, stream throttled updates, report."""
    on_update = call.on_update
    timeout = call.params.get("timeout")
    spawn = prepare_spawn(call.text("command"), call.cwd, call.options)
    latest: list[OutputCollector] = []

    def emit() -> None:
        if on_update is not None and latest:
            text, details = latest[0].snapshot()
            on_update({"content": [{"type": "text", "text": text}], "details": details})

    throttle = UpdateThrottle(emit) if on_update is not None else None
    if on_update is not None:
        on_update({"content": []})  # tells renderers the command started, before any output

    def on_chunk(_chunk: bytes, collector: OutputCollector) -> None:
        if not latest:
            latest.append(collector)
        if throttle is not None:
            throttle.poke()

    seconds = float(timeout) if isinstance(timeout, int | float) and timeout > 0 else None
    try:
        run = await run_bash(
            spawn["command"],
            spawn["cwd"],
            operations=call.operations,
            env=spawn["env"],
            signal=call.signal,
            timeout=seconds,
            on_chunk=on_chunk,
        )
    finally:
        if throttle is not None:
            throttle.close()
    if run.timeout_text is not None and seconds is not None:
        run.timeout_text = format_number(seconds)
    return bash_run_to_result(run)


BASH_TOOL = BuiltinTool.declared(
    BASH,
    operations=default_bash_operations,
    run=run_shell_tool,
    abort_check_first=False,
)


def create_bash_tool(cwd: str, options: ToolOptions | None = None) -> AgentTool:
    return BASH_TOOL.create(cwd, options)
