"""The Anthropic Messages API, written for the custom-anthropic example provider.

``stream_anthropic(model, context, options)`` sends ``POST {baseUrl}/v1/messages`` with
``stream: true`` and reads the events: ``content_block_start``/``_delta``/``_stop`` become text,
thinking and tool-call blocks, ``message_start``/``message_delta`` give the usage and the stop
reason, ``error`` fails the message.
"""

from __future__ import annotations

import json
from typing import Any

from pi_harness.ai import MessageBuilder, run_provider_stream
from pi_harness.ai.http import open_event_stream
from pi_harness.ai.options import SimpleStreamOptions

ANTHROPIC_VERSION = "2023-06-01"
STOP_REASONS = {"end_turn": "stop", "stop_sequence": "stop", "max_tokens": "length", "tool_use": "toolUse"}
THINKING_BUDGETS = {"minimal": 1024, "low": 2048, "medium": 8192, "high": 16384, "xhigh": 32768, "max": 32768}


def _content(blocks: Any) -> list[dict[str, Any]]:
    if isinstance(blocks, str):
        return [{"type": "text", "text": blocks}]
    out: list[dict[str, Any]] = []
    for block in blocks:
        if block["type"] == "text" and block["text"]:
            out.append({"type": "text", "text": block["text"]})
        elif block["type"] == "image":
            source = {"type": "base64", "media_type": block["mimeType"], "data": block["data"]}
            out.append({"type": "image", "source": source})
    return out


def _assistant(message: dict[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for block in message["content"]:
        if block["type"] == "text" and block["text"]:
            out.append({"type": "text", "text": block["text"]})
        elif block["type"] == "thinking" and block.get("thinkingSignature"):
            out.append({"type": "thinking", "thinking": block["thinking"], "signature": block["thinkingSignature"]})
        elif block["type"] == "toolCall":
            out.append({"type": "tool_use", "id": block["id"], "name": block["name"], "input": block["arguments"]})
    return out


def request_body(model: dict[str, Any], context: dict[str, Any], options: SimpleStreamOptions) -> dict[str, Any]:
    """The request for ``context``: consecutive tool results go into one user message."""
    messages: list[dict[str, Any]] = []
    for message in context["messages"]:
        role = message["role"]
        if role == "user":
            messages.append({"role": "user", "content": _content(message["content"])})
        elif role == "assistant":
            blocks = _assistant(message)
            if blocks:
                messages.append({"role": "assistant", "content": blocks})
        elif role == "toolResult":
            result = {
                "type": "tool_result",
                "tool_use_id": message["toolCallId"],
                "content": _content(message["content"]) or [{"type": "text", "text": "(no output)"}],
                "is_error": bool(message.get("isError")),
            }
            if messages and messages[-1]["role"] == "user" and messages[-1].get("_results"):
                messages[-1]["content"].append(result)
            else:
                messages.append({"role": "user", "content": [result], "_results": True})
    for message in messages:
        message.pop("_results", None)
    body: dict[str, Any] = {
        "model": model["id"],
        "messages": messages,
        "max_tokens": options.max_tokens or min(int(model.get("maxTokens") or 4096), 32_000),
        "stream": True,
    }
    if context.get("systemPrompt"):
        body["system"] = context["systemPrompt"]
    if context.get("tools"):
        body["tools"] = [
            {"name": t["name"], "description": t["description"], "input_schema": t["parameters"]}
            for t in context["tools"]
        ]
    if options.reasoning and model.get("reasoning"):
        budget = THINKING_BUDGETS.get(options.reasoning, 8192)
        body["thinking"] = {"type": "enabled", "budget_tokens": budget}
        body["max_tokens"] = max(body["max_tokens"], budget + 1024)
    return body


def _read(builder: MessageBuilder, name: str, data: dict[str, Any], state: dict[str, Any]) -> None:
    if name == "message_start":
        usage = data.get("message", {}).get("usage", {})
        state["input"] = usage.get("input_tokens", 0)
        state["cache_read"] = usage.get("cache_read_input_tokens", 0)
        state["cache_write"] = usage.get("cache_creation_input_tokens", 0)
    elif name == "content_block_start":
        index, block = data["index"], data["content_block"]
        if block["type"] == "text":
            builder.open_text(index)
        elif block["type"] == "thinking":
            builder.open_thinking(index)
        elif block["type"] == "tool_use":
            builder.open_tool_call(index, block["id"], block["name"])
    elif name == "content_block_delta":
        index, delta = data["index"], data["delta"]
        if delta["type"] in ("text_delta", "thinking_delta", "input_json_delta"):
            builder.append(index, delta.get("text") or delta.get("thinking") or delta.get("partial_json") or "")
        # ``signature_delta`` is not kept: thinking goes back to the API only with its signature,
        # so this example sends earlier thinking as nothing (Anthropic accepts that).
    elif name == "content_block_stop":
        builder.close(data["index"])
    elif name == "message_delta":
        state["stop"] = STOP_REASONS.get(str(data.get("delta", {}).get("stop_reason")), "stop")
        state["output"] = data.get("usage", {}).get("output_tokens", 0)
    elif name == "error":
        raise RuntimeError(data.get("error", {}).get("message") or json.dumps(data))


def stream_anthropic(model: Any, context: Any, options: SimpleStreamOptions | None) -> Any:
    opts = options or SimpleStreamOptions()

    async def run(builder: MessageBuilder) -> None:
        builder.add_secret(opts.api_key)
        headers = {
            "content-type": "application/json",
            "anthropic-version": ANTHROPIC_VERSION,
            "x-api-key": opts.api_key or "",
            **(opts.headers or {}),
        }
        url = str(model["baseUrl"]).rstrip("/") + "/v1/messages"
        body = request_body(model, context, opts)
        state: dict[str, Any] = {}
        async with open_event_stream(url, headers=headers, body=body, model=model, options=opts) as events:
            builder.start()
            async for event in events:
                try:
                    data = json.loads(event.data)
                except ValueError:
                    continue
                if opts.on_stream_event is not None:
                    outcome = opts.on_stream_event(data, model)
                    if outcome is not None:
                        await outcome
                _read(builder, str(data.get("type") or event.event), data, state)
        builder.set_usage(
            input=state.get("input", 0),
            output=state.get("output", 0),
            cache_read=state.get("cache_read", 0),
            cache_write=state.get("cache_write", 0),
        )
        builder.finish(state.get("stop"))

    return run_provider_stream(model, opts.signal, run)
