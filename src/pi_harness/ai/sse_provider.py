"""The request cycle every built-in HTTP provider shares.

Build the request, POST it, read its Server-Sent Events into the message builder, finish with
the stop reason they gave. A provider supplies only what differs: how the request is made from
the model, context and options (``prepare``) and how its events are read (``read``). Both run
inside the request task, so a failure in either becomes the stream's ``error`` event.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass

from pi_harness.ai.http import ErrorFormatter, default_error_message, open_event_stream
from pi_harness.ai.message_builder import MessageBuilder
from pi_harness.ai.options import StreamEventHook, StreamOptions
from pi_harness.ai.provider_stream import run_provider_stream
from pi_harness.ai.sse import ServerSentEvent
from pi_harness.ai.stream import AssistantMessageEventStream
from pi_harness.ai.types import Model, StopReason


@dataclass(frozen=True)
class SSERequest:
    url: str
    headers: Mapping[str, str]
    # Before ``extra_body`` and the payload hook, which ``open_event_stream`` applies.
    body: Mapping[str, object]
    format_error: ErrorFormatter = default_error_message


# Headers whose values are credentials.
CREDENTIAL_HEADERS = frozenset({"authorization", "x-api-key", "x-goog-api-key", "api-key", "proxy-authorization"})

# Reads the events into the builder; returns the stop reason (``None``: the content decides).
EventReader = Callable[[AsyncIterator[ServerSentEvent], MessageBuilder], Awaitable[StopReason | None]]


def stream_sse_request(
    model: Model,
    options: StreamOptions,
    prepare: Callable[[], SSERequest],
    read: EventReader,
    *,
    sequential: bool = True,
    end_blocks_on_abort: bool = False,
) -> AssistantMessageEventStream:
    """Run one request as a provider stream (see ``run_provider_stream``)."""

    async def prepared() -> SSERequest:
        return prepare()

    return stream_prepared_request(
        model, options, prepared, read, sequential=sequential, end_blocks_on_abort=end_blocks_on_abort
    )


def stream_prepared_request(
    model: Model,
    options: StreamOptions,
    prepare: Callable[[], Awaitable[SSERequest]],
    read: EventReader,
    *,
    sequential: bool = True,
    end_blocks_on_abort: bool = False,
) -> AssistantMessageEventStream:
    """``stream_sse_request`` for a request that needs awaiting before it is sent: fetching an
    OAuth access token (Vertex) or signing with credentials that may be refreshed (Bedrock) is
    I/O, and running it inside the request task makes its failure the stream's ``error`` event."""

    async def run(builder: MessageBuilder) -> None:
        builder.end_blocks_on_abort = end_blocks_on_abort
        builder.add_secret(options.api_key)
        request = await prepare()
        for name, value in request.headers.items():
            if name.lower() in CREDENTIAL_HEADERS:
                builder.add_secret(value)
        async with open_event_stream(
            request.url,
            headers=request.headers,
            body=request.body,
            model=model,
            options=options,
            format_error=request.format_error,
        ) as events:
            builder.start()
            hook = options.on_stream_event
            stop_reason = await read(events if hook is None else announced_events(events, hook, model), builder)
        builder.finish(stop_reason)

    return run_provider_stream(model, options.signal, run, sequential=sequential)


async def announced_events(
    events: AsyncIterator[ServerSentEvent], hook: StreamEventHook, model: Model
) -> AsyncIterator[ServerSentEvent]:
    """The events, each shown to ``hook`` parsed (JSON data only: ``[DONE]`` is not an event)."""
    async for event in events:
        try:
            data = json.loads(event.data)
        except ValueError:
            data = None
        if data is not None:
            outcome = hook(data, model)
            if inspect.isawaitable(outcome):
                await outcome
        yield event
