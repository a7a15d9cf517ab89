"""The session's handling of every agent event, one at a time.

The ``Agent`` awaits its listeners, so events reach this pump strictly in order. Per event:

1. session bookkeeping that must precede delivery (a queued text leaves the UI queue, with its
   ``queue_update``, before its user message starts; ``agent_end`` gains ``willRetry``; a running
   tool's partial result has its secrets masked, ``security.maskSecrets``);
2. extensions (``turn_start`` gains ``turnIndex``/``timestamp``; ``turn_end`` is delivered from the
   ``finish_turn`` hook, where its ``{continue: true}`` can still act);
3. persistence at ``message_end``, before the listeners hear of it: ``custom`` →
   ``custom_message`` entry; ``user``, ``assistant``, ``toolResult`` and ``system`` → ``message``
   entry; ``bashExecution`` is written by the bash path and summaries have entries of their own;
4. session listeners;
5. follow-ups: a successful response ends a retry sequence and clears the overflow-recovery flag;
   custom messages deferred during the turn (``defer``) are appended at ``turn_end``.

Retry and compaction decisions after ``agent_end`` are made by the run driver once the low-level
run has returned.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Mapping, Sequence
from typing import cast

from pi_harness.agent.hooks import FinishTurnContext, FinishTurnResult
from pi_harness.agent.types import AgentEvent, AgentMessage, CustomMessage
from pi_harness.ai.abort import AbortSignal
from pi_harness.ai.types import AssistantMessage
from pi_harness.coding.agent_session.auto_retry import AutoRetry
from pi_harness.coding.agent_session.compaction_control import CompactionControl
from pi_harness.coding.agent_session.queued_messages import QueuedMessages, user_text
from pi_harness.coding.agent_session.session_state import SessionState

# The extension path a refused boundary continuation is reported under (as in Pi).
BOUNDARY_PATH = "<boundary>"

_PERSISTED_AS_MESSAGE = frozenset({"user", "assistant", "toolResult", "system"})
# Events the session does nothing with but hand on (see ``EventPump.__call__``).
_PASSED_ON_ONLY = frozenset({"message_update", "tool_execution_update"})


def _payload(event: Mapping[str, object]) -> dict[str, object]:
    return {key: value for key, value in event.items() if key != "type"}


class EventPump:
    def __init__(
        self, state: SessionState, *, queues: QueuedMessages, retry: AutoRetry, compaction: CompactionControl
    ) -> None:
        self._state = state
        self._queues = queues
        self._retry = retry
        self._compaction = compaction
        self.turn_index = -1
        self._turn_end_delivered = False
        # The last assistant response of the latest low-level run (what the driver acts on).
        self.run_assistant: AssistantMessage | None = None
        # Custom messages that arrived mid-turn; appended when the turn ends (never between a tool
        # call and its result) or when the run settles.
        self._deferred: list[AgentMessage] = []

    async def __call__(self, event: AgentEvent) -> None:
        await self.process(event)

    def listen(self, event: AgentEvent) -> Awaitable[None] | None:
        """The agent's listener: ``process``, except for the streaming updates the session only
        hands on to extensions and session listeners: with nobody to act on them (print mode),
        most of a turn's events end here, without a coroutine each."""
        kind = event["type"]
        if kind in _PASSED_ON_ONLY and not self._passed_on(kind):
            return None
        return self.process(event)

    def _passed_on(self, kind: str) -> bool:
        return self._state.extensions.has_handlers(kind) or self._state.events.wants(kind)

    async def process(self, event: Mapping[str, object]) -> None:
        kind = event.get("type")
        message = event.get("message")
        if kind == "agent_start":
            self.turn_index = -1
            self.run_assistant = None
        elif kind == "turn_start":
            self.turn_index += 1
            self._turn_end_delivered = False
        elif kind == "tool_execution_update":
            # Final results are masked in ``tool_hooks``; what a running tool shows so far, here.
            event = {**event, "partialResult": self._state.masker.value(event.get("partialResult"))}
        elif kind == "message_start" and isinstance(message, dict) and message.get("role") == "user":
            await self._queues.observe_user_text(user_text(message))
        elif kind == "agent_end":
            messages = event.get("messages")
            self.run_assistant = _last_assistant(messages if isinstance(messages, list) else [])
            will_retry = self.run_assistant is not None and self._retry.will_retry(self.run_assistant)
            event = {**event, "willRetry": will_retry}

        await self._to_extensions(kind, event)
        ended = kind == "message_end" and isinstance(message, dict)
        if ended:
            # On disk before any listener hears of it: JSON and RPC mode print events from a
            # listener, so a message a client saw is in the file even after a kill -9.
            await self.persist(cast(AgentMessage, message))
        events = self._state.events
        if events.wants(kind):  # most of a turn's events, in print mode (``message_update``...)
            await events.emit(event)

        if ended and isinstance(message, dict):
            if message.get("role") == "assistant":
                await self._retry.on_response(cast(AssistantMessage, message))
                if message.get("stopReason") not in ("error", "aborted", "length"):
                    self._compaction.reset_overflow_recovery()
        elif kind == "turn_end":
            await self.flush_deferred()

    async def _to_extensions(self, kind: object, event: Mapping[str, object]) -> None:
        extensions = self._state.extensions
        if not isinstance(kind, str) or not extensions.has_handlers(kind):
            return
        if kind == "turn_end":
            if self._turn_end_delivered:
                return  # delivered by finish_turn
            payload = {"turnIndex": self.turn_index, **_payload(event)}
        elif kind == "turn_start":
            payload = {"turnIndex": self.turn_index, "timestamp": int(time.time() * 1000), **_payload(event)}
        else:
            payload = _payload(event)
        await extensions.emit(kind, payload)

    async def finish_turn(self, context: FinishTurnContext, signal: AbortSignal) -> FinishTurnResult | None:
        """The turn boundary: extensions get ``turn_end`` here and may ask for one more request."""
        extensions = self._state.extensions
        self._turn_end_delivered = True
        if not extensions.has_handlers("turn_end"):
            return None
        payload = {
            "turnIndex": self.turn_index,
            "message": context.assistant_message,
            "toolResults": context.tool_results,
        }
        wants_more = await extensions.emit_actionable("turn_end", payload)
        if not wants_more:
            return None
        if not (context.tool_results or self.has_deferred() or self._state.agent.has_queued_messages()):
            # Nothing new for the model: continuing would repeat the same request, perhaps forever.
            report_empty_continuation(self._state, "turn_end")
            return None
        return {"action": "continue"}

    async def persist(self, message: AgentMessage) -> str | None:
        """Write a finished message as its entry; returns the entry id (``None``: not written here)."""
        manager = self._state.manager
        role = message.get("role")
        if role == "custom":
            custom = cast(CustomMessage, message)
            entry_id = manager.append_custom_message(
                custom["customType"],
                custom.get("content") or "",
                bool(custom.get("display", True)),
                custom.get("details"),
            )
        elif role in _PERSISTED_AS_MESSAGE:
            entry_id = manager.append_message(message)
            if role == "assistant":
                self._retry.note_entry(cast(AssistantMessage, message), entry_id)
        else:
            return None
        return entry_id

    async def deliver(self, message: AgentMessage) -> None:
        """A message added outside the loop: ``message_start``/``message_end`` and its entry."""
        await self.process({"type": "message_start", "message": message})
        await self.process({"type": "message_end", "message": message})

    def defer(self, message: AgentMessage) -> None:
        """Append ``message`` when the current turn ends (or the run settles)."""
        self._deferred.append(message)

    def has_deferred(self) -> bool:
        return bool(self._deferred)

    async def flush_deferred(self) -> None:
        deferred = self._deferred
        while deferred:
            await self.deliver(deferred.pop(0))


def report_empty_continuation(state: SessionState, event: str) -> None:
    """A boundary handler asked to continue with nothing the model has not answered (Pi's words)."""
    state.extensions.report(BOUNDARY_PATH, event, f"{event} requested continuation without runnable model context")


def _last_assistant(messages: Sequence[object]) -> AssistantMessage | None:
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "assistant":
            return cast(AssistantMessage, message)
    return None


__all__ = ["BOUNDARY_PATH", "EventPump", "report_empty_continuation"]
