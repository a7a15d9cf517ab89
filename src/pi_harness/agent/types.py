"""Types of the agent layer: agent messages, tools, tool results and agent events.

Messages and events are plain dicts with Pi's camelCase keys (they are persisted and printed
as JSON). Tools are runtime objects.

Besides the three LLM roles, an agent transcript may hold the coding agent's own roles
(``custom``, ``bashExecution``, ``branchSummary``, ``compactionSummary``, ``system``); they are
declared here because the transcript type must name them, and are turned into LLM messages by
the ``convert_to_llm`` hook before a request.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal, NotRequired, TypeAlias, TypedDict

from pi_harness.ai.abort import AbortSignal
from pi_harness.ai.events import AssistantMessageEvent
from pi_harness.ai.json_values import JsonObject
from pi_harness.ai.types import (
    AssistantMessage,
    ImageContent,
    TextContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)

# --- coding-agent message roles (stored in session files, see sessions.md) --------------------


class CustomMessage(TypedDict):
    role: Literal["custom"]
    customType: str
    content: str | list[TextContent | ImageContent]
    display: bool
    timestamp: int
    # The extension's own data, kept in the session file. ``object`` is the honest type, but it
    # makes a cast in coding/agent_session/tool_hooks.py redundant (an error under --strict):
    # this Any goes when that cast does.
    details: NotRequired[Any]


class BashExecutionMessage(TypedDict):
    role: Literal["bashExecution"]
    command: str
    output: str
    exitCode: int | None
    cancelled: bool
    truncated: bool
    timestamp: int
    fullOutputPath: NotRequired[str]
    excludeFromContext: NotRequired[bool]


class BranchSummaryMessage(TypedDict):
    role: Literal["branchSummary"]
    summary: str
    fromId: str
    timestamp: int


class CompactionSummaryMessage(TypedDict):
    role: Literal["compactionSummary"]
    summary: str
    tokensBefore: int
    timestamp: int


class ToolReference(TypedDict):
    """A tool named by a system message's ``toolsRemoved``."""

    name: str


class SystemMessage(TypedDict):
    """(1.4.0) The system prompt and tool set persisted in the transcript."""

    role: Literal["system"]
    content: str
    timestamp: int
    sections: NotRequired[dict[str, str | None]]
    toolsAdded: NotRequired[list[Tool]]
    toolsRemoved: NotRequired[list[ToolReference]]


AgentMessage: TypeAlias = (
    UserMessage
    | AssistantMessage
    | ToolResultMessage
    | CustomMessage
    | BashExecutionMessage
    | BranchSummaryMessage
    | CompactionSummaryMessage
    | SystemMessage
)

LLM_ROLES = frozenset({"user", "assistant", "toolResult"})

# --- tools ------------------------------------------------------------------------------------


class AgentToolResult(TypedDict):
    """What a tool's ``execute`` returns. Failure is signalled by raising (or ``isError: True``)."""

    content: list[TextContent | ImageContent]
    # Tool-specific data for renderers and the session file; never sent to the model.
    details: NotRequired[object]
    isError: NotRequired[bool]
    terminate: NotRequired[bool]
    # Machine-readable output (an MCP tool's ``structuredContent``), passed along in events.
    structuredContent: NotRequired[object]
    # (1.4.0) nested LLM work done by the tool; copied to the tool result message
    usage: NotRequired[Usage]
    # Set by the session: the calls the tool made to other tools; copied to the tool result message.
    nestedCalls: NotRequired[dict[str, object]]


ToolUpdateCallback: TypeAlias = Callable[[AgentToolResult], None]
ToolExecute: TypeAlias = Callable[
    [str, JsonObject, AbortSignal | None, ToolUpdateCallback | None], Awaitable[AgentToolResult]
]


@dataclass
class AgentTool:
    """A tool the model can call.

    ``execute(tool_call_id, params, signal, on_update)`` receives validated (coerced) arguments,
    may stream partial results through ``on_update`` and raises on failure. ``on_update`` takes
    the accumulated partial result, must be called from the event loop's thread, and calls made
    after ``execute`` returned are ignored.
    """

    name: str
    label: str
    description: str
    parameters: JsonObject  # JSON Schema of the arguments
    execute: ToolExecute
    execution_mode: Literal["parallel", "sequential"] | None = None
    # Rewrites the raw arguments (a copy) before validation, e.g. to accept legacy names.
    prepare_arguments: Callable[[JsonObject], JsonObject] | None = None
    output_schema: JsonObject | None = None
    prompt_snippet: str | None = None
    prompt_guidelines: list[str] | None = None

    def to_tool(self) -> Tool:
        """The LLM-facing declaration (name, description, JSON Schema)."""
        return {"name": self.name, "description": self.description, "parameters": self.parameters}


# --- tool hooks -------------------------------------------------------------------------------


@dataclass
class AgentContext:
    system_prompt: str
    messages: list[AgentMessage]
    tools: list[AgentTool]


@dataclass
class BeforeToolCallContext:
    assistant_message: AssistantMessage
    tool_call: ToolCall
    args: JsonObject  # validated; a hook may mutate it in place (not revalidated)
    context: AgentContext


class BeforeToolCallResult(TypedDict, total=False):
    block: bool
    reason: str


@dataclass
class AfterToolCallContext:
    assistant_message: AssistantMessage
    tool_call: ToolCall
    args: JsonObject
    result: AgentToolResult
    is_error: bool
    context: AgentContext


class AfterToolCallResult(TypedDict, total=False):
    """Field-by-field override of the executed result (no deep merge)."""

    content: list[TextContent | ImageContent]
    details: object
    isError: bool
    structuredContent: object


BeforeToolCallHook: TypeAlias = Callable[
    [BeforeToolCallContext, AbortSignal | None], Awaitable[BeforeToolCallResult | None]
]
AfterToolCallHook: TypeAlias = Callable[
    [AfterToolCallContext, AbortSignal | None], Awaitable[AfterToolCallResult | None]
]

# --- agent events; every event also carries ``runId`` (the run it belongs to) -----------------


class AgentStartEvent(TypedDict):
    type: Literal["agent_start"]
    runId: str


class AgentEndEvent(TypedDict):
    type: Literal["agent_end"]
    messages: list[AgentMessage]
    runId: str
    budgetExceeded: NotRequired[BudgetInfo]


class TurnStartEvent(TypedDict):
    type: Literal["turn_start"]
    runId: str


class TurnEndEvent(TypedDict):
    type: Literal["turn_end"]
    message: AgentMessage
    toolResults: list[ToolResultMessage]
    runId: str


class MessageStartEvent(TypedDict):
    type: Literal["message_start"]
    message: AgentMessage
    runId: str


class MessageUpdateEvent(TypedDict):
    type: Literal["message_update"]
    message: AgentMessage
    assistantMessageEvent: AssistantMessageEvent
    runId: str


class MessageEndEvent(TypedDict):
    type: Literal["message_end"]
    message: AgentMessage
    runId: str


class ToolExecutionStartEvent(TypedDict):
    type: Literal["tool_execution_start"]
    toolCallId: str
    toolName: str
    args: JsonObject
    runId: str
    parentToolCallId: NotRequired[str]


class ToolExecutionUpdateEvent(TypedDict):
    type: Literal["tool_execution_update"]
    toolCallId: str
    toolName: str
    args: JsonObject
    partialResult: AgentToolResult
    runId: str
    parentToolCallId: NotRequired[str]


class ToolExecutionEndEvent(TypedDict):
    type: Literal["tool_execution_end"]
    toolCallId: str
    toolName: str
    result: AgentToolResult
    isError: bool
    # How long ``execute`` took; absent when the tool did not run.
    durationMs: NotRequired[int]
    runId: str
    parentToolCallId: NotRequired[str]


class BudgetInfo(TypedDict):
    """Which budget ended the run and the figures (beyond Pi)."""

    limit: Literal["maxTurns", "maxTotalTokens", "maxCost"]
    value: float
    used: float


class BudgetExceededEvent(TypedDict):
    type: Literal["budget_exceeded"]
    limit: Literal["maxTurns", "maxTotalTokens", "maxCost"]
    value: float
    used: float
    runId: str


AgentEvent: TypeAlias = (
    AgentStartEvent
    | AgentEndEvent
    | TurnStartEvent
    | TurnEndEvent
    | MessageStartEvent
    | MessageUpdateEvent
    | MessageEndEvent
    | ToolExecutionStartEvent
    | ToolExecutionUpdateEvent
    | ToolExecutionEndEvent
    | BudgetExceededEvent
)

AgentListener: TypeAlias = Callable[[AgentEvent], "Awaitable[None] | None"]
