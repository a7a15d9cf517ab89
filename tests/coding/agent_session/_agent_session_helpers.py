"""Shared helpers for the session tests: a fake LLM server, sessions on it, an event recorder."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from pi_harness.agent.types import AgentTool, AgentToolResult
from pi_harness.ai.abort import AbortSignal
from pi_harness.coding.agent_session import AgentSession
from pi_harness.coding.config.settings import SettingsManager
from pi_harness.coding.sdk import CreateAgentSessionResult, create_agent_session
from pi_harness.coding.session_store import SessionManager
from pi_harness.testing.fake_llm import FakeLLMServer, RecordedRequest, ScriptedResponse, TextStep

API = "openai-completions"
# Realistic provider texts (OpenAI wording) for the classification paths.
RATE_LIMIT = "Rate limit reached for gpt-4o in organization org-1 on requests per min (RPM): Limit 3."
QUOTA = "You exceeded your current quota, please check your plan and billing details."
OVERFLOW = "This model's maximum context length is 1000 tokens. However, your messages resulted in 5000 tokens."

FAST_SETTINGS: dict[str, Any] = {"retry": {"baseDelayMs": 5, "maxAgentDelayMs": 50}}


async def make_session(
    server: FakeLLMServer,
    cwd: Path,
    *,
    settings: dict[str, Any] | None = None,
    persistent: bool = False,
    **options: Any,
) -> CreateAgentSessionResult:
    """A session on the fake server's openai-completions model (runtime key for provider ``fake``)."""
    # Deep copies: an in-memory SettingsManager writes into the dicts it was given.
    merged = copy.deepcopy({**FAST_SETTINGS, **(settings or {})})
    options.setdefault("model", server.model(API))
    options.setdefault("api_keys", {"fake": "test-key"})
    options.setdefault("settings_manager", SettingsManager.in_memory(merged))
    if not persistent:
        options.setdefault("session_manager", SessionManager.in_memory(str(cwd)))
    return await create_agent_session(cwd=str(cwd), **options)


class Recorder:
    """Every session event, as received."""

    def __init__(self, session: AgentSession) -> None:
        self.events: list[dict[str, Any]] = []
        session.subscribe(self.events.append)

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["type"] == kind]

    def clear(self) -> None:
        self.events.clear()

    def trace(self, *, skip: tuple[str, ...] = ("message_update", "entry_appended")) -> list[str]:
        """Compact labels: ``message_start:user``, ``tool_execution_end:c1``, ``agent_end:retry``."""
        labels: list[str] = []
        for event in self.events:
            kind = event["type"]
            if kind in skip:
                continue
            if kind.startswith("tool_execution"):
                labels.append(f"{kind}:{event['toolCallId']}")
            elif kind.startswith("message_"):
                message = event["message"]
                suffix = message["toolCallId"] if message["role"] == "toolResult" else message["role"]
                labels.append(f"{kind}:{suffix}")
            elif kind == "agent_end":
                labels.append("agent_end:retry" if event["willRetry"] else "agent_end")
            elif kind == "agent_settled":
                labels.append("agent_settled:aborted" if event["aborted"] else "agent_settled")
            elif kind == "queue_update":
                labels.append(f"queue_update:{event['steering']}:{event['followUp']}")
            elif kind in ("compaction_start", "compaction_end"):
                labels.append(f"{kind}:{event['reason']}")
            else:
                labels.append(kind)
        return labels


def request_roles(request: RecordedRequest) -> list[str]:
    return [m["role"] for m in request.json["messages"]]


def request_texts(request: RecordedRequest) -> list[str]:
    """``role:text`` of every message of an openai-completions request."""
    out: list[str] = []
    for message in request.json["messages"]:
        content = message.get("content")
        if isinstance(content, list):
            content = "".join(part.get("text", "") for part in content if isinstance(part, dict))
        out.append(f"{message['role']}:{content or ''}")
    return out


def system_prompt_of(request: RecordedRequest) -> str:
    first = request.json["messages"][0]
    assert first["role"] in ("system", "developer")
    content = first["content"]
    return content if isinstance(content, str) else "".join(p.get("text", "") for p in content)


Execute = Callable[[str, dict[str, Any], AbortSignal | None, Any], Awaitable[AgentToolResult]]


def make_tool(name: str, execute: Execute, *, parameters: dict[str, Any] | None = None) -> AgentTool:
    return AgentTool(
        name=name,
        label=name,
        description=f"The {name} test tool.",
        parameters=parameters if parameters is not None else {"type": "object", "properties": {}},
        execute=execute,
    )


def gate_tool(name: str, release: asyncio.Event, started: asyncio.Event | None = None) -> AgentTool:
    """A tool that waits for ``release`` (so a test can act while tools run)."""

    async def execute(tool_call_id: str, params: dict[str, Any], signal: Any, on_update: Any) -> AgentToolResult:
        if started is not None:
            started.set()
        await release.wait()
        return {"content": [{"type": "text", "text": f"{name} done"}]}

    return make_tool(name, execute)


async def wait_for(predicate: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.005)


def is_summary_request(request: RecordedRequest) -> bool:
    """Compaction and branch summaries send one user message holding ``<conversation>``."""
    users = [m for m in request.json.get("messages") or [] if m.get("role") == "user"]
    if len(users) != 1:
        return False
    content = users[0].get("content")
    text = content if isinstance(content, str) else "".join(p.get("text", "") for p in content or [])
    return text.startswith("<conversation>")


class Router:
    """Answers summary requests with ``summary`` and every other request with the next of ``replies``.

    Summaries of a split turn are requested concurrently, so a plain queue would hand them
    out in a racy order; routing by content keeps the script deterministic.
    """

    def __init__(self, replies: list[ScriptedResponse], summary: ScriptedResponse) -> None:
        self.replies = list(replies)
        self.summary = summary

    def __call__(self, request: RecordedRequest) -> ScriptedResponse:
        if is_summary_request(request):
            return self.summary
        return self.replies.pop(0) if self.replies else ScriptedResponse(steps=[TextStep("(script exhausted)")])
