"""``AgentOptions``: the configuration of an ``Agent``.

Options are read live by the loop, so a host may change them between runs (and the hooks even
during a run). Values that belong to one request only (such as headers resolved for it) are not
written here: the ``prepare_request`` hook returns them (``PreparedRequest.stream_options``).
Run budgets (``max_turns``, ``max_total_tokens``, ``max_cost``) go beyond Pi and are off by
default; ``pi_harness.agent.budget`` defines what they count.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeAlias, TypedDict

from pi_harness.agent.hooks import (
    ConvertToLlm,
    DeclareToolChangesHook,
    FinishTurnHook,
    GetApiKey,
    ListenerErrorHandler,
    PrepareNextTurnHook,
    PrepareRequestHook,
    StreamFn,
    TransformContext,
    default_convert_to_llm,
)
from pi_harness.agent.types import AfterToolCallHook, AgentMessage, AgentTool, BeforeToolCallHook
from pi_harness.ai.api import stream_simple
from pi_harness.ai.options import (
    DEFAULT_MAX_RETRY_DELAY_MS,
    PayloadHook,
    ResponseHook,
    SimpleStreamOptions,
    StreamEventHook,
)
from pi_harness.ai.types import Model, ThinkingLevel

QueueMode: TypeAlias = Literal["all", "one-at-a-time"]
Transport: TypeAlias = Literal["sse", "websocket", "auto", "websocket-cached"]

DEFAULT_QUEUE_MODE: QueueMode = "one-at-a-time"
DEFAULT_TRANSPORT: Transport = "auto"


class InitialAgentState(TypedDict, total=False):
    """The part of ``AgentState`` a host may preset (Pi's ``initialState``)."""

    system_prompt: str
    model: Model | None
    thinking_level: ThinkingLevel
    tools: list[AgentTool]
    messages: list[AgentMessage]


@dataclass
class AgentOptions:
    initial_state: InitialAgentState | None = None
    # Map agent messages to LLM messages before each request (must not raise).
    convert_to_llm: ConvertToLlm = default_convert_to_llm
    # Agent-message-level transform before ``convert_to_llm``; its result is never stored.
    transform_context: TransformContext | None = None
    steering_mode: QueueMode = DEFAULT_QUEUE_MODE
    follow_up_mode: QueueMode = DEFAULT_QUEUE_MODE
    stream_fn: StreamFn = stream_simple
    session_id: str | None = None
    # Resolve a key per request (expiring tokens); an empty answer falls back to ``api_key``.
    get_api_key: GetApiKey | None = None
    api_key: str | None = None
    on_payload: PayloadHook | None = None
    on_response: ResponseHook | None = None
    on_stream_event: StreamEventHook | None = None
    thinking_budgets: dict[str, int] | None = None
    transport: Transport = DEFAULT_TRANSPORT
    max_retry_delay_ms: int = DEFAULT_MAX_RETRY_DELAY_MS
    # Template for every other request option (temperature, max_tokens, headers, cache_retention,
    # provider-level max_retries, metadata...). The fields above and the run's signal, key and
    # reasoning level are filled in on a copy for each request; ``prepare_request`` may supply
    # another template for one request.
    stream_options: SimpleStreamOptions | None = None
    before_tool_call: BeforeToolCallHook | None = None
    after_tool_call: AfterToolCallHook | None = None
    prepare_request: PrepareRequestHook | None = None
    finish_turn: FinishTurnHook | None = None
    prepare_next_turn: PrepareNextTurnHook | None = None
    declare_tool_changes: DeclareToolChangesHook | None = None
    # Beyond Pi: run budgets, ``None`` = unlimited (see ``pi_harness.agent.budget``).
    max_turns: int | None = None
    max_total_tokens: int | None = None
    max_cost: float | None = None
    # Where a listener's exception goes (default: a traceback on stderr); the run goes on.
    on_listener_error: ListenerErrorHandler | None = None


__all__ = [
    "DEFAULT_QUEUE_MODE",
    "DEFAULT_TRANSPORT",
    "AgentOptions",
    "InitialAgentState",
    "QueueMode",
    "Transport",
]
