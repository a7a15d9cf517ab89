"""Helpers the provider tests share: drain a stream, and the one-message context most of them send."""

from __future__ import annotations

from typing import Any

from pi_harness.ai.types import AssistantMessage, Context


async def collect(events_stream: Any) -> tuple[list[dict[str, Any]], AssistantMessage]:
    """Every event of ``events_stream``, then its final message."""
    events = [event async for event in events_stream]
    return events, await events_stream.result()


def hello(system_prompt: str | None = None) -> Context:
    """One user message saying "Hello" (with ``system_prompt`` when given)."""
    context: Context = {"messages": [{"role": "user", "content": "Hello", "timestamp": 1}]}
    if system_prompt is not None:
        context["systemPrompt"] = system_prompt
    return context
