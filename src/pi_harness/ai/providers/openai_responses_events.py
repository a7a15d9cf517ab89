"""Reads an OpenAI Responses event stream into a ``MessageBuilder``.

Each output item becomes one content block, keyed by its ``output_index``: ``reasoning`` →
thinking (summary parts joined by a blank line, signature = the finished item as JSON),
``message`` → text (signature = the item id, see ``encode_text_signature``), ``function_call`` →
tool call with id ``call_id|item_id``. ``response.completed``/``response.incomplete`` carry usage
and decide the stop reason; ``response.failed`` and ``error`` end the stream with an error.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping

from pi_harness.ai.json_values import as_count, as_list, as_object
from pi_harness.ai.jsonutil import dumps_str, loads
from pi_harness.ai.message_builder import MessageBuilder
from pi_harness.ai.providers.openai_responses_convert import encode_text_signature
from pi_harness.ai.sse import ServerSentEvent
from pi_harness.ai.types import StopReason

# Said when the body ends before a terminal event; "terminated" lets retry classification see
# it as a transient failure, like a dropped connection.
STREAM_ENDED_EARLY = "Connection terminated: the stream ended before the response was completed"

_TEXT_DELTAS = frozenset({"response.output_text.delta", "response.refusal.delta"})
_THINKING_DELTAS = frozenset({"response.reasoning_summary_text.delta", "response.reasoning_text.delta"})
_TERMINAL = frozenset({"response.completed", "response.incomplete", "response.failed"})


class ResponsesStreamError(Exception):
    """The service reported a failure inside the stream (``error`` / ``response.failed``)."""


class ResponsesStreamReader:
    def __init__(self, builder: MessageBuilder) -> None:
        self.builder = builder
        self.terminated = False
        self.stop_reason: StopReason | None = None
        self._arguments: dict[Hashable, str] = {}  # tool-call key -> argument JSON received so far
        self._summary_parts: dict[Hashable, int] = {}  # reasoning key -> summary parts started

    # -- entry points ------------------------------------------------------------------------

    def feed(self, event: ServerSentEvent) -> None:
        if not event.data or event.data == "[DONE]":
            return
        try:
            data = loads(event.data)
        except ValueError:
            raise ValueError(f"Malformed stream data from the Responses API: {event.data[:200]}") from None
        if not isinstance(data, dict):
            raise ValueError(f"Malformed stream data from the Responses API: {event.data[:200]}")
        event_type = data.get("type") or event.event
        self.handle(str(event_type), data)

    def result(self) -> StopReason | None:
        """The stop reason once a terminal event arrived (``None``: the content decides)."""
        if not self.terminated:
            raise ConnectionError(STREAM_ENDED_EARLY)
        return self.stop_reason

    def finish(self) -> None:
        self.builder.finish(self.result())

    # -- dispatch ----------------------------------------------------------------------------

    def handle(self, event_type: str, data: Mapping[str, object]) -> None:
        if event_type in ("response.created", "response.in_progress", "response.queued"):
            self._remember_response_id(data.get("response"))
        elif event_type == "response.output_item.added":
            self._item_added(_key(data), as_object(data.get("item")))
        elif event_type == "response.reasoning_summary_part.added":
            key = _key(data)
            self._ensure_thinking(key)
            started = self._summary_parts.get(key, 0)
            if started:
                self.builder.append(key, "\n\n")
            self._summary_parts[key] = started + 1
        elif event_type in _THINKING_DELTAS:
            key = _key(data)
            self._ensure_thinking(key)
            self.builder.append(key, str(data.get("delta", "")))
        elif event_type in _TEXT_DELTAS:
            key = _key(data)
            self._ensure_text(key)
            self.builder.append(key, str(data.get("delta", "")))
        elif event_type == "response.function_call_arguments.delta":
            key = _key(data)
            if self.builder.open_kind(key) == "toolCall":
                delta = str(data.get("delta", ""))
                self._arguments[key] = self._arguments.get(key, "") + delta
                self.builder.append(key, delta)
        elif event_type == "response.function_call_arguments.done":
            key = _key(data)
            if self.builder.open_kind(key) == "toolCall":
                self._complete_arguments(key, data.get("arguments"))
        elif event_type == "response.output_item.done":
            self._item_done(_key(data), as_object(data.get("item")))
        elif event_type in _TERMINAL:
            self._terminal(event_type, as_object(data.get("response")))
        elif event_type == "error":
            raise ResponsesStreamError(_error_text(data.get("code"), data.get("message")))
        # Other events (content_part.*, *.done texts, annotations, hosted tools) carry nothing new.

    # -- output items ------------------------------------------------------------------------

    def _item_added(self, key: Hashable, item: Mapping[str, object]) -> None:
        kind = item.get("type")
        if kind == "reasoning":
            self.builder.open_thinking(key)
            self._summary_parts[key] = 0
        elif kind == "message":
            self.builder.open_text(key)
        elif kind == "function_call":
            self._open_tool_call(key, item)

    def _open_tool_call(self, key: Hashable, item: Mapping[str, object]) -> None:
        call_id = str(item.get("call_id") or "")
        item_id = item.get("id")
        tool_call_id = f"{call_id}|{item_id}" if item_id else call_id
        self.builder.open_tool_call(key, tool_call_id, str(item.get("name") or ""))
        self._arguments[key] = ""
        initial = item.get("arguments")
        if isinstance(initial, str) and initial:
            self._arguments[key] = initial
            self.builder.append(key, initial)

    def _item_done(self, key: Hashable, item: Mapping[str, object]) -> None:
        kind = item.get("type")
        if kind == "reasoning":
            self._ensure_thinking(key)
            if not self.builder.thinking_block(key)["thinking"]:
                summary = "\n\n".join(
                    str(part.get("text", "")) for part in as_list(item.get("summary")) if isinstance(part, dict)
                )
                self.builder.append(key, summary)
            self.builder.thinking_block(key)["thinkingSignature"] = dumps_str(item)
            self.builder.close(key)
        elif kind == "message":
            self._ensure_text(key)
            if not self.builder.text_block(key)["text"]:
                self.builder.append(key, _message_text(item))
            item_id = item.get("id")
            if isinstance(item_id, str):
                phase = item.get("phase")
                self.builder.text_block(key)["textSignature"] = encode_text_signature(
                    item_id, phase if isinstance(phase, str) else None
                )
            self.builder.close(key)
        elif kind == "function_call":
            if self.builder.open_kind(key) != "toolCall":
                self._open_tool_call(key, {**item, "arguments": ""})
            self._complete_arguments(key, item.get("arguments"))
            self._arguments.pop(key, None)
            self.builder.close(key)

    def _complete_arguments(self, key: Hashable, final: object) -> None:
        """Top up streamed arguments with what the final event holds (deltas may be missing)."""
        if not isinstance(final, str):
            return
        received = self._arguments.get(key, "")
        if final.startswith(received) and len(final) > len(received):
            self._arguments[key] = final
            self.builder.append(key, final[len(received) :])

    def _ensure_thinking(self, key: Hashable) -> None:
        if self.builder.open_kind(key) != "thinking":
            self.builder.open_thinking(key)

    def _ensure_text(self, key: Hashable) -> None:
        if self.builder.open_kind(key) != "text":
            self.builder.open_text(key)

    # -- response lifecycle ------------------------------------------------------------------

    def _remember_response_id(self, response: object) -> None:
        response_id = as_object(response).get("id")
        if isinstance(response_id, str):
            self.builder.output["responseId"] = response_id

    def _terminal(self, event_type: str, response: Mapping[str, object]) -> None:
        self.terminated = True
        self._remember_response_id(response)
        usage = response.get("usage")
        if isinstance(usage, dict):
            self._set_usage(usage)
        status = response.get("status")
        if isinstance(status, str):
            incomplete = as_object(response.get("incomplete_details")).get("reason")
            if event_type != "response.failed" and isinstance(incomplete, str):
                self.builder.output["rawStopReason"] = f"{status}.{incomplete}"
            else:
                self.builder.output["rawStopReason"] = status
        if event_type == "response.failed" or status in ("failed", "cancelled"):
            error = response.get("error")
            if isinstance(error, dict) and error:
                raise ResponsesStreamError(_error_text(error.get("code"), error.get("message")))
            raise ResponsesStreamError(f"Response {status or 'failed'} without error details")
        if event_type == "response.incomplete" or status == "incomplete":
            reason = as_object(response.get("incomplete_details")).get("reason")
            if reason == "content_filter":
                raise ResponsesStreamError("Response incomplete: content_filter")
            self.stop_reason = "length"
            return
        self.stop_reason = None  # completed: stop, or toolUse when the output has tool calls

    def _set_usage(self, usage: Mapping[str, object]) -> None:
        input_details = usage.get("input_tokens_details")
        output_details = usage.get("output_tokens_details")
        cached = _int(as_object(input_details).get("cached_tokens"))
        reasoning = _int(as_object(output_details).get("reasoning_tokens"))
        self.builder.set_usage(
            input=_int(usage.get("input_tokens")) - cached,
            output=_int(usage.get("output_tokens")),
            cache_read=cached,
            cache_write=0,
            reasoning=reasoning,
            total=_int(usage.get("total_tokens")),
        )


def _key(data: Mapping[str, object]) -> Hashable:
    """The block an event addresses: its ``output_index``, else its ``item_id``."""
    index = data.get("output_index")
    if isinstance(index, int):
        return index
    item_id = data.get("item_id")
    return item_id if isinstance(item_id, Hashable) else None


def _int(value: object) -> int:
    return as_count(value) or 0


def _message_text(item: Mapping[str, object]) -> str:
    texts = []
    for part in as_list(item.get("content")):
        if isinstance(part, dict):
            text = part.get("text") if part.get("type") == "output_text" else part.get("refusal")
            if isinstance(text, str):
                texts.append(text)
    return "".join(texts)


def _error_text(code: object, message: object) -> str:
    text = str(message) if message else "Unknown error"
    return f"Error Code {code}: {text}" if code else text
