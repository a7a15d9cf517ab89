"""The fake LLM server core: script files, routing, recording, and the command-line entry point."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import orjson
import pytest

from pi_harness.ai.sse import SSEDecoder
from pi_harness.testing.fake_llm import (
    NO_RESPONSE_LEFT,
    FakeLLMServer,
    HTTPErrorSpec,
    RecordedRequest,
    ScriptedResponse,
    TextStep,
    ThinkingStep,
    ToolCallStep,
    load_script,
    response_from_dict,
)
from pi_harness.testing.fake_llm import server as fake_server
from pi_harness.testing.fake_llm.script import split_text

# --- script files ---------------------------------------------------------------------------


def test_response_from_dict_reads_every_field() -> None:
    response = response_from_dict(
        {
            "steps": [
                {"thinking": "hmm", "chunks": 1, "signature": "sig", "redacted": True},
                {"text": "hello", "chunks": 5},
                {"toolCall": {"name": "read", "arguments": {"path": "a"}, "id": "call_9", "chunks": 2}},
            ],
            "stopReason": "length",
            "nativeStop": "max_tokens",
            "usage": {"input": 100, "output": 7, "cacheRead": 3},
            "streamError": {"status": 500, "message": "late failure", "type": "server_error"},
            "dropAfter": 4,
            "delayMs": 10,
            "chunkDelayMs": 5,
            "fragmentBytes": 7,
            "responseId": "resp_1",
        }
    )
    assert response.steps == [
        ThinkingStep("hmm", chunks=1, signature="sig", redacted=True),
        TextStep("hello", chunks=5),
        ToolCallStep("read", {"path": "a"}, id="call_9", chunks=2),
    ]
    assert response.stop_reason == "length"
    assert response.native_stop == "max_tokens"
    assert response.usage == {"input": 100, "output": 7, "cacheRead": 3}
    assert response.stream_error == HTTPErrorSpec(500, "late failure", "server_error")
    assert response.http_error is None
    assert (response.drop_after, response.delay_ms, response.chunk_delay_ms) == (4, 10, 5)
    assert (response.fragment_bytes, response.response_id) == (7, "resp_1")


def test_response_from_dict_defaults() -> None:
    response = response_from_dict({"steps": [{"toolCall": {"name": "ls"}}]})
    assert response.steps == [ToolCallStep("ls", {}, id=None, chunks=3)]
    assert response.resolved_stop == "toolUse"
    assert response.usage == {"input": 10, "output": 5}
    assert response_from_dict({"text": "short form"}).steps == [TextStep("short form")]
    assert response_from_dict({}).resolved_stop == "stop"


def test_http_errors_from_dict() -> None:
    response = response_from_dict(
        {"httpError": {"status": 429, "message": "slow", "type": "rate_limit_error", "headers": {"retry-after": "2"}}}
    )
    assert response.http_error == HTTPErrorSpec(429, "slow", "rate_limit_error", {"retry-after": "2"})
    legacy = response_from_dict({"error": {"message": "boom"}})
    assert legacy.http_error == HTTPErrorSpec(500, "boom")
    bodyless = response_from_dict({"error": {"status": 413, "body": ""}})
    assert bodyless.http_error is not None
    assert bodyless.http_error.body == ""


def test_unknown_step_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown script step"):
        response_from_dict({"steps": [{"image": "x"}]})


def test_load_script_accepts_an_object_or_a_list() -> None:
    as_object = load_script(json.loads('{"responses": [{"text": "a"}, {"text": "b"}]}'))
    as_list = load_script(json.loads('[{"text": "a"}, {"text": "b"}]'))
    assert as_object == as_list
    assert [r.steps[0].text for r in as_object] == ["a", "b"]  # type: ignore[union-attr]
    assert load_script({}) == []


def test_split_text() -> None:
    assert split_text("abcdefgh", 3) == ["abc", "def", "gh"]
    assert split_text("ab", 5) == ["a", "b"]
    assert split_text("abc", 1) == ["abc"]
    assert split_text("", 3) == [""]
    assert "".join(split_text("héllo wörld", 4)) == "héllo wörld"


# --- the server core, with a tiny protocol --------------------------------------------------


class EchoProtocol:
    """Frames that describe the script, so tests can see what the server was asked to send."""

    api = "openai-completions"

    def encode_stream(self, response: ScriptedResponse, request: RecordedRequest) -> list[bytes]:
        texts = [
            piece
            for step in response.steps
            if isinstance(step, TextStep)
            for piece in split_text(step.text, step.chunks)
        ]
        return [b"data: " + orjson.dumps({"t": t}) + b"\n\n" for t in texts] + [b"data: [DONE]\n\n"]

    def encode_error(self, error: HTTPErrorSpec, request: RecordedRequest) -> tuple[int, dict[str, str], bytes]:
        return error.status, {"x-error-type": error.type or ""}, orjson.dumps({"error": {"message": error.message}})


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLLMServer]:
    monkeypatch.setitem(fake_server._protocol_cache, "openai-completions", EchoProtocol())
    with FakeLLMServer(models=["m-one", "m-two"]) as s:
        yield s


def post(server: FakeLLMServer, body: Any = None, path: str = "/v1/chat/completions") -> httpx2.Response:
    with httpx2.Client(timeout=10) as client:
        return client.post(server.url + path, json=body if body is not None else {"model": "x"})


def data_of(response: httpx2.Response) -> list[str]:
    decoder = SSEDecoder()
    return [event.data for event in decoder.feed(response.content)]


def test_models_endpoint(server: FakeLLMServer) -> None:
    with httpx2.Client(timeout=10) as client:
        response = client.get(server.url + "/v1/models")
    assert response.status_code == 200
    assert response.json() == {
        "object": "list",
        "data": [
            {"id": "m-one", "object": "model", "owned_by": "fake"},
            {"id": "m-two", "object": "model", "owned_by": "fake"},
        ],
    }


def test_unknown_path_is_404(server: FakeLLMServer) -> None:
    response = post(server, path="/v1/embeddings")
    assert response.status_code == 404
    assert server.requests == []


def test_scripted_responses_are_served_in_order_and_requests_recorded(server: FakeLLMServer) -> None:
    server.push(
        ScriptedResponse(steps=[TextStep("first", chunks=1)]), ScriptedResponse(steps=[TextStep("second", chunks=2)])
    )
    assert server.pending == 2
    one = post(server, {"model": "x", "n": 1})
    two = post(server, {"model": "x", "n": 2}, path="/v1/chat/completions?trace=1")
    assert one.headers["content-type"].startswith("text/event-stream")
    assert data_of(one) == ['{"t":"first"}', "[DONE]"]
    assert data_of(two) == ['{"t":"sec"}', '{"t":"ond"}', "[DONE]"]
    assert [r.json["n"] for r in server.requests] == [1, 2]
    assert server.requests[1].query == "trace=1"
    assert server.requests[0].protocol == "openai-completions"
    assert server.requests[0].headers["content-type"] == "application/json"
    assert server.pending == 0
    assert server.completed_streams == 2


def test_empty_queue_answers_500_in_the_protocol_format(server: FakeLLMServer) -> None:
    response = post(server)
    assert response.status_code == 500
    assert response.json() == {"error": {"message": NO_RESPONSE_LEFT}}


def test_default_source_answers_when_the_queue_is_empty(server: FakeLLMServer) -> None:
    def echo_model(request: RecordedRequest) -> ScriptedResponse:
        return ScriptedResponse(steps=[TextStep(f"model={request.json['model']}", chunks=1)])

    server.default = echo_model
    server.push(ScriptedResponse(steps=[TextStep("queued", chunks=1)]))
    assert data_of(post(server, {"model": "a"}))[0] == '{"t":"queued"}'
    assert data_of(post(server, {"model": "b"}))[0] == '{"t":"model=b"}'


def test_callable_sources_in_the_queue_see_the_request(server: FakeLLMServer) -> None:
    server.push(lambda request: ScriptedResponse(steps=[TextStep(request.path, chunks=1)]))
    assert data_of(post(server))[0] == '{"t":"/v1/chat/completions"}'


def test_http_error_response_with_extra_headers(server: FakeLLMServer) -> None:
    server.push(ScriptedResponse(http_error=HTTPErrorSpec(429, "slow down", "rate_limit", {"retry-after": "3"})))
    response = post(server)
    assert response.status_code == 429
    assert response.headers["retry-after"] == "3"
    assert response.headers["x-error-type"] == "rate_limit"
    assert response.json() == {"error": {"message": "slow down"}}


def test_fragmented_frames_arrive_intact(server: FakeLLMServer) -> None:
    server.push(ScriptedResponse(steps=[TextStep("fragmented ünïcode", chunks=2)], fragment_bytes=2))
    assert data_of(post(server)) == ['{"t":"fragmente"}', '{"t":"d ünïcode"}', "[DONE]"]


def test_drop_after_closes_the_connection_mid_stream(server: FakeLLMServer) -> None:
    server.push(ScriptedResponse(steps=[TextStep("abcdef", chunks=3)], drop_after=1))
    with pytest.raises(httpx2.RemoteProtocolError):
        post(server)
    # the connection is gone but the server keeps serving
    server.push(ScriptedResponse(steps=[TextStep("after", chunks=1)]))
    assert data_of(post(server))[0] == '{"t":"after"}'


def test_non_json_body_is_recorded_as_text(server: FakeLLMServer) -> None:
    server.push(ScriptedResponse(steps=[TextStep("ok", chunks=1)]))
    with httpx2.Client(timeout=10) as client:
        client.post(server.url + "/v1/chat/completions", content=b"not json")
    assert server.requests[0].body == "not json"
    assert server.requests[0].json == {}


def test_garbage_request_line_does_not_break_the_server(server: FakeLLMServer) -> None:
    with socket.create_connection((server.host, server.port), timeout=10) as sock:
        sock.sendall(b"NOT-HTTP\r\n\r\n")
        assert sock.recv(100) == b""  # the server hangs up
    server.push(ScriptedResponse(steps=[TextStep("still alive", chunks=1)]))
    assert data_of(post(server))[0] == '{"t":"still alive"}'


def test_clear_forgets_queue_and_requests(server: FakeLLMServer) -> None:
    server.push(ScriptedResponse(), ScriptedResponse())
    post(server)
    server.clear()
    assert server.pending == 0
    assert server.requests == []


def test_base_urls_and_model_descriptors() -> None:
    server = FakeLLMServer(port=4321)
    assert server.base_url("openai-completions") == "http://127.0.0.1:4321/v1"
    assert server.base_url("openai-responses") == "http://127.0.0.1:4321/v1"
    assert server.base_url("anthropic-messages") == "http://127.0.0.1:4321"
    assert server.base_url("google-generative-ai") == "http://127.0.0.1:4321/v1beta"
    model = server.model("anthropic-messages", "claude-fake", reasoning=True)
    assert model["api"] == "anthropic-messages"
    assert model["baseUrl"] == "http://127.0.0.1:4321"
    assert model["id"] == "claude-fake"
    assert model["reasoning"] is True


def test_api_routing_by_path() -> None:
    assert fake_server.api_for_path("POST", "/v1/chat/completions") == "openai-completions"
    assert fake_server.api_for_path("POST", "/v1/responses") == "openai-responses"
    assert fake_server.api_for_path("POST", "/v1/messages") == "anthropic-messages"
    assert fake_server.api_for_path("POST", "/v1beta/models/gemini:streamGenerateContent") == "google-generative-ai"
    assert fake_server.api_for_path("GET", "/v1/chat/completions") is None
    assert fake_server.api_for_path("POST", "/v1/embeddings") is None


async def test_usable_as_an_async_context_manager(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(fake_server._protocol_cache, "openai-completions", EchoProtocol())
    async with (
        FakeLLMServer([ScriptedResponse(steps=[TextStep("async", chunks=1)])]) as s,
        httpx2.AsyncClient(timeout=10) as client,
    ):
        response = await client.post(s.url + "/v1/chat/completions", json={})
    assert data_of(response)[0] == '{"t":"async"}'


# --- python -m pi_harness.testing.fake_llm --------------------------------------------------


def _start_command(*args: str) -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "pi_harness.testing.fake_llm", "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    prefix = "fake LLM server listening on "
    if not line.startswith(prefix):
        proc.kill()
        _, err = proc.communicate(timeout=10)
        pytest.fail(f"unexpected first line {line!r}; stderr: {err}")
    return proc, line[len(prefix) :].strip()


def _stop(proc: subprocess.Popen[str]) -> None:
    proc.terminate()
    try:
        proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()


def _completion_text(response: httpx2.Response) -> str:
    text = ""
    for data in data_of(response):
        if data == "[DONE]":
            break
        for choice in json.loads(data).get("choices", []):
            text += choice.get("delta", {}).get("content") or ""
    return text


def test_command_serves_a_script_file_then_echoes(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"responses": [{"steps": [{"text": "Scripted reply from a file", "chunks": 4}]}]}))
    proc, url = _start_command("--script", str(script), "--model", "offline-1")
    try:
        assert url.startswith("http://127.0.0.1:")
        with httpx2.Client(timeout=10) as client:
            models = client.get(url + "/v1/models").json()
            assert [m["id"] for m in models["data"]] == ["offline-1"]
            body = {
                "model": "offline-1",
                "stream": True,
                "stream_options": {"include_usage": True},
                "messages": [{"role": "user", "content": "first question"}],
            }
            first = client.post(url + "/v1/chat/completions", json=body)
            assert first.status_code == 200
            assert _completion_text(first) == "Scripted reply from a file"
            body["messages"] = [{"role": "user", "content": "what now?"}]
            second = client.post(url + "/v1/chat/completions", json=body)
            assert _completion_text(second) == "You said: what now?"
    finally:
        _stop(proc)


def test_command_reports_a_bad_script(tmp_path: Path) -> None:
    script = tmp_path / "bad.json"
    script.write_text('{"responses": [{"steps": [{"video": 1}]}]}')
    result = subprocess.run(
        [sys.executable, "-m", "pi_harness.testing.fake_llm", "--script", str(script)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1
    assert "cannot load script" in result.stderr
    missing = subprocess.run(
        [sys.executable, "-m", "pi_harness.testing.fake_llm", "--script", str(tmp_path / "missing.json")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert missing.returncode == 1
    assert "cannot load script" in missing.stderr
