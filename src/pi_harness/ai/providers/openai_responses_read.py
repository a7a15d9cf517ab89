"""The event reader every Responses-API provider shares (OpenAI, Azure, Codex).

A small module of its own so that providers other than ``openai-responses`` can read the stream
without reaching into that provider's private helpers.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from pi_harness.ai.message_builder import MessageBuilder
from pi_harness.ai.providers.openai_responses_events import ResponsesStreamReader
from pi_harness.ai.sse import ServerSentEvent
from pi_harness.ai.types import StopReason


async def read_responses_events(events: AsyncIterator[ServerSentEvent], builder: MessageBuilder) -> StopReason | None:
    """Feed the events to a ``ResponsesStreamReader`` until its terminal event; the stop reason."""
    reader = ResponsesStreamReader(builder)
    async for event in events:
        reader.feed(event)
        if reader.terminated:
            break
    return reader.result()
