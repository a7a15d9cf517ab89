"""``AgentState``: what ``agent.state`` exposes, and how events change it.

``messages`` changes only at ``message_end`` (the finished message is appended); while a
response streams, ``stream_message`` holds the in-flight message.
"""

from __future__ import annotations

from dataclasses import dataclass, field

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
        if event["type"] == "message_start" or event["type"] == "message_update":
            self.stream_message = event["message"]
        elif event["type"] == "message_end":
            self.stream_message = None
            self.messages.append(event["message"])
        elif event["type"] == "tool_execution_start":
            self.pending_tool_calls.add(event["toolCallId"])
        elif event["type"] == "tool_execution_end":
            self.pending_tool_calls.discard(event["toolCallId"])
        elif event["type"] == "turn_end":
            message = event["message"]
            if message["role"] == "assistant" and message.get("errorMessage"):
                self.error = str(message.get("errorMessage"))
        elif event["type"] == "agent_end":
            self.is_streaming = False
            self.stream_message = None
