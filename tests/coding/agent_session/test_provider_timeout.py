"""``retry.provider.timeoutMs``: how long a request waits for the provider's response headers,
over real HTTP against the fake server (which holds its headers back for a while)."""

from __future__ import annotations

from pathlib import Path

from _agent_session_helpers import make_session

from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep

# Far longer than any timeout below: the fake server sends its headers only after this.
HELD_BACK_MS = 60_000


def last_assistant(messages: list[dict[str, object]]) -> dict[str, object]:
    return next(m for m in reversed(messages) if m.get("role") == "assistant")


async def test_a_provider_that_sends_no_headers_in_time_fails_the_request(
    server: FakeLLMServer, project: Path
) -> None:
    server.push(ScriptedResponse(steps=[TextStep("too late")], delay_ms=HELD_BACK_MS))
    settings = {"retry": {"enabled": False, "provider": {"timeoutMs": 100}}}
    result = await make_session(server, project, settings=settings)
    assert result.session.base_stream_options.timeout_ms == 100
    await result.session.prompt("hello")
    reply = last_assistant(list(result.session.get_messages()))
    assert reply["stopReason"] == "error"
    assert reply["errorMessage"] == "Connection error: request timed out (no response within 100 ms)"
    await result.runtime.shutdown()


async def test_the_provider_retry_sends_the_request_again_after_a_timeout(
    server: FakeLLMServer, project: Path
) -> None:
    server.push(
        ScriptedResponse(steps=[TextStep("too late")], delay_ms=HELD_BACK_MS),
        ScriptedResponse(steps=[TextStep("in time")]),
    )
    settings = {"retry": {"enabled": False, "provider": {"timeoutMs": 100, "maxRetries": 1}}}
    result = await make_session(server, project, settings=settings)
    await result.session.prompt("hello")
    reply = last_assistant(list(result.session.get_messages()))
    assert reply["stopReason"] == "stop", reply.get("errorMessage")
    assert len(server.requests) == 2
    await result.runtime.shutdown()


async def test_without_the_setting_the_request_waits_for_slow_headers(server: FakeLLMServer, project: Path) -> None:
    server.push(ScriptedResponse(steps=[TextStep("worth the wait")], delay_ms=300))
    result = await make_session(server, project, settings={"retry": {"enabled": False}})
    assert result.session.base_stream_options.timeout_ms is None  # httpIdleTimeoutMs bounds the wait
    await result.session.prompt("hello")
    reply = last_assistant(list(result.session.get_messages()))
    assert reply["stopReason"] == "stop", reply.get("errorMessage")
    await result.runtime.shutdown()
