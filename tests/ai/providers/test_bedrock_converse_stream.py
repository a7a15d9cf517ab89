"""``bedrock-converse-stream`` over real HTTP: SigV4 (botocore) or a bearer token, AWS event-stream
framing both ways, against the fake Bedrock endpoint on loopback."""

from __future__ import annotations

import base64
import re
import sys
from collections.abc import Iterator
from typing import Any

import httpx2
import orjson
import pytest
from _streams import collect, hello

from pi_harness.ai import api
from pi_harness.ai.options import SimpleStreamOptions
from pi_harness.ai.overflow import is_context_overflow
from pi_harness.ai.providers import bedrock_auth
from pi_harness.ai.providers.aws_eventstream import EventStreamDecoder, EventStreamError, encode_message
from pi_harness.ai.providers.bedrock_converse_stream import BedrockOptions, build_request_body, stream
from pi_harness.ai.retry import is_retryable_error_message
from pi_harness.ai.types import Context, Model
from pi_harness.testing.fake_llm import (
    FakeLLMServer,
    HTTPErrorSpec,
    ScriptedResponse,
    TextStep,
    ThinkingStep,
    ToolCallStep,
)
from pi_harness.testing.fake_llm import bedrock as fake_bedrock
from pi_harness.testing.fake_llm.bedrock import INCOMPLETE_SIGNATURE, MISSING_TOKEN, SIGNATURE_MISMATCH

API = "bedrock-converse-stream"
CLAUDE = "us.anthropic.claude-sonnet-4-20250514-v1:0"


@pytest.fixture(autouse=True)
def aws_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> Iterator[None]:
    # No instance-metadata lookups and no real config files: only what a test sets.
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "aws-config"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "aws-credentials"))
    bedrock_auth.forget_sessions()
    yield
    bedrock_auth.forget_sessions()


def keys(monkeypatch: pytest.MonkeyPatch, session_token: str | None = None) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAFAKEKEY1234567")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "fake/secret/key")
    if session_token:
        monkeypatch.setenv("AWS_SESSION_TOKEN", session_token)


def bedrock_model(server: FakeLLMServer, model_id: str = CLAUDE, **overrides: Any) -> Model:
    fields: dict[str, Any] = {"provider": "amazon-bedrock", "name": "Claude Sonnet 4", **overrides}
    return server.model(API, model_id=model_id, **fields)


# --- framing ----------------------------------------------------------------------------------


def test_event_stream_round_trip_in_any_pieces_and_checksums() -> None:
    first = encode_message({":event-type": "messageStart", ":message-type": "event"}, b'{"role":"assistant"}')
    second = encode_message({":event-type": "messageStop", ":message-type": "event"}, b'{"stopReason":"end_turn"}')
    decoder = EventStreamDecoder()
    data = first + second
    messages = [m for i in range(0, len(data), 5) for m in decoder.feed(data[i : i + 5])]
    assert [(m.event_type, m.payload) for m in messages] == [
        ("messageStart", b'{"role":"assistant"}'),
        ("messageStop", b'{"stopReason":"end_turn"}'),
    ]
    assert decoder.pending == 0
    broken = bytearray(first)
    broken[-5] ^= 0xFF
    with pytest.raises(EventStreamError, match="checksum"):
        list(EventStreamDecoder().feed(bytes(broken)))


def test_frames_decode_with_botocore_too() -> None:
    eventstream = pytest.importorskip("botocore.eventstream", reason="botocore (extra 'bedrock') is not installed")
    message = encode_message({":event-type": "metadata", ":content-type": "application/json"}, b"{}")
    buffer = eventstream.EventStreamBuffer()
    buffer.add_data(message)
    (decoded,) = list(buffer)
    assert decoded.headers[":event-type"] == "metadata" and decoded.payload == b"{}"


# --- requests ---------------------------------------------------------------------------------


async def test_sigv4_signed_request_streams_text_thinking_and_tools(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("botocore", reason="botocore (extra 'bedrock') is not installed")
    keys(monkeypatch, session_token="FQoGZXIvYXdzEXAMPLE")
    monkeypatch.setenv("AWS_REGION", "eu-west-1")
    # The fake recomputes the signature with the secret, as AWS does.
    monkeypatch.setitem(fake_bedrock.KNOWN_SECRET_KEYS, "AKIAFAKEKEY1234567", "fake/secret/key")
    script = ScriptedResponse(
        steps=[
            ThinkingStep("Plan.", signature="sig-abc"),
            TextStep("Reading.", chunks=2),
            ToolCallStep("read", {"path": "a.txt"}, id="tooluse_1", chunks=3),
        ],
        usage={"input": 500, "output": 80, "cacheRead": 1000, "cacheWrite": 200},
        fragment_bytes=9,  # event-stream messages split across writes
    )
    with FakeLLMServer([script]) as server:
        model = bedrock_model(
            server, reasoning=True, cost={"input": 3.0, "output": 15.0, "cacheRead": 0.3, "cacheWrite": 3.75}
        )
        events, message = await collect(stream(model, hello("Be brief."), BedrockOptions()))
        request = server.requests[0]
    assert request.path == "/model/us.anthropic.claude-sonnet-4-20250514-v1%3A0/converse-stream"
    assert request.headers["content-type"] == "application/json"
    auth = request.headers["authorization"]
    assert re.match(
        r"^AWS4-HMAC-SHA256 Credential=AKIAFAKEKEY1234567/\d{8}/eu-west-1/bedrock/aws4_request, SignedHeaders=\S+, Signature=[0-9a-f]{64}$",
        auth,
    )
    assert request.headers["x-amz-security-token"] == "FQoGZXIvYXdzEXAMPLE"
    assert [e["type"] for e in events] == [
        "start",
        "thinking_start",
        "thinking_delta",
        "thinking_delta",
        "thinking_end",
        "text_start",
        "text_delta",
        "text_delta",
        "text_end",
        "toolcall_start",
        "toolcall_delta",
        "toolcall_delta",
        "toolcall_delta",
        "toolcall_end",
        "done",
    ]
    thinking, text, call = message["content"]
    assert thinking == {"type": "thinking", "thinking": "Plan.", "thinkingSignature": "sig-abc"}
    assert text == {"type": "text", "text": "Reading."}
    assert call["type"] == "toolCall" and call["id"] == "tooluse_1" and call["arguments"] == {"path": "a.txt"}
    assert message["stopReason"] == "toolUse" and message["rawStopReason"] == "tool_use"
    usage = message["usage"]
    assert (usage["input"], usage["output"], usage["cacheRead"], usage["cacheWrite"], usage["totalTokens"]) == (
        500,
        80,
        1000,
        200,
        1780,
    )
    assert usage["cost"]["total"] == pytest.approx(0.0015 + 0.0012 + 0.0003 + 0.00075)


def test_request_body_for_claude_with_history_caching_and_thinking() -> None:
    model: Any = {
        "id": CLAUDE,
        "name": "Claude Sonnet 4",
        "api": API,
        "provider": "amazon-bedrock",
        "baseUrl": "https://bedrock-runtime.us-east-1.amazonaws.com",
        "reasoning": True,
        "input": ["text", "image"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 200000,
        "maxTokens": 64000,
    }
    png = base64.b64encode(b"\x89PNG").decode()
    context: Context = {
        "systemPrompt": "Sys",
        "messages": [
            {
                "role": "user",
                "content": [{"type": "text", "text": "  "}, {"type": "image", "data": png, "mimeType": "image/png"}],
                "timestamp": 1,
            },
            {
                "role": "assistant",
                "content": [
                    {"type": "thinking", "thinking": "t", "thinkingSignature": "s"},
                    {"type": "toolCall", "id": "call|x", "name": "ls", "arguments": {"": 1, "p": "."}},
                ],
                "api": API,
                "provider": "amazon-bedrock",
                "model": CLAUDE,
                "usage": {
                    "input": 0,
                    "output": 0,
                    "cacheRead": 0,
                    "cacheWrite": 0,
                    "totalTokens": 0,
                    "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
                },
                "stopReason": "toolUse",
                "timestamp": 2,
            },
            {
                "role": "toolResult",
                "toolCallId": "call|x",
                "toolName": "ls",
                "content": [{"type": "text", "text": ""}],
                "isError": True,
                "timestamp": 3,
            },
        ],
        "tools": [{"name": "ls", "description": "List", "parameters": {"type": "object"}}],
    }
    options = BedrockOptions(reasoning="medium", cache_retention="long", tool_choice="auto")
    body = build_request_body(model, context, options)
    assert list(body) == ["messages", "system", "inferenceConfig", "toolConfig", "additionalModelRequestFields"]
    assert body["system"] == [{"text": "Sys"}, {"cachePoint": {"type": "default", "ttl": "1h"}}]
    user, assistant, results = body["messages"]  # type: ignore[misc]
    assert user["content"] == [{"image": {"format": "png", "source": {"bytes": png}}}]
    assert assistant["content"] == [
        {"reasoningContent": {"reasoningText": {"text": "t", "signature": "s"}}},
        {"toolUse": {"toolUseId": "call|x", "name": "ls", "input": {"p": "."}}},
    ]
    assert results["content"] == [
        {"toolResult": {"toolUseId": "call|x", "content": [{"text": "<empty>"}], "status": "error"}},
        {"cachePoint": {"type": "default", "ttl": "1h"}},
    ]
    assert body["inferenceConfig"] == {"maxTokens": 64000}
    assert body["toolConfig"] == {
        "tools": [{"toolSpec": {"name": "ls", "description": "List", "inputSchema": {"json": {"type": "object"}}}}],
        "toolChoice": {"auto": {}},
    }
    assert body["additionalModelRequestFields"] == {
        "thinking": {"type": "enabled", "budget_tokens": 8192, "display": "summarized"},
        "anthropic_beta": ["interleaved-thinking-2025-05-14"],
    }


async def test_bearer_token_from_the_environment_through_the_public_api(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", "bedrock-api-key-123")
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("hi")])]) as server:
        message = await api.complete_simple(
            bedrock_model(server, model_id="amazon.nova-pro-v1:0", name="Nova Pro"), hello("Be brief.")
        )
        request = server.requests[0]
    assert message["stopReason"] == "stop", message.get("errorMessage")
    assert request.headers["authorization"] == "Bearer bedrock-api-key-123"
    assert "x-amz-date" not in request.headers
    assert "cachePoint" not in orjson.dumps(request.json).decode()  # Nova caches by itself


async def test_redacted_reasoning_is_kept_as_base64(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", "tok")
    script = ScriptedResponse(steps=[ThinkingStep("", signature="opaque-bytes", redacted=True), TextStep("ok")])
    with FakeLLMServer([script]) as server:
        _, message = await collect(
            stream(bedrock_model(server, model_id="openai.gpt-5", name="GPT-5"), hello("Be brief."), BedrockOptions())
        )
    thinking = message["content"][0]
    assert thinking["type"] == "thinking" and thinking.get("redacted") is True
    assert thinking["thinking"] == "[Reasoning redacted]"
    assert base64.b64decode(thinking["thinkingSignature"]) == b"opaque-bytes"


async def test_missing_botocore_is_a_one_line_hint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "botocore.auth", None)
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("never")])]) as server:
        _, message = await collect(stream(bedrock_model(server), hello("Be brief."), BedrockOptions()))
        assert server.requests == []
    assert message["errorMessage"] == (
        "Amazon Bedrock with AWS credentials needs the Python package 'botocore', which is not installed "
        "(pip install 'pi-harness[bedrock]')"
    )


async def test_no_credentials_is_an_error_event() -> None:
    pytest.importorskip("botocore", reason="botocore (extra 'bedrock') is not installed")
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("never")])]) as server:
        _, message = await collect(stream(bedrock_model(server), hello("Be brief."), BedrockOptions()))
        assert server.requests == []
    assert message["stopReason"] == "error"
    assert message["errorMessage"] == bedrock_auth.NO_CREDENTIALS


def test_region_and_endpoint_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    standard: Any = {"id": "anthropic.claude-x", "baseUrl": "https://bedrock-runtime.us-west-2.amazonaws.com"}
    assert bedrock_auth.resolve_region(standard) == "us-west-2"
    assert bedrock_auth.request_url(standard, "us-west-2") == (
        "https://bedrock-runtime.us-west-2.amazonaws.com/model/anthropic.claude-x/converse-stream"
    )
    arn: Any = {"id": "arn:aws:bedrock:ap-south-1:123:inference-profile/x", "baseUrl": ""}
    assert bedrock_auth.resolve_region(arn) == "ap-south-1"
    assert bedrock_auth.request_url(arn, "ap-south-1").endswith(
        "/model/arn%3Aaws%3Abedrock%3Aap-south-1%3A123%3Ainference-profile%2Fx/converse-stream"
    )
    monkeypatch.setenv("AWS_REGION", "eu-central-1")
    assert bedrock_auth.resolve_region(standard) == "eu-central-1"
    assert bedrock_auth.request_url(standard, "eu-central-1").startswith(
        "https://bedrock-runtime.eu-central-1.amazonaws.com/"
    )
    proxy: Any = {"id": "m", "baseUrl": "https://vpce-1.bedrock-runtime.example/"}
    assert (
        bedrock_auth.request_url(proxy, "eu-central-1")
        == "https://vpce-1.bedrock-runtime.example/model/m/converse-stream"
    )


# --- errors -----------------------------------------------------------------------------------


def test_fake_checks_the_sigv4_header_shape() -> None:
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("x")])]) as server:
        url = server.url + "/model/m/converse-stream"
        missing = httpx2.post(url, json={})
        malformed = httpx2.post(url, json={}, headers={"Authorization": "AWS4-HMAC-SHA256 Credential=x"})
        assert server.pending == 1
    assert missing.status_code == 403 and missing.json() == {"message": MISSING_TOKEN}
    assert missing.headers["x-amzn-errortype"].startswith("MissingAuthenticationTokenException:")
    assert malformed.status_code == 403 and malformed.json() == {"message": INCOMPLETE_SIGNATURE}


async def test_http_errors_carry_pis_prefixes_and_classify(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", "tok")
    scripts = [
        ScriptedResponse(http_error=HTTPErrorSpec(400, "Input is too long for requested model.")),
        ScriptedResponse(http_error=HTTPErrorSpec(429, "Too many requests, please wait before trying again.")),
        ScriptedResponse(http_error=HTTPErrorSpec(503, "Bedrock is unable to process your request.")),
        ScriptedResponse(
            http_error=HTTPErrorSpec(403, "You don't have access to the model with the specified model ID.")
        ),
        ScriptedResponse(
            http_error=HTTPErrorSpec(502, "", body="<html>bad gateway</html>", headers={"x-amzn-ErrorType": ""})
        ),
    ]
    with FakeLLMServer(scripts) as server:
        results = [
            (await collect(stream(bedrock_model(server), hello("Be brief."), BedrockOptions())))[1] for _ in scripts
        ]
    too_long, throttled, unavailable, denied, gateway = (m["errorMessage"] for m in results)
    assert too_long == "Validation error: Input is too long for requested model."
    assert is_context_overflow(results[0]) and not is_retryable_error_message(too_long)
    assert throttled == "Throttling error: Too many requests, please wait before trying again."
    assert unavailable == "Service unavailable: Bedrock is unable to process your request."
    for text in (throttled, unavailable):
        assert is_retryable_error_message(text)
    assert denied == "AccessDeniedException: You don't have access to the model with the specified model ID."
    assert not is_retryable_error_message(denied)
    assert gateway == "UnknownError: 502: <html>bad gateway</html>"
    assert is_retryable_error_message(gateway)


async def test_exception_event_mid_stream_keeps_partial_text(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", "tok")
    script = ScriptedResponse(
        steps=[TextStep("partial", chunks=2)],
        stream_error=HTTPErrorSpec(
            500, "The system encountered an unexpected error during processing. Try your request again."
        ),
    )
    with FakeLLMServer([script]) as server:
        _, message = await collect(stream(bedrock_model(server), hello("Be brief."), BedrockOptions()))
    assert message["stopReason"] == "error"
    assert message["errorMessage"].startswith("Internal server error: The system encountered")
    assert message["content"][0]["text"] == "partial"  # type: ignore[typeddict-item]
    assert is_retryable_error_message(message["errorMessage"])


@pytest.mark.parametrize(
    ("native", "stop"),
    [("max_tokens", "length"), ("model_context_window_exceeded", "length"), ("guardrail_intervened", "error")],
)
async def test_stop_reasons(native: str, stop: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", "tok")
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("x")], native_stop=native)]) as server:
        _, message = await collect(stream(bedrock_model(server), hello("Be brief."), BedrockOptions()))
    assert message["stopReason"] == stop and message["rawStopReason"] == native
    if stop == "error":
        assert message["errorMessage"] == f"Provider stopped with: {native}"


async def test_cut_off_stream_is_a_retryable_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", "tok")
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("abc", chunks=3)], drop_after=3)]) as server:
        _, message = await collect(stream(bedrock_model(server), hello("Be brief."), BedrockOptions()))
    assert message["stopReason"] == "error"
    assert is_retryable_error_message(message["errorMessage"])


async def test_thinking_levels_map_to_additional_fields(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", "tok")
    with FakeLLMServer(default=ScriptedResponse(steps=[TextStep("ok")])) as server:
        adaptive = bedrock_model(
            server,
            model_id="us.anthropic.claude-opus-4-7",
            name="Claude Opus 4.7",
            reasoning=True,
            thinkingLevelMap={"xhigh": "xhigh"},
        )
        oss = bedrock_model(server, model_id="openai.gpt-oss-120b-1:0", name="gpt-oss-120b", reasoning=True)
        for model in (adaptive, oss):
            await collect(api.stream_simple(model, hello("Be brief."), SimpleStreamOptions(reasoning="xhigh")))
        first, second = (r.json["additionalModelRequestFields"] for r in server.requests)
    assert first["output_config"] == {"effort": "xhigh"}
    assert first["thinking"]["type"] == "adaptive" and first["anthropic_beta"] == [
        "thinking-binding-controls-2026-08-01"
    ]
    assert second == {"reasoning_effort": "high"}


async def test_budget_thinking_on_claude_fits_inside_max_tokens(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", "tok")
    with FakeLLMServer(default=ScriptedResponse(steps=[TextStep("ok")])) as server:
        roomy = bedrock_model(server, reasoning=True, maxTokens=64000)
        tight = bedrock_model(server, reasoning=True, maxTokens=10000)
        await collect(api.stream_simple(roomy, hello("Be brief."), SimpleStreamOptions(reasoning="high")))
        await collect(
            api.stream_simple(tight, hello("Be brief."), SimpleStreamOptions(reasoning="high", max_tokens=4000))
        )
        first, second = (r.json for r in server.requests)
    assert first["inferenceConfig"] == {"maxTokens": 64000}  # the model cap, the 16384 budget inside it
    assert first["additionalModelRequestFields"]["thinking"]["budget_tokens"] == 16384
    assert second["inferenceConfig"] == {"maxTokens": 10000}  # capped by the model
    assert second["additionalModelRequestFields"]["thinking"]["budget_tokens"] == 8976  # leaves 1024 to answer


def test_claude_error_results_send_their_images_after_the_tool_results() -> None:
    png = base64.b64encode(b"\x89PNG").decode()
    call = {"type": "toolCall", "id": "t1", "name": "shot", "arguments": {}}
    assistant: Any = {
        "role": "assistant",
        "content": [call],
        "api": API,
        "provider": "amazon-bedrock",
        "model": CLAUDE,
        "usage": {
            "input": 0,
            "output": 0,
            "cacheRead": 0,
            "cacheWrite": 0,
            "totalTokens": 0,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
        },
        "stopReason": "toolUse",
        "timestamp": 2,
    }
    result: Any = {
        "role": "toolResult",
        "toolCallId": "t1",
        "toolName": "shot",
        "content": [{"type": "text", "text": "failed"}, {"type": "image", "data": png, "mimeType": "image/png"}],
        "isError": True,
        "timestamp": 3,
    }
    context: Context = {"messages": [{"role": "user", "content": "go", "timestamp": 1}, assistant, result]}
    model: Any = {
        "id": CLAUDE,
        "name": "Claude Sonnet 4",
        "api": API,
        "provider": "amazon-bedrock",
        "reasoning": False,
        "input": ["text", "image"],
        "maxTokens": 100,
    }
    other: Any = {**model, "id": "amazon.nova-pro-v1:0", "name": "Nova Pro"}
    claude_body = build_request_body(model, context, BedrockOptions(cache_retention="none"))
    nova_body = build_request_body(other, context, BedrockOptions(cache_retention="none"))
    image = {"image": {"format": "png", "source": {"bytes": png}}}
    assert claude_body["messages"][2]["content"] == [  # type: ignore[index]
        {
            "toolResult": {
                "toolUseId": "t1",
                "content": [{"text": "failed"}, {"text": "(image attached after the tool results)"}],
                "status": "error",
            }
        },
        {"text": "Images from the error result of tool call t1 (shot):"},
        image,
    ]
    assert nova_body["messages"][2]["content"] == [  # type: ignore[index]
        {"toolResult": {"toolUseId": "t1", "content": [{"text": "failed"}, image], "status": "error"}}
    ]


async def test_a_signature_made_with_the_wrong_secret_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("botocore", reason="botocore (extra 'bedrock') is not installed")
    keys(monkeypatch)
    monkeypatch.setitem(fake_bedrock.KNOWN_SECRET_KEYS, "AKIAFAKEKEY1234567", "the-real-secret")
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("never")])]) as server:
        events, message = await collect(stream(bedrock_model(server), hello("Be brief."), BedrockOptions()))
        assert server.pending == 1  # refused before any scripted answer
    assert [e["type"] for e in events] == ["error"]
    assert message["errorMessage"] == f"InvalidSignatureException: {SIGNATURE_MISMATCH}"
    assert not is_retryable_error_message(message["errorMessage"])
