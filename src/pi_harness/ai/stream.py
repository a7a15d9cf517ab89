"""``AssistantMessageEventStream``: an async iterable of events plus an awaitable result.

Producers ``push`` events and ``end`` the stream; any number of consumers may iterate (each sees
every event from the start) and ``await result()``. After the terminal event (``done``/``error``)
further pushes are ignored, so a provider can never emit two endings.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Protocol

from pi_harness.ai.events import AssistantMessageEvent
from pi_harness.ai.types import AssistantMessage


class Relay(Protocol):
    """What ``relay_to`` hands the events of a stream to."""

    def event(self, event: AssistantMessageEvent) -> None: ...

    def ended(self, result: AssistantMessage | None) -> None: ...


class AssistantMessageEventStream:
    __slots__ = (
        "_closed",
        "_events",
        "_relay",
        "_result",
        "_result_future",
        "_started_at",
        "_started_monotonic",
        "_waiters",
    )

    def __init__(self) -> None:
        # The final message is timed from here (``durationMs``), on a monotonic clock.
        self._started_at = int(time.time() * 1000)
        self._started_monotonic = time.perf_counter()
        self._events: list[AssistantMessageEvent] = []
        self._closed = False
        self._result: AssistantMessage | None = None
        # One future per waiting consumer: cancelling one consumer cancels only its own (no
        # ``shield``, which costs a second future and callbacks on every wait).
        self._waiters: list[asyncio.Future[None]] = []
        self._result_future: asyncio.Future[AssistantMessage | None] | None = None
        self._relay: Relay | None = None

    @property
    def closed(self) -> bool:
        return self._closed

    def relay_to(self, relay: Relay) -> None:
        """Hand every later event to ``relay`` as it is pushed, and the end of the stream: a
        filter between a producer and its consumers without a task of its own (whose every event
        would wait for another turn of the event loop). Events pushed before are handed on first."""
        self._relay = relay
        for event in self._events:
            relay.event(event)
        if self._closed:
            relay.ended(self._result)

    def push(self, event: AssistantMessageEvent) -> None:
        if self._closed:
            return
        if event["type"] == "done":
            self._time(event["message"])
        elif event["type"] == "error":
            self._time(event["error"])
        self._events.append(event)
        if self._relay is not None:
            self._relay.event(event)
        if event["type"] == "done":
            self._result = event["message"]
            self._close()
        elif event["type"] == "error":
            self._result = event["error"]
            self._close()
        else:
            self._wake()

    def end(self, result: AssistantMessage | None = None) -> None:
        if self._closed:
            return
        if result is not None:
            self._time(result)
            self._result = result
        self._close()

    def _time(self, message: AssistantMessage) -> None:
        # A message that is already timed, or that started before this stream (one forwarded
        # from elsewhere), keeps what it has.
        if "durationMs" in message or message["timestamp"] < self._started_at:
            return
        message["durationMs"] = max(0, round((time.perf_counter() - self._started_monotonic) * 1000))

    def _close(self) -> None:
        self._closed = True
        if self._relay is not None:
            self._relay.ended(self._result)
        self._wake()
        if self._result_future is not None and not self._result_future.done():
            self._result_future.set_result(self._result)

    def _wake(self) -> None:
        waiters = self._waiters
        if waiters:
            self._waiters = []
            for waiter in waiters:
                if not waiter.done():
                    waiter.set_result(None)

    async def __aiter__(self) -> AsyncIterator[AssistantMessageEvent]:
        index = 0
        while True:
            while index < len(self._events):
                event = self._events[index]
                index += 1
                yield event
            if self._closed:
                return
            waiter = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            await waiter

    async def result(self) -> AssistantMessage:
        """The final message; resolves once the stream has ended. Never raises for request failures."""
        if not self._closed:
            if self._result_future is None:
                self._result_future = asyncio.get_running_loop().create_future()
            await asyncio.shield(self._result_future)
        if self._result is None:
            raise RuntimeError("stream ended without a result")
        return self._result


def create_assistant_message_event_stream() -> AssistantMessageEventStream:
    """Factory for extension-supplied ``stream_simple`` implementations."""
    return AssistantMessageEventStream()
