"""The loop's seams: the hooks a host (usually ``AgentSession``) installs on the ``Agent``.

Every hook may be a plain function or a coroutine function; the loop awaits whatever comes back.
Tool hooks (``before_tool_call``/``after_tool_call``) live in ``types`` beside the tool contract.
Failures of the hooks defined here are *not* caught by the loop: the ``Agent`` turns them into an
error assistant message and ends the run (see ``Agent``).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from types import CoroutineType
from typing import Literal, TypeAlias, TypedDict, TypeVar, cast

from pi_harness.agent.types import LLM_ROLES, AgentContext, AgentEvent, AgentMessage
from pi_harness.ai.abort import AbortSignal
from pi_harness.ai.options import SimpleStreamOptions
from pi_harness.ai.stream import AssistantMessageEventStream
from pi_harness.ai.types import AssistantMessage, Context, Message, Model, ThinkingLevel, ToolResultMessage

T = TypeVar("T")
MaybeAwaitable: TypeAlias = T | Awaitable[T]


async def resolve(value: MaybeAwaitable[T]) -> T:
    """The value itself, or what it resolves to when a hook returned an awaitable."""
    if type(value) is CoroutineType or inspect.isawaitable(value):
        return cast(T, await value)
    return value


# --- request hooks ------------------------------------------------------------------------------


@dataclass
class PrepareRequestContext:
    """What ``prepare_request`` sees before each model request of a run (the first included)."""

    context: AgentContext
    model: Model
    thinking_level: ThinkingLevel
    turn: int  # 1-based number of the turn this request belongs to, within the run


@dataclass
class PreparedRequest:
    """A ``prepare_request`` result. ``None`` fields keep the current value.

    ``context`` replaces the loop's context for this and every later request of the run (the
    session projects its transcript this way); ``model`` and ``thinking_level`` apply to this
    request only (virtual-model routing). ``stream_options`` replaces the template of
    ``AgentOptions.stream_options`` for this request only: a host passes per-request values such
    as freshly resolved headers here instead of changing the agent's options.
    """

    context: AgentContext | None = None
    model: Model | None = None
    thinking_level: ThinkingLevel | None = None
    stream_options: SimpleStreamOptions | None = None


@dataclass
class FinishTurnContext:
    """The turn boundary: runs after the tool batch, before ``turn_end`` (the loop's ``_turns``)."""

    assistant_message: AssistantMessage
    tool_results: list[ToolResultMessage]
    context: AgentContext
    turn: int


class FinishTurnResult(TypedDict, total=False):
    """``end`` stops the run after ``turn_end``; ``continue`` sends exactly one more request."""

    action: Literal["end", "continue"]


@dataclass
class PrepareNextTurnContext:
    """Runs before every turn but the first of a run; may inject messages (which go first)."""

    context: AgentContext
    turn: int  # the number of the turn about to start


ConvertToLlm: TypeAlias = Callable[[list[AgentMessage]], MaybeAwaitable[list[Message]]]
TransformContext: TypeAlias = Callable[[list[AgentMessage], AbortSignal], MaybeAwaitable[list[AgentMessage]]]
GetApiKey: TypeAlias = Callable[[str], MaybeAwaitable[str | None]]
StreamFn: TypeAlias = Callable[[Model, Context, SimpleStreamOptions], MaybeAwaitable[AssistantMessageEventStream]]
PrepareRequestHook: TypeAlias = Callable[
    [PrepareRequestContext, AbortSignal], MaybeAwaitable[PreparedRequest | AgentContext | None]
]
FinishTurnHook: TypeAlias = Callable[[FinishTurnContext, AbortSignal], MaybeAwaitable[FinishTurnResult | None]]
PrepareNextTurnHook: TypeAlias = Callable[
    [PrepareNextTurnContext, AbortSignal], MaybeAwaitable[list[AgentMessage] | None]
]
# (1.4.0) Called once at run start with the run's context (its ``tools`` are the executable
# tools). Returned messages (the session's ``system`` message with ``toolsAdded``/
# ``toolsRemoved``) are emitted and appended right after the first ``turn_start``, before the
# prompt messages.
DeclareToolChangesHook: TypeAlias = Callable[[AgentContext, AbortSignal], MaybeAwaitable[list[AgentMessage] | None]]
ListenerErrorHandler: TypeAlias = Callable[[Exception, AgentEvent], None]


def default_convert_to_llm(messages: list[AgentMessage]) -> list[Message]:
    """Keep only the LLM roles (user, assistant, toolResult); custom roles are dropped."""
    return cast(list[Message], [m for m in messages if m["role"] in LLM_ROLES])


__all__ = [
    "ConvertToLlm",
    "DeclareToolChangesHook",
    "FinishTurnContext",
    "FinishTurnHook",
    "FinishTurnResult",
    "GetApiKey",
    "ListenerErrorHandler",
    "MaybeAwaitable",
    "PrepareNextTurnContext",
    "PrepareNextTurnHook",
    "PrepareRequestContext",
    "PrepareRequestHook",
    "PreparedRequest",
    "StreamFn",
    "TransformContext",
    "default_convert_to_llm",
    "resolve",
]
