"""``stream_sse_request`` for providers whose request needs awaiting before it is sent.

Fetching an OAuth access token (Vertex) or signing with credentials that may have to be
refreshed (Bedrock) is I/O; it runs inside the request task, so a failure there is the stream's
``error`` event like any other. Everything else is ``sse_provider``'s cycle.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from pi_harness.ai.http import open_event_stream
from pi_harness.ai.message_builder import MessageBuilder
from pi_harness.ai.options import StreamOptions
from pi_harness.ai.provider_stream import run_provider_stream
from pi_harness.ai.sse_provider import CREDENTIAL_HEADERS, EventReader, SSERequest
from pi_harness.ai.stream import AssistantMessageEventStream
from pi_harness.ai.types import Model


def stream_prepared_request(
    model: Model,
    options: StreamOptions,
    prepare: Callable[[], Awaitable[SSERequest]],
    read: EventReader,
    *,
    sequential: bool = True,
) -> AssistantMessageEventStream:
    async def run(builder: MessageBuilder) -> None:
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
            stop_reason = await read(events, builder)
        builder.finish(stop_reason)

    return run_provider_stream(model, options.signal, run, sequential=sequential)
