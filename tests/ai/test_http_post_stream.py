"""``pi_harness.ai.http`` against the real loopback fake server: streamed POSTs, provider-format
errors, the provider-level retry, connection drops and aborts.

The fake server speaks a tiny test protocol here (installed in place of the openai-completions
one for the duration of a test) so that these tests exercise only the HTTP plumbing.
"""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Iterator
from typing import Any

import orjson
import pytest

from pi_harness.ai import AbortController
from pi_harness.ai.http import (
    ProviderHTTPError,
    apply_payload_hook,
    default_error_message,
    iter_sse_events,
    join_url,
    merge_headers,
    post_stream,
)
from pi_harness.ai.jsonutil import dumps, loads
from pi_harness.ai.message_builder import MessageBuilder
from pi_harness.ai.options import StreamOptions
from pi_harness.ai.overflow import is_context_overflow
from pi_harness.ai.provider_stream import run_provider_stream
from pi_harness.ai.retry import is_retryable_error_message
from pi_harness.ai.stream import AssistantMessageEventStream
from pi_harness.ai.types import AssistantMessage, Model
from pi_harness.testing.fake_llm import FakeLLMServer, HTTPErrorSpec, ScriptedResponse, TextStep
from pi_harness.testing.fake_llm import server as fake_server
from pi_harness.testing.fake_llm.script import RecordedRequest, split_text


class TinyProtocol:
    """One ``data:`` frame per text piece, an ``event: error`` frame, then ``[DONE]``."""

    api = "openai-completions"

    def encode_stream(self, response: ScriptedResponse, request: RecordedRequest) -> list[bytes]:
        frames = []
        for step in response.steps:
            assert isinstance(step, TextStep)
            for piece in split_text(step.text, step.chunks):
                frames.append(b"data: " + orjson.dumps({"delta": piece}) + b"\n\n")
        if response.stream_error is not None:
            payload = orjson.dumps({"error": {"message": response.stream_error.message}})
            frames.append(b"event: error\ndata: " + payload + b"\n\n")
        frames.append(b"data: [DONE]\n\n")
        return frames

    def encode_error(self, error: HTTPErrorSpec, request: RecordedRequest) -> tuple[int, dict[str, str], bytes]:
        if error.body is not None:
            return error.status, {}, error.body.encode()
        return error.status, {}, orjson.dumps({"error": {"message": error.message, "type": error.type}})


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLMServer]:
    monkeypatch.setitem(fake_server._protocol_cache, "openai-completions", TinyProtocol())
    with FakeLLMServer() as s:
        yield s


def tiny_model(base_url: str) -> Model:
    return {
        "id": "tiny",
        "name": "Tiny",
        "api": "tiny-test",
        "provider": "tiny",
        "baseUrl": base_url,
        "reasoning": False,
        "input": ["text"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 1000,
        "maxTokens": 100,
    }


def tiny_stream(model: Model, options: StreamOptions) -> AssistantMessageEventStream:
    """A minimal provider on the shared plumbing: post_stream + iter_sse_events + builder."""

    async def run(builder: MessageBuilder) -> None:
        url = join_url(model["baseUrl"], "/chat/completions")
        headers = {"content-type": "application/json", "authorization": f"Bearer {options.api_key}"}
        body = dumps({"model": model["id"], "stream": True})
        async with post_stream(url, headers=headers, body=body, options=options) as response:
            builder.start()
            async for event in iter_sse_events(response):
                if event.data == "[DONE]":
                    break
                data = loads(event.data)
                if event.event == "error":
                    raise RuntimeError(data["error"]["message"])
                builder.text(data["delta"])
        builder.finish("stop")

    return run_provider_stream(model, options.signal, run)


async def run_tiny(server: FakeLLMServer, **options: Any) -> AssistantMessage:
    opts = StreamOptions(api_key="k", **options)
    return await asyncio.wait_for(tiny_stream(tiny_model(server.base_url()), opts).result(), 20)


def text_of(message: AssistantMessage) -> str:
    return "".join(b["text"] for b in message["content"] if b["type"] == "text")


def rate_limited(headers: dict[str, str], status: int = 429, message: str = "slow down") -> ScriptedResponse:
    return ScriptedResponse(http_error=HTTPErrorSpec(status, message, "rate_limit_error", headers=headers))


OK = ScriptedResponse(steps=[TextStep("all good here", chunks=4)])


# --- streaming ----------------------------------------------------------------------------------


async def test_streams_events_split_at_any_byte(server: FakeLLMServer) -> None:
    server.push(ScriptedResponse(steps=[TextStep("héllo wörld 😀 — streamed", chunks=6)], fragment_bytes=3))
    message = await run_tiny(server)
    assert message["stopReason"] == "stop"
    assert text_of(message) == "héllo wörld 😀 — streamed"
    request = server.requests[0]
    assert request.path == "/v1/chat/completions"
    assert request.json == {"model": "tiny", "stream": True}
    assert request.headers["authorization"] == "Bearer k"


async def test_error_event_inside_the_stream_keeps_partial_content(server: FakeLLMServer) -> None:
    server.push(ScriptedResponse(steps=[TextStep("partial", chunks=2)], stream_error=HTTPErrorSpec(500, "exploded")))
    message = await run_tiny(server)
    assert message["stopReason"] == "error"
    assert message["errorMessage"] == "exploded"
    assert text_of(message) == "partial"


# --- HTTP errors ----------------------------------------------------------------------------


async def test_http_error_message_comes_from_the_error_body(server: FakeLLMServer) -> None:
    server.push(ScriptedResponse(http_error=HTTPErrorSpec(401, "Incorrect API key provided")))
    message = await run_tiny(server)
    assert message["stopReason"] == "error"
    assert message["errorMessage"] == "401 Incorrect API key provided"
    assert message["content"] == []


async def test_bodyless_413_reads_as_a_context_overflow(server: FakeLLMServer) -> None:
    server.push(ScriptedResponse(http_error=HTTPErrorSpec(413, "ignored", body="")))
    message = await run_tiny(server)
    assert message["errorMessage"] == "413 status code (no body)"
    assert is_context_overflow(message)


async def test_provider_http_error_carries_status_headers_and_body(server: FakeLLMServer) -> None:
    server.push(rate_limited({"retry-after": "7"}))
    options = StreamOptions()
    with pytest.raises(ProviderHTTPError) as info:
        async with post_stream(
            join_url(server.base_url(), "chat/completions"), headers={}, body=b"{}", options=options
        ):
            pass
    assert info.value.status == 429
    assert info.value.headers["retry-after"] == "7"
    assert "slow down" in info.value.body
    assert str(info.value) == "429 slow down"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ('{"error": {"message": "bad thing", "type": "x"}}', "400 bad thing"),
        ('{"error": "plain error string"}', "400 plain error string"),
        ('{"message": "top-level message"}', "400 top-level message"),
        ('[{"error": {"code": 400, "message": "google style", "status": "INVALID_ARGUMENT"}}]', "400 google style"),
        ("upstream said no", "400 upstream said no"),
        ("   ", "400 status code (no body)"),
        ("", "400 status code (no body)"),
        ('{"unexpected": 1}', '400 {"unexpected": 1}'),
    ],
)
def test_default_error_message(body: str, expected: str) -> None:
    assert default_error_message(400, body, {}) == expected


# --- provider-level retry (section 13.2) ------------------------------------------------------


async def test_429_with_retry_after_then_success(server: FakeLLMServer) -> None:
    server.push(rate_limited({"retry-after-ms": "20"}), OK)
    message = await run_tiny(server, max_retries=2)
    assert message["stopReason"] == "stop"
    assert text_of(message) == "all good here"
    assert len(server.requests) == 2


async def test_retry_is_off_by_default(server: FakeLLMServer) -> None:
    server.push(rate_limited({"retry-after-ms": "20"}), OK)
    message = await run_tiny(server)
    assert message["stopReason"] == "error"
    assert message["errorMessage"] == "429 slow down"
    assert is_retryable_error_message(message["errorMessage"])  # left to the agent-level retry
    assert len(server.requests) == 1


async def test_x_should_retry_false_forbids_a_retry(server: FakeLLMServer) -> None:
    server.push(rate_limited({"x-should-retry": "false"}, 503, "busy"), OK)
    message = await run_tiny(server, max_retries=3)
    assert message["errorMessage"] == "503 busy"
    assert len(server.requests) == 1


async def test_x_should_retry_true_retries_any_status(server: FakeLLMServer) -> None:
    server.push(rate_limited({"x-should-retry": "true", "retry-after-ms": "1"}, 400, "try again"), OK)
    message = await run_tiny(server, max_retries=1)
    assert message["stopReason"] == "stop"
    assert len(server.requests) == 2


async def test_non_retryable_status_is_not_retried(server: FakeLLMServer) -> None:
    server.push(ScriptedResponse(http_error=HTTPErrorSpec(400, "bad request")), OK)
    message = await run_tiny(server, max_retries=3)
    assert message["errorMessage"] == "400 bad request"
    assert len(server.requests) == 1


async def test_retries_are_bounded(server: FakeLLMServer) -> None:
    for i in range(3):
        server.push(rate_limited({"retry-after-ms": "1"}, 500, f"failure {i}"))
    server.push(OK)
    message = await run_tiny(server, max_retries=2)
    assert message["errorMessage"] == "500 failure 2"
    assert len(server.requests) == 3


async def test_requested_delay_above_the_cap_fails_at_once_naming_the_delay(server: FakeLLMServer) -> None:
    server.push(rate_limited({"retry-after": "120"}), OK)
    started = time.monotonic()
    message = await run_tiny(server, max_retries=3)
    assert time.monotonic() - started < 60  # it did not sleep for the requested two minutes
    assert message["stopReason"] == "error"
    assert message["errorMessage"].startswith("429 slow down")
    assert "120s" in message["errorMessage"]
    assert "60s" in message["errorMessage"]
    assert len(server.requests) == 1


async def test_delay_requested_in_the_body_is_honoured_against_the_cap(server: FakeLLMServer) -> None:
    server.push(ScriptedResponse(http_error=HTTPErrorSpec(429, "Please retry in 90s.")), OK)
    message = await run_tiny(server, max_retries=1)
    assert "90s" in message["errorMessage"]
    assert len(server.requests) == 1


async def test_custom_cap_and_zero_disables_it(server: FakeLLMServer) -> None:
    server.push(rate_limited({"retry-after-ms": "30"}), OK)
    message = await run_tiny(server, max_retries=1, max_retry_delay_ms=10)
    assert message["stopReason"] == "error"
    assert "0.03s" in message["errorMessage"]
    server.clear()
    server.push(rate_limited({"retry-after-ms": "30"}), OK)
    message = await run_tiny(server, max_retries=1, max_retry_delay_ms=0)
    assert message["stopReason"] == "stop"


async def test_on_response_sees_every_attempt(server: FakeLLMServer) -> None:
    server.push(rate_limited({"retry-after-ms": "1", "X-Custom": "Yes"}), OK)
    seen: list[tuple[int, str | None]] = []

    async def on_response(status: int, headers: Any) -> None:
        seen.append((status, headers.get("x-custom")))

    message = await run_tiny(server, max_retries=1, on_response=on_response)
    assert message["stopReason"] == "stop"
    assert seen == [(429, "Yes"), (200, None)]


# --- connection failures ----------------------------------------------------------------------


async def test_connection_drop_mid_stream_is_a_retryable_connection_error(server: FakeLLMServer) -> None:
    server.push(ScriptedResponse(steps=[TextStep("abcdefgh", chunks=4)], drop_after=2))
    message = await run_tiny(server)
    assert message["stopReason"] == "error"
    assert message["errorMessage"].startswith("Connection error:")
    assert is_retryable_error_message(message["errorMessage"])
    assert text_of(message) == "abcd"


async def test_connection_drop_raises_connection_error_from_the_body_iterator(server: FakeLLMServer) -> None:
    server.push(ScriptedResponse(steps=[TextStep("abcdefgh", chunks=4)], drop_after=1))
    received: list[str] = []
    with pytest.raises(ConnectionError) as info:
        async with post_stream(
            join_url(server.base_url(), "chat/completions"), headers={}, body=b"{}", options=StreamOptions()
        ) as response:
            async for event in iter_sse_events(response):
                received.append(event.data)
    assert received == ['{"delta":"ab"}']
    assert is_retryable_error_message(str(info.value))


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_connection_refused_is_a_retryable_connection_error() -> None:
    model = tiny_model(f"http://127.0.0.1:{_closed_port()}/v1")
    message = await asyncio.wait_for(tiny_stream(model, StreamOptions(api_key="k", max_retries=1)).result(), 20)
    assert message["stopReason"] == "error"
    assert message["errorMessage"].startswith("Connection error:")
    assert is_retryable_error_message(message["errorMessage"])


async def test_connection_closed_before_the_response_is_retried() -> None:
    """A raw server that hangs up on the first connection without answering."""
    connections = 0

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        await reader.readuntil(b"\r\n\r\n")
        await reader.readexactly(2)  # the b"{}" body
        if connections > 1:
            body = b'data: {"delta": "second time lucky"}\n\ndata: [DONE]\n\n'
            writer.write(
                b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n"
                b"content-length: %d\r\nconnection: close\r\n\r\n%s" % (len(body), body)
            )
            await writer.drain()
        writer.close()

    raw = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = raw.sockets[0].getsockname()[1]
    try:
        model = tiny_model(f"http://127.0.0.1:{port}/v1")
        failed = await asyncio.wait_for(tiny_stream(model, StreamOptions(api_key="k")).result(), 20)
        assert failed["stopReason"] == "error"
        assert failed["errorMessage"].startswith("Connection error:")
        assert is_retryable_error_message(failed["errorMessage"])
        connections = 0
        message = await asyncio.wait_for(tiny_stream(model, StreamOptions(api_key="k", max_retries=1)).result(), 20)
        assert message["stopReason"] == "stop"
        assert text_of(message) == "second time lucky"
        assert connections == 2
    finally:
        raw.close()
        await raw.wait_closed()


async def test_connection_lost_while_reading_an_error_body() -> None:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b'HTTP/1.1 400 Bad Request\r\ncontent-length: 500\r\n\r\n{"error": ')
        await writer.drain()
        writer.transport.abort()

    raw = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = raw.sockets[0].getsockname()[1]
    try:
        model = tiny_model(f"http://127.0.0.1:{port}/v1")
        message = await asyncio.wait_for(tiny_stream(model, StreamOptions(api_key="k")).result(), 20)
    finally:
        raw.close()
        await raw.wait_closed()
    assert message["errorMessage"].startswith("Connection error:")
    assert "400 response" in message["errorMessage"]
    assert not is_context_overflow(message)  # not mistaken for a body-less 400


async def test_idle_read_timeout(server: FakeLLMServer) -> None:
    server.push(ScriptedResponse(steps=[TextStep("slow stream", chunks=3)], chunk_delay_ms=2000))
    message = await run_tiny(server, idle_timeout_ms=100)
    assert message["stopReason"] == "error"
    assert message["errorMessage"].startswith("Connection error: request timed out")
    assert is_retryable_error_message(message["errorMessage"])
    assert text_of(message) == "slow"


async def test_a_zero_idle_timeout_means_no_timeout(server: FakeLLMServer) -> None:
    # Pi's ``httpIdleTimeoutMs: 0`` turns the timeout off; a read timeout of 0 s would fail at once.
    server.push(ScriptedResponse(steps=[TextStep("slow stream", chunks=3)], chunk_delay_ms=200))
    message = await run_tiny(server, idle_timeout_ms=0)
    assert message["stopReason"] == "stop", message.get("errorMessage")
    assert text_of(message) == "slow stream"


async def test_the_request_timeout_bounds_the_wait_for_headers_only(server: FakeLLMServer) -> None:
    # ``retry.provider.timeoutMs``: the headers must come in time; the body may then take longer.
    server.push(ScriptedResponse(steps=[TextStep("slow stream", chunks=3)], chunk_delay_ms=200))
    message = await run_tiny(server, timeout_ms=50)
    assert message["stopReason"] == "stop", message.get("errorMessage")
    server.push(ScriptedResponse(steps=[TextStep("never sent")], delay_ms=60_000))
    message = await run_tiny(server, timeout_ms=50)
    assert message["errorMessage"] == "Connection error: request timed out (no response within 50 ms)"
    assert is_retryable_error_message(message["errorMessage"])


# --- abort ------------------------------------------------------------------------------------


async def test_abort_during_the_retry_wait(server: FakeLLMServer) -> None:
    server.push(rate_limited({"retry-after-ms": "30000"}), OK)
    controller = AbortController()
    s = tiny_stream(tiny_model(server.base_url()), StreamOptions(api_key="k", max_retries=2, signal=controller.signal))
    for _ in range(500):
        if server.requests:
            break
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.05)
    controller.abort()
    message = await asyncio.wait_for(s.result(), 5)
    assert message["stopReason"] == "aborted"
    assert message["errorMessage"] == "Request was aborted"
    assert len(server.requests) == 1


async def test_abort_mid_stream_closes_the_connection(server: FakeLLMServer) -> None:
    server.push(ScriptedResponse(steps=[TextStep("x" * 40, chunks=40)], chunk_delay_ms=30))
    controller = AbortController()
    s = tiny_stream(tiny_model(server.base_url()), StreamOptions(api_key="k", signal=controller.signal))
    async for event in s:
        if event["type"] == "text_delta":
            controller.abort()
    message = await s.result()
    assert message["stopReason"] == "aborted"
    assert 1 <= len(text_of(message)) < 40
    for _ in range(300):  # the server notices the client hanging up
        if server.cancelled_streams:
            break
        await asyncio.sleep(0.01)
    assert server.cancelled_streams == 1
    assert server.completed_streams == 0


# --- helpers ----------------------------------------------------------------------------------


def test_join_url_ignores_duplicate_slashes() -> None:
    assert join_url("http://h/v1/", "/chat/completions") == "http://h/v1/chat/completions"
    assert join_url("http://h", "v1/messages") == "http://h/v1/messages"


def test_merge_headers_later_sources_win_case_insensitively() -> None:
    merged = merge_headers({"Authorization": "a", "X-One": "1"}, None, {"authorization": "b"}, {"X-Two": "2"})
    assert merged == {"X-One": "1", "authorization": "b", "X-Two": "2"}


async def test_payload_hook_can_replace_or_keep_the_payload() -> None:
    payload = {"model": "m"}
    model = tiny_model("http://x")
    assert await apply_payload_hook(StreamOptions(), payload, model) is payload
    assert await apply_payload_hook(StreamOptions(on_payload=lambda p, m: None), payload, model) is payload
    assert await apply_payload_hook(StreamOptions(on_payload=lambda p, m: {**p, "x": 1}), payload, model) == {
        "model": "m",
        "x": 1,
    }

    async def async_hook(p: dict[str, Any], m: Model) -> dict[str, Any]:
        return {"replaced": m["id"]}

    assert await apply_payload_hook(StreamOptions(on_payload=async_hook), payload, model) == {"replaced": "tiny"}
