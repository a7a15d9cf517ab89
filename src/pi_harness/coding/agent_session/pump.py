"""The session's handling of every agent event, one at a time (agent-loop.md section 8.3).

The ``Agent`` awaits its listeners, so events reach this pump strictly in order. Per event:

1. session bookkeeping that must precede delivery (a queued text leaves the UI queue, with its
   ``queue_update``, before its user message starts; ``agent_end`` gains ``willRetry``);
2. extensions (``turn_start`` gains ``turnIndex``/``timestamp``; ``turn_end`` is delivered from the
   ``finish_turn`` hook, where its ``{continue: true}`` can still act);
3. session listeners;
4. persistence at ``message_end``: ``custom`` → ``custom_message`` entry; ``user``, ``assistant``,
   ``toolResult`` and ``system`` → ``message`` entry; ``bashExecution`` is written by the bash path
   and summaries have entries of their own;
5. follow-ups: a successful response ends a retry sequence and clears the overflow-recovery flag;
   custom messages deferred during the turn are appended at ``turn_end``.

Retry and compaction decisions after ``agent_end`` are made by the run driver once the low-level
run has returned.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, cast

from pi_harness.agent.hooks import FinishTurnContext, FinishTurnResult
from pi_harness.agent.types import AgentEvent, AgentMessage
from pi_harness.ai.abort import AbortSignal
from pi_harness.ai.types import AssistantMessage
from pi_harness.coding.agent_session.events import message_text

if TYPE_CHECKING:
    from pi_harness.coding.agent_session.agent_session import AgentSession

_PERSISTED_AS_MESSAGE = frozenset({"user", "assistant", "toolResult", "system"})


def _payload(event: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in event.items() if key != "type"}


class EventPump:
    def __init__(self, session: AgentSession) -> None:
        self._session = session
        self.turn_index = -1
        self._turn_end_delivered = False
        # The last assistant response of the latest low-level run (what the driver acts on).
        self.run_assistant: AssistantMessage | None = None

    async def __call__(self, event: AgentEvent) -> None:
        await self.process(cast(dict[str, Any], event))

    async def process(self, event: dict[str, Any]) -> None:
        session = self._session
        kind = event.get("type")
        message: Any = event.get("message")
        if kind == "agent_start":
            self.turn_index = -1
            self.run_assistant = None
        elif kind == "turn_start":
            self.turn_index += 1
            self._turn_end_delivered = False
        elif kind == "message_start" and isinstance(message, dict) and message.get("role") == "user":
            await session.queues.observe_user_text(message_text(message))
        elif kind == "agent_end":
            self.run_assistant = _last_assistant(event.get("messages") or [])
            will_retry = self.run_assistant is not None and session.retry.will_retry(self.run_assistant)
            event = {**event, "willRetry": will_retry}

        await self._to_extensions(kind, event)
        await session.listeners.emit(event)

        if kind == "message_end" and isinstance(message, dict):
            await self.persist(cast(AgentMessage, message))
            if message.get("role") == "assistant":
                await session.retry.on_response(cast(AssistantMessage, message))
                if message.get("stopReason") not in ("error", "aborted", "length"):
                    session.compaction.reset_overflow_recovery()
        elif kind == "turn_end":
            await session.flush_deferred_messages()

    async def _to_extensions(self, kind: Any, event: dict[str, Any]) -> None:
        extensions = self._session.extensions
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
        extensions = self._session.extensions
        self._turn_end_delivered = True
        if not extensions.has_handlers("turn_end"):
            return None
        payload = {
            "turnIndex": self.turn_index,
            "message": context.assistant_message,
            "toolResults": context.tool_results,
        }
        wants_more = await extensions.emit_actionable("turn_end", payload)
        return {"action": "continue"} if wants_more else None

    async def persist(self, message: AgentMessage) -> str | None:
        """Write a finished message as its entry; returns the entry id (``None``: not written here)."""
        session = self._session
        manager = session.session_manager
        role = message.get("role")
        if role == "custom":
            custom = cast(dict[str, Any], message)
            entry_id = manager.append_custom_message(
                custom["customType"],
                custom.get("content") or "",
                bool(custom.get("display", True)),
                custom.get("details"),
            )
        elif role in _PERSISTED_AS_MESSAGE:
            entry_id = manager.append_message(message)
            if role == "assistant":
                session.retry.note_entry(cast(AssistantMessage, message), entry_id)
        else:
            return None
        await session.record_entry_async(entry_id)
        return entry_id

    async def deliver(self, message: AgentMessage) -> None:
        """A message added outside the loop: ``message_start``/``message_end`` and its entry."""
        await self.process({"type": "message_start", "message": message})
        await self.process({"type": "message_end", "message": message})


def _last_assistant(messages: list[Any]) -> AssistantMessage | None:
    for message in reversed(messages):
        if isinstance(message, dict) and message.get("role") == "assistant":
            return cast(AssistantMessage, message)
    return None


__all__ = ["EventPump"]
