"""``faux``: an in-process, scripted provider for tests of the agent and coding layers.

Each ``FauxProvider`` owns a model (api ``faux``) and a queue of scripted responses. Streaming
goes through the same ``MessageBuilder`` as the HTTP providers, so events, usage, abort and
error semantics are identical; every request's context and options are recorded.

    faux = FauxProvider([faux_text("hello"), faux_response(faux_tool_call("read", {"path": "a"}))])
    message = await complete_simple(faux.model, {"messages": [...]})
"""

from __future__ import annotations

import asyncio
import itertools
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TypedDict, Unpack

from pi_harness.ai.json_values import JsonObject
from pi_harness.ai.jsonutil import dumps_str
from pi_harness.ai.message_builder import MessageBuilder
from pi_harness.ai.options import SimpleStreamOptions, StreamOptions
from pi_harness.ai.provider_stream import run_provider_stream
from pi_harness.ai.registry import ApiProvider
from pi_harness.ai.stream import AssistantMessageEventStream
from pi_harness.ai.types import (
    AssistantContent,
    Context,
    Model,
    ModelCost,
    StopReason,
    TextContent,
    ThinkingContent,
    ToolCall,
)

_ids = itertools.count(1)


@dataclass
class FauxResponse:
    """One scripted assistant response.

    ``error`` ends the stream with that message after the content was streamed (``stopReason``
    ``error``). ``delay`` seconds pass before every event, so a test can abort mid-stream.
    ``usage`` overrides the token counts (keys ``input``, ``output``, ``cacheRead``,
    ``cacheWrite``); by default they are estimated at 4 characters per token.
    """

    content: list[AssistantContent] = field(default_factory=list)
    stop_reason: StopReason | None = None
    usage: dict[str, int] | None = None
    error: str | None = None
    delay: float = 0.0
    chunk_size: int = 16


@dataclass
class FauxRequest:
    context: Context
    options: StreamOptions | None
    model: Model


class FauxPlayback(TypedDict, total=False):
    """How a scripted response is played: ``FauxResponse``'s fields besides content and error."""

    stop_reason: StopReason | None
    usage: dict[str, int] | None
    delay: float
    chunk_size: int


class FauxResponseFields(FauxPlayback, total=False):
    error: str | None


class FauxPrices(TypedDict, total=False):
    """Per-million-token prices of the faux model; unnamed ones are 0."""

    input: float
    output: float
    cacheRead: float
    cacheWrite: float
    cacheWrite1h: float


ResponseFactory = Callable[[Context, StreamOptions | None], FauxResponse]
Scripted = FauxResponse | ResponseFactory

_INSTANCES: dict[tuple[str, str], FauxProvider] = {}


def faux_text_block(text: str) -> TextContent:
    return {"type": "text", "text": text}


def faux_thinking_block(text: str, signature: str | None = None) -> ThinkingContent:
    block: ThinkingContent = {"type": "thinking", "thinking": text}
    if signature is not None:
        block["thinkingSignature"] = signature
    return block


def faux_tool_call(name: str, arguments: JsonObject, tool_call_id: str | None = None) -> ToolCall:
    return {
        "type": "toolCall",
        "id": tool_call_id or f"call_faux_{next(_ids)}",
        "name": name,
        "arguments": arguments,
    }


def faux_response(*blocks: AssistantContent | str, **kwargs: Unpack[FauxResponseFields]) -> FauxResponse:
    """A response from blocks; plain strings become text blocks."""
    content: list[AssistantContent] = [faux_text_block(b) if isinstance(b, str) else b for b in blocks]
    return FauxResponse(content=content, **kwargs)


def faux_text(text: str, **kwargs: Unpack[FauxResponseFields]) -> FauxResponse:
    return faux_response(text, **kwargs)


def faux_error(message: str, **kwargs: Unpack[FauxPlayback]) -> FauxResponse:
    return FauxResponse(content=[], error=message, **kwargs)


class FauxProvider:
    def __init__(
        self,
        responses: Iterable[Scripted] = (),
        *,
        provider: str = "faux",
        model_id: str | None = None,
        name: str = "Faux Model",
        context_window: int = 128_000,
        max_tokens: int = 16_384,
        reasoning: bool = False,
        input: list[str] | None = None,
        cost: FauxPrices | None = None,
    ) -> None:
        prices: ModelCost = {"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0, **(cost or {})}
        self.model: Model = {
            "id": model_id or f"faux-{next(_ids)}",
            "name": name,
            "api": "faux",
            "provider": provider,
            "baseUrl": "faux://local",
            "reasoning": reasoning,
            "input": input or ["text", "image"],
            "cost": prices,
            "contextWindow": context_window,
            "maxTokens": max_tokens,
        }
        self._queue: deque[Scripted] = deque(responses)
        self.requests: list[FauxRequest] = []
        _INSTANCES[(self.model["provider"], self.model["id"])] = self

    def push(self, *responses: Scripted) -> None:
        self._queue.extend(responses)

    @property
    def pending(self) -> int:
        return len(self._queue)

    def close(self) -> None:
        _INSTANCES.pop((self.model["provider"], self.model["id"]), None)

    def stream(self, model: Model, context: Context, options: StreamOptions | None) -> AssistantMessageEventStream:
        self.requests.append(FauxRequest(context=_snapshot(context), options=options, model=model))
        scripted = self._queue.popleft() if self._queue else None
        signal = options.signal if options is not None else None

        async def run(builder: MessageBuilder) -> None:
            if scripted is None:
                raise RuntimeError("Faux provider has no scripted response left")
            response = scripted(context, options) if callable(scripted) else scripted
            await _play(builder, response, context)

        return run_provider_stream(model, signal, run)


def _snapshot(context: Context) -> Context:
    snap: Context = {"messages": list(context.get("messages", []))}
    if "systemPrompt" in context:
        snap["systemPrompt"] = context["systemPrompt"]
    if "tools" in context:
        snap["tools"] = list(context["tools"])
    return snap


def _chunks(text: str, size: int) -> list[str]:
    if size <= 0 or len(text) <= size:
        return [text]
    return [text[i : i + size] for i in range(0, len(text), size)]


def _estimate_context_tokens(context: Context) -> int:
    chars = len(context.get("systemPrompt", ""))
    for message in context.get("messages", []):
        content = message.get("content")
        if isinstance(content, str):
            chars += len(content)
            continue
        for block in content or []:
            if not isinstance(block, dict):
                continue
            for key in ("text", "thinking"):
                value = block.get(key)
                if isinstance(value, str):
                    chars += len(value)
            if block.get("type") == "toolCall":
                chars += len(dumps_str(block.get("arguments", {})))
    return chars // 4


async def _play(builder: MessageBuilder, response: FauxResponse, context: Context) -> None:
    async def tick() -> None:
        if response.delay > 0:
            await asyncio.sleep(response.delay)

    await tick()
    builder.start()
    output_chars = 0
    for index, block in enumerate(response.content):
        if block["type"] == "text":
            builder.open_text(index, signature=block.get("textSignature"))
            for piece in _chunks(block["text"], response.chunk_size):
                await tick()
                builder.append(index, piece)
            output_chars += len(block["text"])
        elif block["type"] == "thinking":
            builder.open_thinking(
                index,
                signature=block.get("thinkingSignature"),
                redacted=bool(block.get("redacted")),
            )
            for piece in _chunks(block["thinking"], response.chunk_size):
                await tick()
                builder.append(index, piece)
            output_chars += len(block["thinking"])
        elif block["type"] == "toolCall":
            builder.open_tool_call(index, block["id"], block["name"])
            raw = dumps_str(block["arguments"])
            for piece in _chunks(raw, response.chunk_size):
                await tick()
                builder.append(index, piece)
            output_chars += len(raw)
        await tick()
        builder.close(index)
    usage = response.usage or {}
    builder.set_usage(
        input=usage["input"] if "input" in usage else _estimate_context_tokens(context),
        output=usage.get("output", output_chars // 4),
        cache_read=usage.get("cacheRead", 0),
        cache_write=usage.get("cacheWrite", 0),
    )
    if response.error is not None:
        builder.fail(response.error)
        return
    builder.finish(response.stop_reason)


def _dispatch(model: Model, context: Context, options: StreamOptions | None) -> AssistantMessageEventStream:
    instance = _INSTANCES.get((model["provider"], model["id"]))
    if instance is None:
        signal = options.signal if options is not None else None

        async def missing(_builder: MessageBuilder) -> None:
            raise RuntimeError(f"No faux provider for model {model['provider']}/{model['id']}")

        return run_provider_stream(model, signal, missing)
    return instance.stream(model, context, options)


def _dispatch_simple(
    model: Model, context: Context, options: SimpleStreamOptions | None
) -> AssistantMessageEventStream:
    return _dispatch(model, context, options)


PROVIDER = ApiProvider(api="faux", stream=_dispatch, stream_simple=_dispatch_simple, requires_api_key=False)
