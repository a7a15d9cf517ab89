"""The session's steering and follow-up queues, as hosts see them.

The ``Agent`` holds the queued messages themselves (``pi_harness.agent.queues``); the session
keeps their texts for display (``get_steering_messages``, RPC ``clear_queue`` ...) and the queue
modes, which are saved in the settings. Every change emits ``queue_update`` with the full
remaining queues. A text leaves its queue when the user message carrying it starts, and the
``queue_update`` announcing that is emitted before the message's ``message_start``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, get_args

from pi_harness.agent import user_message
from pi_harness.agent.options import QueueMode
from pi_harness.ai.types import ImageContent
from pi_harness.coding.agent_session.session_events import QueueUpdateEvent
from pi_harness.coding.agent_session.session_state import SessionState

QueueKind = Literal["steer", "followUp"]
QUEUE_MODES: tuple[QueueMode, ...] = get_args(QueueMode)


def user_text(message: Mapping[str, object]) -> str:
    """The text a user sees in a message: string content, or its text blocks joined."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    texts = (block.get("text") for block in content if isinstance(block, dict) and block.get("type") == "text")
    return "".join(text for text in texts if isinstance(text, str))


class QueuedMessages:
    __slots__ = ("_state", "follow_up", "steering")

    def __init__(self, state: SessionState) -> None:
        self._state = state
        self.steering: list[str] = []
        self.follow_up: list[str] = []

    def event(self) -> QueueUpdateEvent:
        return {"type": "queue_update", "steering": list(self.steering), "followUp": list(self.follow_up)}

    @property
    def count(self) -> int:
        return len(self.steering) + len(self.follow_up)

    def has_pending(self) -> bool:
        """Texts waiting here, or messages waiting in the agent (extension messages have no text)."""
        return self.count > 0 or self._state.agent.has_queued_messages()

    async def add(self, kind: QueueKind, text: str, images: list[ImageContent] | None) -> None:
        """Queue ``text`` as a user message for the agent and show it in its queue."""
        agent = self._state.agent
        message = user_message(text, images)
        if kind == "steer":
            agent.steer(message)
            self.steering.append(text)
        else:
            agent.follow_up(message)
            self.follow_up.append(text)
        await self._state.events.emit(self.event())

    async def observe_user_text(self, text: str) -> None:
        """A user message with ``text`` is starting: drop the first queued copy of it, if any."""
        for queue in (self.steering, self.follow_up):
            if text in queue:
                queue.remove(text)
                await self._state.events.emit(self.event())
                return

    def clear(self) -> dict[str, list[str]]:
        """Empty the agent's queues and the texts; returns the texts they held."""
        self._state.agent.clear_all_queues()
        cleared = {"steering": list(self.steering), "followUp": list(self.follow_up)}
        if self.steering or self.follow_up:
            self.steering.clear()
            self.follow_up.clear()
            self._state.events.emit_soon(self.event())
        return cleared

    # -- modes -----------------------------------------------------------------------------------

    def set_steering_mode(self, mode: QueueMode) -> None:
        if mode not in QUEUE_MODES:
            raise ValueError(f"Invalid steering mode: {mode}")
        self._state.agent.set_steering_mode(mode)
        self._state.settings.set("steeringMode", mode)

    def set_follow_up_mode(self, mode: QueueMode) -> None:
        if mode not in QUEUE_MODES:
            raise ValueError(f"Invalid follow-up mode: {mode}")
        self._state.agent.set_follow_up_mode(mode)
        self._state.settings.set("followUpMode", mode)


__all__ = ["QUEUE_MODES", "QueueKind", "QueuedMessages", "user_text"]
