"""Image generation over OpenRouter's chat completions endpoint (api ``openrouter-images``).

One non-streamed ``POST {baseUrl}/chat/completions`` with a single user message and
``modalities`` (``["image", "text"]`` when the model also writes text, else ``["image"]``). The
answer's ``choices[0].message`` carries optional ``content`` text and ``images``, each a
``data:<mime>;base64,<data>`` URL; anything else (remote URLs) is skipped.
"""

from __future__ import annotations

import asyncio
import inspect
import re
from collections.abc import Coroutine, Mapping
from typing import TypeVar, cast

from pi_harness.ai.cost import calculate_cost
from pi_harness.ai.http import (
    bearer_authorization,
    default_error_message,
    join_url,
    merge_headers,
    transport_error_message,
)
from pi_harness.ai.http_transport import get_client
from pi_harness.ai.images import ImageGenerationContext, ImageGenerationOptions, ImageGenerationResult, ImageInput
from pi_harness.ai.json_values import JsonObject, as_count, as_list, as_object
from pi_harness.ai.jsonutil import dumps, loads, sanitize_surrogates
from pi_harness.ai.message_builder import now_ms
from pi_harness.ai.model_types import MediaModel
from pi_harness.ai.types import Model, Usage, empty_usage

API = "openrouter-images"
_T = TypeVar("_T")
_DATA_URL = re.compile(r"^data:([^;]+);base64,(.+)$", re.DOTALL)


def build_body(model: MediaModel, context: ImageGenerationContext) -> dict[str, object]:
    content: list[JsonObject] = []
    for item in context["input"]:
        if item["type"] == "text":
            content.append({"type": "text", "text": sanitize_surrogates(item["text"])})
        else:
            url = f"data:{item['mimeType']};base64,{item['data']}"
            content.append({"type": "image_url", "image_url": {"url": url}})
    modalities = ["image", "text"] if "text" in model.get("output", []) else ["image"]
    return {
        "model": model["id"],
        "messages": [{"role": "user", "content": content}],
        "stream": False,
        "modalities": modalities,
    }


def parse_usage(raw: Mapping[str, object], model: MediaModel) -> Usage:
    """OpenRouter's counts: cached tokens are part of ``prompt_tokens``; cache writes, when
    reported, are part of the cached count."""
    details = as_object(raw.get("prompt_tokens_details"))
    prompt = as_count(raw.get("prompt_tokens")) or 0
    cached = as_count(details.get("cached_tokens")) or 0
    writes = as_count(details.get("cache_write_tokens")) or 0
    reads = max(0, cached - writes) if writes > 0 else cached
    usage = empty_usage()
    usage["input"] = max(0, prompt - reads - writes)
    usage["output"] = as_count(raw.get("completion_tokens")) or 0
    usage["cacheRead"] = reads
    usage["cacheWrite"] = writes
    usage["totalTokens"] = usage["input"] + usage["output"] + reads + writes
    return calculate_cost(cast(Model, model), usage)


def read_output(body: Mapping[str, object]) -> list[ImageInput]:
    choices = as_list(body.get("choices"))
    message = as_object(as_object(choices[0]).get("message")) if choices else {}
    output: list[ImageInput] = []
    text = message.get("content")
    if isinstance(text, str) and text:
        output.append({"type": "text", "text": text})
    for image in as_list(message.get("images")):
        image_url = as_object(image).get("image_url")
        url = image_url if isinstance(image_url, str) else as_object(image_url).get("url")
        found = _DATA_URL.match(url) if isinstance(url, str) else None
        if found:
            output.append({"type": "image", "mimeType": found.group(1), "data": found.group(2)})
    return output


async def _post(
    model: MediaModel, body: dict[str, object], options: ImageGenerationOptions, api_key: str
) -> tuple[int, dict[str, str], bytes]:
    headers = merge_headers(
        {"Content-Type": "application/json", "Accept": "application/json"},
        bearer_authorization(api_key),
        model.get("headers"),
        options.headers,
    )
    timeout = options.timeout_ms / 1000 if options.timeout_ms is not None else None
    url = join_url(model["baseUrl"], "chat/completions")
    response = await get_client(url).post(url, content=dumps(body), headers=headers, timeout=timeout)
    return response.status_code, dict(response.headers), response.content


async def generate_images(
    model: MediaModel, context: ImageGenerationContext, options: ImageGenerationOptions | None = None
) -> ImageGenerationResult:
    opts = options if options is not None else ImageGenerationOptions()
    result: ImageGenerationResult = {
        "api": model["api"],
        "provider": model["provider"],
        "model": model["id"],
        "output": [],
        "stopReason": "stop",
        "timestamp": now_ms(),
    }
    try:
        if not opts.api_key:
            raise ValueError(f"No API key for provider: {model['provider']}")
        body = build_body(model, context)
        if opts.on_payload is not None:
            replaced = opts.on_payload(body, cast(Model, model))
            if inspect.isawaitable(replaced):
                replaced = await replaced
            if isinstance(replaced, dict):
                body = replaced
        status, headers, raw = await _abortable(_post(model, body, opts, opts.api_key), opts)
        if opts.on_response is not None:
            hooked = opts.on_response(status, headers)
            if inspect.isawaitable(hooked):
                await hooked
        text = raw.decode("utf-8", errors="replace")
        if status >= 400:
            raise ValueError(default_error_message(status, text, headers))
        answer = as_object(loads(text))
        if isinstance(answer.get("id"), str):
            result["responseId"] = str(answer["id"])
        if isinstance(answer.get("usage"), dict):
            result["usage"] = parse_usage(as_object(answer["usage"]), model)
        result["output"] = read_output(answer)
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # a failed request is a result, never an exception
        aborted = opts.signal is not None and opts.signal.aborted
        result["stopReason"] = "aborted" if aborted else "error"
        result["errorMessage"] = "Request was aborted" if aborted else _message(exc)
    return result


def _message(exc: Exception) -> str:
    import httpx2

    if isinstance(exc, httpx2.TransportError):
        return transport_error_message(exc)
    return str(exc) or type(exc).__name__


class _Aborted(Exception):
    pass


async def _abortable(work: Coroutine[object, object, _T], options: ImageGenerationOptions) -> _T:
    """Run the request, cancelling it (and closing its connection) when the signal fires."""
    signal = options.signal
    if signal is None:
        return await work
    if signal.aborted:
        work.close()  # never started: nothing is sent
        raise _Aborted
    task = asyncio.ensure_future(work)
    waiter = asyncio.ensure_future(signal.wait())
    done, _ = await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
    if task in done:
        waiter.cancel()
        return task.result()
    task.cancel()
    raise _Aborted


GENERATE_IMAGES = generate_images
