"""One child agent: the ``pi --mode json -p --no-session ...`` process and what it reports.

The child is a separate pi process with its own context window: it gets the agent's model,
tools and system prompt on its command line and the task as its only message. Its JSON-mode
output is one event per line; the parent reads the ``message_end`` records (assistant messages
carry the text, usage, model and stop reason; tool results show progress) and ignores the rest.
Aborting kills the child's whole process group.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shlex
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pi_harness.ai.abort import AbortSignal
from pi_harness.coding.tools import terminate_process_group
from pi_harness.coding.tools.process import track_process_group, untrack_process_group

from .agents import AgentConfig

COMMAND_ENV = "PI_SUBAGENT_COMMAND"  # e.g. "pi" to use another installation; default: this one
KILL_GRACE_SECONDS = 5.0
MAX_STDERR_CHARS = 16_000


def pi_command() -> list[str]:
    """How to start a child pi: ``$PI_SUBAGENT_COMMAND``, else this Python's pi-harness."""
    configured = os.environ.get(COMMAND_ENV, "").strip()
    return shlex.split(configured) if configured else [sys.executable, "-m", "pi_harness"]


def child_arguments(agent: AgentConfig, task: str, system_prompt_file: str | None) -> list[str]:
    args = ["--mode", "json", "-p", "--no-session"]
    if agent.model:
        args += ["--model", agent.model]
    if agent.tools:
        args += ["--tools", ",".join(agent.tools)]
    if system_prompt_file is not None:
        args += ["--append-system-prompt", system_prompt_file]
    return [*args, f"Task: {task}"]


@dataclass
class Usage:
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cost: float = 0.0
    context_tokens: int = 0
    turns: int = 0

    def add_message(self, usage: dict[str, Any]) -> None:
        self.turns += 1
        self.input += int(usage.get("input") or 0)
        self.output += int(usage.get("output") or 0)
        self.cache_read += int(usage.get("cacheRead") or 0)
        self.cache_write += int(usage.get("cacheWrite") or 0)
        self.cost += float((usage.get("cost") or {}).get("total") or 0.0)
        self.context_tokens = int(usage.get("totalTokens") or 0)

    def add(self, other: Usage) -> None:
        self.turns += other.turns
        self.input += other.input
        self.output += other.output
        self.cache_read += other.cache_read
        self.cache_write += other.cache_write
        self.cost += other.cost
        self.context_tokens = max(self.context_tokens, other.context_tokens)

    def to_dict(self) -> dict[str, Any]:
        return {
            "input": self.input,
            "output": self.output,
            "cacheRead": self.cache_read,
            "cacheWrite": self.cache_write,
            "cost": round(self.cost, 6),
            "contextTokens": self.context_tokens,
            "turns": self.turns,
        }


@dataclass
class ChildResult:
    agent: str
    agent_source: str  # "user" | "project" | "unknown"
    task: str
    exit_code: int = -1  # -1 while running
    messages: list[dict[str, Any]] = field(default_factory=list)
    stderr: str = ""
    usage: Usage = field(default_factory=Usage)
    model: str | None = None
    stop_reason: str | None = None
    error_message: str | None = None
    step: int | None = None

    @property
    def failed(self) -> bool:
        return self.exit_code != 0 or self.stop_reason in ("error", "aborted")

    @property
    def final_output(self) -> str:
        """The text of the child's last assistant message that has text."""
        for message in reversed(self.messages):
            if message.get("role") == "assistant":
                text = "\n".join(
                    b.get("text", "") for b in message.get("content") or [] if b.get("type") == "text"
                ).strip()
                if text:
                    return text
        return ""

    @property
    def error_text(self) -> str:
        return self.error_message or self.stderr.strip() or self.final_output or "(no output)"

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "agent": self.agent,
            "agentSource": self.agent_source,
            "task": self.task,
            "exitCode": self.exit_code,
            "messages": self.messages,
            "stderr": self.stderr,
            "usage": self.usage.to_dict(),
        }
        for key, value in (
            ("model", self.model),
            ("stopReason", self.stop_reason),
            ("errorMessage", self.error_message),
            ("step", self.step),
        ):
            if value is not None:
                data[key] = value
        return data


def apply_event(result: ChildResult, line: str) -> bool:
    """Fold one line of the child's JSON output into ``result``; True when it changed."""
    try:
        event = json.loads(line)
    except ValueError:
        return False
    if not isinstance(event, dict) or event.get("type") != "message_end":
        return False
    message = event.get("message")
    if not isinstance(message, dict):
        return False
    role = message.get("role")
    if role == "toolResult":
        result.messages.append(message)
        return True
    if role != "assistant":
        return False
    result.messages.append(message)
    result.usage.add_message(message.get("usage") or {})
    result.model = message.get("model") or result.model
    result.stop_reason = message.get("stopReason")
    result.error_message = message.get("errorMessage") or None
    return True


async def run_child(
    agent: AgentConfig | None,
    agent_name: str,
    task: str,
    cwd: str,
    *,
    known_agents: str,
    signal: AbortSignal | None,
    on_change: Callable[[ChildResult], None] | None = None,
    step: int | None = None,
) -> ChildResult:
    """Run one task to completion (or abort) and return what the child reported."""
    if agent is None:
        return ChildResult(
            agent_name,
            "unknown",
            task,
            exit_code=1,
            stderr=f'Unknown agent: "{agent_name}". Available agents: {known_agents}.',
            step=step,
        )
    result = ChildResult(agent.name, agent.source, task, step=step)
    if not os.path.isdir(cwd):
        result.exit_code, result.stderr = 1, f"Working directory does not exist: {cwd}"
        return result
    with tempfile.TemporaryDirectory(prefix="pi-subagent-") as scratch:
        prompt_file: str | None = None
        if agent.system_prompt:
            prompt_file = os.path.join(scratch, f"prompt-{agent.name}.md")
            with open(prompt_file, "w", encoding="utf-8") as handle:  # only we can read it (0600 dir)
                handle.write(agent.system_prompt)
        try:
            process = await asyncio.create_subprocess_exec(
                *pi_command(),
                *child_arguments(agent, task, prompt_file),
                cwd=cwd,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,  # its own process group, so an abort kills its tools too
                limit=16 * 1024 * 1024,  # one JSON line can hold a large message
            )
        except OSError as error:
            result.exit_code, result.stderr = 1, f"Cannot start {pi_command()[0]}: {error}"
            return result
        track_process_group(process.pid)  # pi's SIGTERM/SIGHUP handlers kill it on exit
        kills: list[asyncio.Task[None]] = []

        def abort(_reason: Any = None) -> None:
            if not kills:  # SIGTERM, then SIGKILL after the grace period
                kills.append(asyncio.ensure_future(terminate_process_group(process.pid, KILL_GRACE_SECONDS)))

        if signal is not None:
            signal.add_listener(abort)
        try:
            await asyncio.gather(_read_events(process, result, on_change), _read_stderr(process, result))
            await process.wait()
        finally:
            if signal is not None:
                signal.remove_listener(abort)
            if process.returncode is None:  # we are being cancelled: leave nothing running
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, 9)
                await process.wait()
            for kill in kills:
                await kill
            untrack_process_group(process.pid)
    code = process.returncode or 0
    result.exit_code = code if code >= 0 else 128 - code
    if kills:
        result.stop_reason, result.error_message = "aborted", "Subagent was aborted"
        result.exit_code = result.exit_code or 1
    return result


async def _read_events(
    process: asyncio.subprocess.Process, result: ChildResult, on_change: Callable[[ChildResult], None] | None
) -> None:
    assert process.stdout is not None
    async for raw in process.stdout:
        if apply_event(result, raw.decode("utf-8", errors="replace")) and on_change is not None:
            on_change(result)


async def _read_stderr(process: asyncio.subprocess.Process, result: ChildResult) -> None:
    assert process.stderr is not None
    async for raw in process.stderr:
        result.stderr = (result.stderr + raw.decode("utf-8", errors="replace"))[-MAX_STDERR_CHARS:]
