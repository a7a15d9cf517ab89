"""Runs one provider request as a task that can only end in a terminal event.

``run_provider_stream`` returns the stream at once; the request coroutine runs in a task that
owns the output message. Every exception, including cancellation by the abort signal, becomes
the ``error`` terminal event, so callers never see a raise.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from pi_harness.ai.abort import AbortSignal
from pi_harness.ai.message_builder import ABORTED_MESSAGE, MessageBuilder
from pi_harness.ai.stream import AssistantMessageEventStream
from pi_harness.ai.types import Model

UNFINISHED_MESSAGE = "Provider request ended without a result"

RequestRunner = Callable[[MessageBuilder], Awaitable[None]]

# Tasks are referenced here until they finish so the event loop cannot collect them mid-request.
_RUNNING: set[asyncio.Task[None]] = set()


def run_provider_stream(
    model: Model,
    signal: AbortSignal | None,
    run: RequestRunner,
    *,
    sequential: bool = True,
) -> AssistantMessageEventStream:
    """Start ``run(builder)`` in a task; its outcome is delivered only as stream events.

    ``run`` pushes content through the builder and calls ``builder.finish(...)``; if it returns
    without finishing, the stream is finished with the stop reason the content implies.
    """
    stream = AssistantMessageEventStream()
    builder = MessageBuilder(model, stream, signal, sequential=sequential)

    if signal is not None and signal.aborted:
        builder.fail(ABORTED_MESSAGE)
        return stream

    async def main() -> None:
        try:
            await run(builder)
            if not builder.finished:
                builder.finish()
        except asyncio.CancelledError as exc:
            builder.fail(exc)
        except Exception as exc:
            builder.fail(exc)

    task = asyncio.get_running_loop().create_task(main())
    _RUNNING.add(task)

    def on_abort(_reason: object) -> None:
        if not task.done():
            task.cancel()

    if signal is not None:
        signal.add_listener(on_abort)

    def on_done(t: asyncio.Task[None]) -> None:
        _RUNNING.discard(t)
        if signal is not None:
            signal.remove_listener(on_abort)
        # A task cancelled before its first step never enters ``main`` (the abort fired right
        # after the call, before the loop ran it): it must still end with a terminal event.
        if not builder.finished:
            builder.fail(asyncio.CancelledError() if t.cancelled() else RuntimeError(UNFINISHED_MESSAGE))

    task.add_done_callback(on_done)
    return stream
