"""Builds the streamed ``AssistantMessage`` and emits the matching events.

Every provider (built-in, faux, or registered by an extension) drives one ``MessageBuilder``,
so the event protocol (``start`` first, each block opened and closed, exactly one terminal event,
failures as events; see ``events``) is implemented once.
"""

from __future__ import annotations

import time
from collections.abc import Hashable
from typing import Literal, TypeAlias

from pi_harness.ai.abort import AbortSignal
from pi_harness.ai.cost import finalize_usage
from pi_harness.ai.events import DoneEvent, DoneReason, ErrorEvent
from pi_harness.ai.json_values import JsonObject
from pi_harness.ai.partial_json import StreamingJsonParser, parse_streaming_json, parse_tool_call_arguments
from pi_harness.ai.stream import AssistantMessageEventStream
from pi_harness.ai.types import (
    AssistantContent,
    AssistantMessage,
    Model,
    StopReason,
    TextContent,
    ThinkingContent,
    ToolCall,
    new_assistant_message,
)

BlockKind = Literal["text", "thinking", "toolCall"]
# How a provider names a block: an SSE content index, a tool-call index, an output item id...
BlockKey: TypeAlias = Hashable

UNKNOWN_ERROR = "An unknown error occurred"
_DONE: tuple[DoneReason, ...] = ("stop", "length", "toolUse", "deferred")
# Each stop reason of a successful response as itself; ``get`` answers None for the others.
_DONE_REASONS: dict[StopReason, DoneReason] = {reason: reason for reason in _DONE}
ABORTED_MESSAGE = "Request was aborted"
REDACTED = "[redacted]"
# Shorter values are not treated as secrets: replacing them would mangle ordinary words.
_MIN_SECRET_LENGTH = 8


def now_ms() -> int:
    return int(time.time() * 1000)


class _OpenBlock:
    __slots__ = ("buffer", "index", "kind", "parser")

    def __init__(self, kind: BlockKind, index: int) -> None:
        self.kind = kind
        self.index = index
        self.parser: StreamingJsonParser | None = StreamingJsonParser(throttle=True) if kind == "toolCall" else None
        self.buffer: list[str] | None = [] if kind != "toolCall" else None


class MessageBuilder:
    """Accumulates one assistant response and pushes its events onto ``stream``.

    Blocks are addressed by a provider-chosen ``key`` (an SSE content index, a tool-call index,
    an output item id...). With ``sequential=True`` opening a block closes every open one, which
    is how the OpenAI-style APIs behave.
    """

    def __init__(
        self,
        model: Model,
        stream: AssistantMessageEventStream | None = None,
        signal: AbortSignal | None = None,
        *,
        sequential: bool = True,
    ) -> None:
        self.model = model
        self.stream = stream if stream is not None else AssistantMessageEventStream()
        self.signal = signal
        self.sequential = sequential
        self.output: AssistantMessage = new_assistant_message(model, now_ms())
        self._open: dict[BlockKey, _OpenBlock] = {}
        self._started = False
        self._finished = False
        # Credentials of the request (API key, auth header values): never part of an error text.
        self._secrets: set[str] = set()
        # Whether an abort still ends the open blocks (``*_end`` events) before the error, as
        # Pi's Chat Completions stream does; the other APIs stop mid-block.
        self.end_blocks_on_abort = False
        # The text of an abort that cancels the request (a provider may word it its own way).
        self.abort_message = ABORTED_MESSAGE

    def add_secret(self, value: str | None) -> None:
        """Keep ``value`` (and the forms an error may quote it in) out of the error message."""
        if not value:
            return
        for form in (value, value.encode("unicode_escape").decode("ascii"), *value.splitlines()):
            stripped = form.strip()
            if len(stripped) >= _MIN_SECRET_LENGTH:
                self._secrets.add(stripped)

    def redact(self, text: str) -> str:
        for secret in sorted(self._secrets, key=len, reverse=True):
            text = text.replace(secret, REDACTED)
        return text

    # -- lifecycle ---------------------------------------------------------------------------

    @property
    def started(self) -> bool:
        return self._started

    @property
    def finished(self) -> bool:
        return self._finished

    def start(self) -> None:
        if not self._started:
            self._started = True
            self.stream.push({"type": "start", "partial": self.output})

    def finish(self, stop_reason: StopReason | None = None) -> None:
        """Close open blocks and emit ``done`` (or ``error`` for an error/aborted stop)."""
        if self._finished:
            return
        self.start()
        self.close_all()
        reason = stop_reason or self._default_stop_reason()
        if self.signal is not None and self.signal.aborted:
            self.fail(ABORTED_MESSAGE)
            return
        if reason in ("error", "aborted"):
            self.output["stopReason"] = reason
            self.fail(self.output.get("errorMessage") or UNKNOWN_ERROR)
            return
        # "pending" is not a final reason: the content decides, as when none is given.
        done_reason = _DONE_REASONS.get(reason) or self._default_stop_reason()
        self.output["stopReason"] = done_reason
        self._finished = True
        done: DoneEvent = {"type": "done", "reason": done_reason, "message": self.output}
        self.stream.push(done)
        self.stream.end()

    def fail(self, error: BaseException | str) -> None:
        """Terminal failure: keep partial content and usage; ``aborted`` iff the signal fired."""
        if self._finished:
            return
        if self.end_blocks_on_abort and self.signal is not None and self.signal.aborted:
            self.close_all()
        self._finished = True
        for block in list(self._open.values()):
            self._settle_tool_arguments(block)
        self._open.clear()
        aborted = self.signal is not None and self.signal.aborted
        message = error if isinstance(error, str) else _error_text(error)
        if aborted and (not message or (isinstance(error, BaseException) and _is_cancel(error))):
            message = self.abort_message
        self.output["stopReason"] = "aborted" if aborted else "error"
        self.output["errorMessage"] = self.redact(message) or UNKNOWN_ERROR
        event: ErrorEvent = {
            "type": "error",
            "reason": "aborted" if aborted else "error",
            "error": self.output,
        }
        self.stream.push(event)
        self.stream.end()

    def _default_stop_reason(self) -> DoneReason:
        if any(block["type"] == "toolCall" for block in self.output["content"]):
            return "toolUse"
        return "stop"

    # -- usage -------------------------------------------------------------------------------

    def set_usage(
        self,
        *,
        input: int | None = None,
        output: int | None = None,
        cache_read: int | None = None,
        cache_write: int | None = None,
        cache_write_1h: int | None = None,
        reasoning: int | None = None,
        total: int | None = None,
    ) -> None:
        """Overwrite the counts that are given (``None`` keeps the current value) and re-price."""
        usage = self.output["usage"]
        if input is not None:
            usage["input"] = max(0, int(input))
        if output is not None:
            usage["output"] = max(0, int(output))
        if cache_read is not None:
            usage["cacheRead"] = max(0, int(cache_read))
        if cache_write is not None:
            usage["cacheWrite"] = max(0, int(cache_write))
        if cache_write_1h is not None:
            usage["cacheWrite1h"] = max(0, int(cache_write_1h))
        if reasoning is not None:
            usage["reasoning"] = max(0, int(reasoning))
        finalize_usage(self.model, usage)
        if total is not None and total > usage["totalTokens"]:
            usage["totalTokens"] = int(total)

    # -- blocks ------------------------------------------------------------------------------

    def is_open(self, key: BlockKey) -> bool:
        return key in self._open

    def open_kind(self, key: BlockKey) -> BlockKind | None:
        block = self._open.get(key)
        return block.kind if block else None

    def open_text(self, key: BlockKey = "text", *, signature: str | None = None) -> None:
        self._before_open(key)
        content: TextContent = {"type": "text", "text": ""}
        if signature is not None:
            content["textSignature"] = signature
        self._append_block(key, "text", content)
        self.stream.push({"type": "text_start", "contentIndex": self._open[key].index, "partial": self.output})

    def open_thinking(
        self, key: BlockKey = "thinking", *, signature: str | None = None, redacted: bool = False
    ) -> None:
        self._before_open(key)
        content: ThinkingContent = {"type": "thinking", "thinking": ""}
        if signature is not None:
            content["thinkingSignature"] = signature
        if redacted:
            content["redacted"] = True
        self._append_block(key, "thinking", content)
        self.stream.push({"type": "thinking_start", "contentIndex": self._open[key].index, "partial": self.output})

    def open_tool_call(
        self,
        key: BlockKey,
        tool_call_id: str,
        name: str,
        *,
        arguments: JsonObject | None = None,
        thought_signature: str | None = None,
    ) -> None:
        self._before_open(key)
        content: ToolCall = {
            "type": "toolCall",
            "id": tool_call_id,
            "name": name,
            "arguments": arguments or {},
        }
        if thought_signature is not None:
            content["thoughtSignature"] = thought_signature
        self._append_block(key, "toolCall", content)
        self.stream.push({"type": "toolcall_start", "contentIndex": self._open[key].index, "partial": self.output})

    def append(self, key: BlockKey, delta: str) -> None:
        """Append text, thinking or a raw JSON fragment of tool arguments to an open block."""
        block = self._open[key]
        content = self.output["content"][block.index]
        if content["type"] == "toolCall":
            assert block.parser is not None
            content["arguments"] = block.parser.feed(delta)
            self.stream.push(
                {
                    "type": "toolcall_delta",
                    "contentIndex": block.index,
                    "delta": delta,
                    "partial": self.output,
                }
            )
            return
        if not delta:
            return
        assert block.buffer is not None
        block.buffer.append(delta)
        if content["type"] == "text":
            text = content["text"]
            content["text"] = ""  # detached so CPython extends the string in place
            text += delta
            content["text"] = text
            self.stream.push(
                {"type": "text_delta", "contentIndex": block.index, "delta": delta, "partial": self.output}
            )
        else:
            thinking = content["thinking"]
            content["thinking"] = ""
            thinking += delta
            content["thinking"] = thinking
            self.stream.push(
                {
                    "type": "thinking_delta",
                    "contentIndex": block.index,
                    "delta": delta,
                    "partial": self.output,
                }
            )

    def block(self, key: BlockKey) -> AssistantContent:
        """The content dict of an open block, for provider metadata (signatures, ids)."""
        return self.output["content"][self._open[key].index]

    def text_block(self, key: BlockKey) -> TextContent:
        """The open text block ``key`` (a provider's own bookkeeping says it is one)."""
        content = self.block(key)
        assert content["type"] == "text", f"block {key!r} is {content['type']}, not text"
        return content

    def thinking_block(self, key: BlockKey) -> ThinkingContent:
        content = self.block(key)
        assert content["type"] == "thinking", f"block {key!r} is {content['type']}, not thinking"
        return content

    def tool_call_block(self, key: BlockKey) -> ToolCall:
        content = self.block(key)
        assert content["type"] == "toolCall", f"block {key!r} is {content['type']}, not a tool call"
        return content

    def close(self, key: BlockKey) -> None:
        block = self._open.pop(key, None)
        if block is None:
            return
        content = self.output["content"][block.index]
        if content["type"] == "toolCall":
            self._finalize_tool_arguments(block)
            self.stream.push(
                {
                    "type": "toolcall_end",
                    "contentIndex": block.index,
                    "toolCall": content,
                    "partial": self.output,
                }
            )
        elif content["type"] == "text":
            self.stream.push(
                {
                    "type": "text_end",
                    "contentIndex": block.index,
                    "content": content["text"],
                    "partial": self.output,
                }
            )
        else:
            self.stream.push(
                {
                    "type": "thinking_end",
                    "contentIndex": block.index,
                    "content": content["thinking"],
                    "partial": self.output,
                }
            )

    def close_all(self) -> None:
        for key in sorted(self._open, key=lambda k: self._open[k].index):
            self.close(key)

    # -- sequential conveniences ---------------------------------------------------------------

    def text(self, delta: str, *, key: BlockKey = "text") -> None:
        """Append text, opening a text block (and closing others) when needed."""
        if self.open_kind(key) != "text":
            self.open_text(key)
        self.append(key, delta)

    def thinking(self, delta: str, *, key: BlockKey = "thinking", signature: str | None = None) -> None:
        if self.open_kind(key) != "thinking":
            self.open_thinking(key, signature=signature)
        self.append(key, delta)

    # -- internals ---------------------------------------------------------------------------

    def _before_open(self, key: BlockKey) -> None:
        self.start()
        if key in self._open:
            self.close(key)
        if self.sequential:
            self.close_all()

    def _append_block(self, key: BlockKey, kind: BlockKind, content: AssistantContent) -> None:
        self.output["content"].append(content)
        self._open[key] = _OpenBlock(kind, len(self.output["content"]) - 1)

    def _finalize_tool_arguments(self, block: _OpenBlock) -> None:
        """A finished call's arguments are its complete text parsed strictly: a call cut off or
        malformed keeps ``{}`` and ``argumentsError``, which makes the tool refuse to run."""
        content = self.output["content"][block.index]
        if content["type"] != "toolCall" or block.parser is None:
            return
        text = block.parser.buffer
        if not text.strip():
            return
        arguments, error = parse_tool_call_arguments(text)
        content["arguments"] = arguments
        if error is not None:
            content["argumentsError"] = error

    def _settle_tool_arguments(self, block: _OpenBlock) -> None:
        """Best-effort arguments of a call cut off by a failure, for display (it never runs)."""
        content = self.output["content"][block.index]
        if content["type"] != "toolCall" or block.parser is None:
            return
        text = block.parser.buffer
        if text.strip():
            content["arguments"] = parse_streaming_json(text)


def _is_cancel(error: BaseException) -> bool:
    import asyncio

    return isinstance(error, asyncio.CancelledError)


def _error_text(error: BaseException) -> str:
    import asyncio

    if isinstance(error, asyncio.CancelledError):
        return ABORTED_MESSAGE
    text = str(error)
    return text if text else type(error).__name__
