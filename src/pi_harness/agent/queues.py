"""The steering and follow-up queues: messages that wait for the running turn to end.

Each queue has a mode: ``one-at-a-time`` (default) hands out the oldest message per poll,
``all`` drains the whole queue. The loop only needs ``poll`` and ``len`` (``MessageSource``).
"""

from __future__ import annotations

from collections import deque
from typing import Protocol

from pi_harness.agent.options import DEFAULT_QUEUE_MODE, QueueMode
from pi_harness.agent.types import AgentMessage


class MessageSource(Protocol):
    def poll(self) -> list[AgentMessage]: ...

    def __len__(self) -> int: ...


class MessageQueue:
    __slots__ = ("_items", "mode")

    def __init__(self, mode: QueueMode = DEFAULT_QUEUE_MODE) -> None:
        self.mode: QueueMode = mode
        self._items: deque[AgentMessage] = deque()

    def push(self, message: AgentMessage) -> None:
        self._items.append(message)

    def poll(self) -> list[AgentMessage]:
        """The messages due now: the oldest one, or all of them in ``all`` mode."""
        if not self._items:
            return []
        if self.mode == "all":
            return self.clear()
        return [self._items.popleft()]

    def clear(self) -> list[AgentMessage]:
        """Empty the queue and return what it held, oldest first."""
        items = list(self._items)
        self._items.clear()
        return items

    def snapshot(self) -> list[AgentMessage]:
        return list(self._items)

    def __len__(self) -> int:
        return len(self._items)
