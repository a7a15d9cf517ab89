"""The session's UI view of queued steering and follow-up messages (agent-loop.md section 5.4).

The ``Agent`` holds the queued messages themselves; the session keeps their texts for display
(``get_steering_messages``, RPC ``clear_queue`` ...). Every change emits ``queue_update`` with the
full remaining queues. A text leaves its queue when the user message carrying it starts, and the
``queue_update`` announcing that is emitted before the message's ``message_start``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Literal

from pi_harness.coding.agent_session.events import QueueUpdateEvent

QueueKind = Literal["steer", "followUp"]


class UiQueues:
    __slots__ = ("_emit", "_emit_soon", "follow_up", "steering")

    def __init__(
        self,
        emit: Callable[[dict[str, Any]], Awaitable[None]],
        emit_soon: Callable[[dict[str, Any]], None],
    ) -> None:
        self.steering: list[str] = []
        self.follow_up: list[str] = []
        self._emit = emit
        self._emit_soon = emit_soon

    def event(self) -> QueueUpdateEvent:
        return {"type": "queue_update", "steering": list(self.steering), "followUp": list(self.follow_up)}

    @property
    def count(self) -> int:
        return len(self.steering) + len(self.follow_up)

    async def add(self, kind: QueueKind, text: str) -> None:
        (self.steering if kind == "steer" else self.follow_up).append(text)
        await self._emit(dict(self.event()))

    async def observe_user_text(self, text: str) -> None:
        """A user message with ``text`` is starting: drop the first queued copy of it, if any."""
        for queue in (self.steering, self.follow_up):
            if text in queue:
                queue.remove(text)
                await self._emit(dict(self.event()))
                return

    def clear(self) -> dict[str, list[str]]:
        """Empty both queues; returns what they held."""
        cleared = {"steering": list(self.steering), "followUp": list(self.follow_up)}
        if self.steering or self.follow_up:
            self.steering.clear()
            self.follow_up.clear()
            self._emit_soon(dict(self.event()))
        return cleared
