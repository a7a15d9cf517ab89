"""No error text contains a configured credential, whatever produced it (the HTTP library, the
provider's response), for every HTTP API, over the fake server."""

from __future__ import annotations

import pytest

from pi_harness.ai import StreamOptions, is_retryable_error_message, stream
from pi_harness.ai.types import Context
from pi_harness.testing.fake_llm import FakeLLMServer, HTTPErrorSpec, ScriptedResponse, TextStep

APIS = ["openai-completions", "openai-responses", "anthropic-messages", "google-generative-ai"]
CONTEXT: Context = {"messages": [{"role": "user", "content": "hi", "timestamp": 1}]}


@pytest.mark.parametrize("api", APIS)
async def test_a_key_with_a_line_break_is_not_quoted(api: str) -> None:
    key = "sk-live-FIRSTHALF\nSECONDHALF-1234"
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("hi")])]) as server:
        message = await stream(server.model(api), CONTEXT, StreamOptions(api_key=key)).result()
        assert server.requests == []  # refused before sending
    error = message.get("errorMessage", "")
    assert message["stopReason"] == "error"
    assert "FIRSTHALF" not in error and "SECONDHALF" not in error
    assert error.startswith("Invalid value for header ") and "line break" in error
    assert not is_retryable_error_message(error)


@pytest.mark.parametrize("api", APIS)
async def test_a_key_echoed_by_the_provider_is_redacted(api: str) -> None:
    key = "sk-live-0123456789abcdef"
    spec = HTTPErrorSpec(401, f"Incorrect API key provided: {key}.")
    with FakeLLMServer([ScriptedResponse(http_error=spec)]) as server:
        message = await stream(server.model(api), CONTEXT, StreamOptions(api_key=key)).result()
    error = message.get("errorMessage", "")
    assert key not in error and "Incorrect API key provided: [redacted]." in error
