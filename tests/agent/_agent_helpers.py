"""Shared helpers for the agent tests: an event recorder, tool factories, an agent factory."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from pi_harness.agent import Agent, AgentEvent, AgentOptions, AgentTool, AgentToolResult
from pi_harness.ai.abort import AbortSignal
from pi_harness.ai.providers.faux import FauxProvider

Execute = Callable[[str, dict[str, Any], AbortSignal | None, Any], Awaitable[AgentToolResult]]

NUMBER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"n": {"type": "number"}},
    "required": ["n"],
}


def text_result(text: str, **extra: Any) -> AgentToolResult:
    result: dict[str, Any] = {"content": [{"type": "text", "text": text}], **extra}
    return result  # type: ignore[return-value]


def result_text(message: dict[str, Any]) -> str:
    """The joined text of a message's or result's content."""
    content = message["content"]
    if isinstance(content, str):
        return content
    return "".join(block.get("text", "") for block in content)


def make_tool(
    name: str,
    execute: Execute | None = None,
    *,
    parameters: dict[str, Any] | None = None,
    execution_mode: Any = None,
    prepare_arguments: Any = None,
    reply: str | None = None,
    delay: float = 0.0,
) -> AgentTool:
    """A tool; without ``execute`` it sleeps ``delay`` seconds and answers ``reply`` (or ``<name> ok``)."""

    async def default_execute(
        tool_call_id: str, params: dict[str, Any], signal: AbortSignal | None, on_update: Any
    ) -> AgentToolResult:
        if delay:
            await asyncio.sleep(delay)
        return text_result(reply if reply is not None else f"{name} ok", details={"params": params})

    return AgentTool(
        name=name,
        label=name.title(),
        description=f"The {name} test tool.",
        parameters=parameters if parameters is not None else {"type": "object", "properties": {}},
        execute=execute or default_execute,
        execution_mode=execution_mode,
        prepare_arguments=prepare_arguments,
    )


def make_agent(faux: FauxProvider, tools: Iterable[AgentTool] = (), **options: Any) -> Agent:
    state: dict[str, Any] = {"model": faux.model, "tools": list(tools)}
    for key in ("system_prompt", "thinking_level", "messages"):
        if key in options:
            state[key] = options.pop(key)
    return Agent(AgentOptions(initial_state=state, **options))  # type: ignore[arg-type]


class Recorder:
    """Records every event of an agent (subscribed as a sync listener)."""

    def __init__(self, agent: Agent) -> None:
        self.events: list[AgentEvent] = []
        agent.subscribe(self.events.append)

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["type"] == kind]  # type: ignore[misc]

    def trace(self, *, updates: bool = False) -> list[str]:
        """Compact event labels: ``message_start:user``, ``tool_execution_end:c1``, ``turn_end``."""
        labels: list[str] = []
        for event in self.events:
            kind = event["type"]
            data: dict[str, Any] = event  # type: ignore[assignment]
            if kind == "message_update" and not updates:
                continue
            if kind.startswith("tool_execution"):
                labels.append(f"{kind}:{data['toolCallId']}")
            elif kind.startswith("message_"):
                message = data["message"]
                suffix = message["toolCallId"] if message["role"] == "toolResult" else message["role"]
                labels.append(f"{kind}:{suffix}")
            else:
                labels.append(kind)
        return labels


def request_roles(faux: FauxProvider, index: int) -> list[str]:
    return [m["role"] for m in faux.requests[index].context["messages"]]


def request_texts(faux: FauxProvider, index: int) -> list[str]:
    """Role-tagged texts of a recorded request, e.g. ``user:hi``, ``toolResult:c1``."""
    out: list[str] = []
    for message in faux.requests[index].context["messages"]:
        if message["role"] == "toolResult":
            out.append(f"toolResult:{message['toolCallId']}")
        elif message["role"] == "assistant":
            out.append("assistant")
        else:
            out.append(f"user:{result_text(message)}")  # type: ignore[arg-type]
    return out
