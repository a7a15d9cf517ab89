"""``AgentState``: what ``agent.state`` exposes (agent-loop.md section 2.2), and how events change it.

``messages`` changes only at ``message_end`` (the finished message is appended); while a
response streams, ``stream_message`` holds the in-flight message.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

from pi_harness.agent.types import AgentEvent, AgentMessage, AgentTool
from pi_harness.ai.types import Model, ThinkingLevel


@dataclass
class AgentState:
    system_prompt: str = ""
    model: Model | None = None
    # ``off`` sends no reasoning option; any other level is passed as ``reasoning``.
    thinking_level: ThinkingLevel = "off"
    tools: list[AgentTool] = field(default_factory=list)
    messages: list[AgentMessage] = field(default_factory=list)
    is_streaming: bool = False
    stream_message: AgentMessage | None = None
    pending_tool_calls: set[str] = field(default_factory=set)
    error: str | None = None

    def apply(self, event: AgentEvent) -> None:
        """Fold one agent event into the state (before listeners see it)."""
        kind = event["type"]
        if kind in ("message_update", "message_start"):
            self.stream_message = event["message"]  # type: ignore[typeddict-item]
        elif kind == "message_end":
            self.stream_message = None
            self.messages.append(event["message"])  # type: ignore[typeddict-item]
        elif kind == "tool_execution_start":
            self.pending_tool_calls.add(event["toolCallId"])  # type: ignore[typeddict-item]
        elif kind == "tool_execution_end":
            self.pending_tool_calls.discard(event["toolCallId"])  # type: ignore[typeddict-item]
        elif kind == "turn_end":
            message = cast(dict[str, Any], event["message"])  # type: ignore[typeddict-item]
            if message.get("role") == "assistant" and message.get("errorMessage"):
                self.error = str(message["errorMessage"])
        elif kind == "agent_end":
            self.is_streaming = False
            self.stream_message = None
