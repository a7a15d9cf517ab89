"""``openai-codex-responses`` over its WebSocket transport, against the fake Codex backend's
WebSocket route (a real RFC 6455 server on loopback), and the fallback to SSE.

What Pi 1.4.0 sends over the same route was recorded in ``tests/fixtures/pi_codex/``."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from _streams import collect
from test_openai_codex_responses import TOKEN, codex_model

from pi_harness.ai.providers import codex_websocket
from pi_harness.ai.providers.openai_codex_responses import OpenAICodexResponsesOptions, stream
from pi_harness.ai.session_resources import release_session_resources
from pi_harness.ai.types import AssistantMessage, Context, Model
from pi_harness.testing.fake_llm import FakeLLMServer, HTTPErrorSpec, ScriptedResponse, TextStep, ToolCallStep

PI = json.loads((Path(__file__).parents[2] / "fixtures" / "pi_codex" / "websocket_request.json").read_text())
NODE_HEADERS = {"host", "sec-websocket-key", "user-agent", "sec-websocket-extensions"}


@pytest.fixture
async def session() -> AsyncIterator[str]:
    """A session id of this test only (kept connections are per session and per process)."""
    name = f"ws-{uuid.uuid4()}"
    yield name
    await release_session_resources(name)


def opts(session: str | None, transport: str = "auto", **kwargs: Any) -> OpenAICodexResponsesOptions:
    return OpenAICodexResponsesOptions(api_key=TOKEN, session_id=session, transport=transport, **kwargs)


def first_turn() -> Context:
    return {
        "systemPrompt": "Be brief.",
        "messages": [{"role": "user", "content": "List the files", "timestamp": 1}],
        "tools": [{"name": "ls", "description": "List files", "parameters": {"type": "object"}}],
    }


def next_turn(context: Context, answer: AssistantMessage) -> Context:
    call = answer["content"][0]
    assert call["type"] == "toolCall"
    result = {
        "role": "toolResult",
        "toolCallId": call["id"],
        "toolName": call["name"],
        "content": [{"type": "text", "text": "a.txt"}],
        "isError": False,
        "timestamp": 2,
    }
    return {**context, "messages": [*context["messages"], answer, result]}  # type: ignore[list-item]


TOOL_CALL = ScriptedResponse(steps=[ToolCallStep("ls", {"path": "."})])
DONE = ScriptedResponse(steps=[TextStep("a.txt is there")])


async def two_turns(model: Model, options: OpenAICodexResponsesOptions) -> tuple[AssistantMessage, AssistantMessage]:
    _, first = await collect(stream(model, first_turn(), options))
    _, second = await collect(stream(model, next_turn(first_turn(), first), options))
    return first, second


async def test_upgrade_headers_and_message_are_pis(session: str) -> None:
    with FakeLLMServer([DONE]) as server:
        _, message = await collect(stream(codex_model(server), first_turn(), opts(session)))
        request = server.requests[0]
    assert message["stopReason"] == "stop" and message["content"][0]["text"] == "a.txt is there"  # type: ignore[typeddict-item]
    assert request.method == "WEBSOCKET" and request.path == "/backend-api/codex/responses"
    headers = {name: value for name, value in request.headers.items() if name not in NODE_HEADERS}
    expected = {
        **PI["upgrade_headers"],
        "authorization": f"Bearer {TOKEN}",
        "chatgpt-account-id": "acct-42",
        "session-id": session,
        "x-client-request-id": session,
    }
    assert {name: value.lower() if name == "connection" else value for name, value in headers.items()} == expected
    assert list(request.json) == PI["first_message_keys"]
    assert request.json["type"] == "response.create"
    assert "diagnostics" not in message


async def test_auto_sends_only_the_new_input_on_the_kept_connection(session: str) -> None:
    with FakeLLMServer([TOOL_CALL, DONE]) as server:
        first, second = await two_turns(codex_model(server), opts(session))
        full, continued = (request.json for request in server.requests)
        connections = server.websocket_connections
    assert second["content"][0]["text"] == "a.txt is there"  # type: ignore[typeddict-item]
    assert connections == 1
    assert list(continued) == PI["continued_message_keys"]
    assert continued["previous_response_id"] == first["responseId"]
    assert [item["type"] for item in continued["input"]] == PI["continued_input_types"]
    assert continued["input"][0]["output"] == "a.txt"
    assert "previous_response_id" not in full


async def test_plain_websocket_sends_the_full_input_each_time(session: str) -> None:
    with FakeLLMServer([TOOL_CALL, DONE]) as server:
        await two_turns(codex_model(server), opts(session, "websocket"))
        full, again = (request.json for request in server.requests)
        connections = server.websocket_connections
    assert connections == 1
    assert "previous_response_id" not in again
    assert again["input"][: len(full["input"])] == full["input"] and len(again["input"]) == 3


async def test_a_changed_request_is_sent_in_full(session: str) -> None:
    with FakeLLMServer([TOOL_CALL, DONE]) as server:
        model = codex_model(server)
        _, first = await collect(stream(model, first_turn(), opts(session)))
        changed = {**next_turn(first_turn(), first), "systemPrompt": "Be very brief."}
        await collect(stream(model, changed, opts(session)))
        again = server.requests[1].json
    assert "previous_response_id" not in again and again["instructions"] == "Be very brief."


async def test_a_lost_continuation_is_resent_in_full_once(session: str) -> None:
    lost = ScriptedResponse(http_error=HTTPErrorSpec(400, "Previous response not found.", type="previous_response_not_found"))
    with FakeLLMServer([TOOL_CALL, lost, DONE]) as server:
        _, second = await two_turns(codex_model(server), opts(session))
        sent = [request.json for request in server.requests]
    assert second["stopReason"] == "stop"
    assert [("previous_response_id" in body, len(body["input"])) for body in sent] == [(False, 1), (True, 1), (False, 3)]


async def test_refused_upgrade_falls_back_to_sse_for_the_rest_of_the_session(session: str) -> None:
    with FakeLLMServer([TOOL_CALL, DONE], websocket=False) as server:
        first, second = await two_turns(codex_model(server), opts(session))
        methods = [request.method for request in server.requests]
        refusals = server.websocket_refusals
        sse_headers = server.requests[0].headers
    assert methods == ["POST", "POST"] and refusals == 1
    assert second["stopReason"] == "stop" and "diagnostics" not in second
    (diagnostic,) = first["diagnostics"]
    expected = PI["fallback_diagnostic"]
    assert diagnostic["type"] == expected["type"]
    assert {k: v for k, v in diagnostic["details"].items() if k != "requestBytes"} == expected["details"]
    assert diagnostic["details"]["requestBytes"] > 100
    assert diagnostic["error"]["message"] == "WebSocket upgrade refused: HTTP 426"
    for name, value in PI["sse_after_fallback_headers"].items():
        assert sse_headers[name] == value


async def test_sse_transport_never_tries_a_websocket(session: str) -> None:
    with FakeLLMServer([DONE]) as server:
        await collect(stream(codex_model(server), first_turn(), opts(session, "sse")))
        assert [request.method for request in server.requests] == ["POST"]
        assert server.websocket_connections == server.websocket_refusals == 0


async def test_a_close_after_the_first_event_is_an_error_not_a_fallback(session: str) -> None:
    cut = ScriptedResponse(steps=[TextStep("partial answer", chunks=4)], stall_after=5)
    with FakeLLMServer([cut, DONE]) as server:
        model = codex_model(server)
        events, message = await collect(stream(model, first_turn(), opts(session)))
        _, retry = await collect(stream(model, first_turn(), opts(session)))
        methods = [request.method for request in server.requests]
    assert message["stopReason"] == "error"
    assert message["errorMessage"] == "WebSocket closed 1011 scripted close"
    assert any(event["type"] == "text_delta" for event in events)
    assert message["diagnostics"][0]["details"]["phase"] == "after_message_stream_start"
    # The session has moved to SSE: the next request posts.
    assert methods == ["WEBSOCKET", "POST"] and retry["stopReason"] == "stop"


async def test_service_errors_are_not_transport_failures(session: str) -> None:
    refused = ScriptedResponse(http_error=HTTPErrorSpec(400, "Unsupported parameter: tools", type="invalid_request"))
    with FakeLLMServer([refused]) as server:
        _, message = await collect(stream(codex_model(server), first_turn(), opts(session)))
        methods = [request.method for request in server.requests]
    assert message["stopReason"] == "error"
    assert message["errorMessage"] == "Codex error: Unsupported parameter: tools"
    assert methods == ["WEBSOCKET"] and "diagnostics" not in message


async def test_connection_limit_is_retried_once_on_a_new_connection(session: str) -> None:
    limit = ScriptedResponse(
        http_error=HTTPErrorSpec(429, "Too many connections", type="websocket_connection_limit_reached")
    )
    with FakeLLMServer([limit, DONE]) as server:
        _, message = await collect(stream(codex_model(server), first_turn(), opts(session)))
        connections = server.websocket_connections
    assert message["stopReason"] == "stop" and connections == 2


async def test_connect_timeout_falls_back_and_names_the_limit(session: str) -> None:
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read()  # never answers the upgrade (nor the POST after it)

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        with FakeLLMServer() as fake:
            model = {**codex_model(fake), "baseUrl": f"http://127.0.0.1:{port}/backend-api"}
        options = opts(session, websocket_connect_timeout_ms=150, idle_timeout_ms=300)
        _, message = await collect(stream(model, first_turn(), options))  # type: ignore[arg-type]
    finally:
        server.close()
    assert message["stopReason"] == "error"
    assert message["diagnostics"][0]["error"]["message"] == "WebSocket connect timeout after 150ms"


async def test_without_a_session_every_request_has_its_own_connection() -> None:
    with FakeLLMServer([TOOL_CALL, DONE]) as server:
        _, second = await two_turns(codex_model(server), opts(None))
        continued = server.requests[1].json
        for _ in range(200):
            if server.websocket_open == 0:
                break
            await asyncio.sleep(0.01)
        still_open = server.websocket_open
        connections = server.websocket_connections
    assert second["stopReason"] == "stop"
    assert connections == 2 and still_open == 0
    assert "previous_response_id" not in continued and "session-id" in server.requests[1].headers


async def test_ending_the_session_closes_its_connection(session: str) -> None:
    with FakeLLMServer([DONE]) as server:
        await collect(stream(codex_model(server), first_turn(), opts(session)))
        assert server.websocket_open == 1
        await release_session_resources(session)
        for _ in range(200):
            if server.websocket_open == 0:
                break
            await asyncio.sleep(0.01)
        assert server.websocket_open == 0
    assert session not in codex_websocket._cache


def test_websocket_url_keeps_the_route() -> None:
    assert codex_websocket.websocket_url("https://chatgpt.com/backend-api/codex/responses") == (
        "wss://chatgpt.com/backend-api/codex/responses"
    )
    assert codex_websocket.websocket_url("http://127.0.0.1:9/x/codex/responses") == "ws://127.0.0.1:9/x/codex/responses"
