"""Provider faults over two wire protocols: what a user sees when the LLM service misbehaves.

Each test runs the real ``pi`` against the fake LLM server speaking OpenAI Chat Completions or
Anthropic Messages, and checks the exit code, the events (JSON/RPC mode), the retries counted by
the server and that the session file is whole.
"""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Callable
from typing import Any

import pytest
from _faults import check_session, tool_results, wait_exit
from _pi_env import PiEnv
from _provider_env import APIS, assistant_ends, of_type, records, use_api
from _rpc_client import RpcClient

from pi_harness.testing.fake_llm import HTTPErrorSpec, ScriptedResponse, TextStep, ToolCallStep

StartRpc = Callable[..., RpcClient]
FAST_RETRY = {"retry": {"baseDelayMs": 10, "maxRetries": 3}}

pytestmark = pytest.mark.parametrize("api", APIS)


def session_entries(pi_env: PiEnv) -> list[dict[str, Any]]:
    (path,) = pi_env.sessions()
    return check_session(path)


def session_messages(pi_env: PiEnv) -> list[dict[str, Any]]:
    return [e["message"] for e in session_entries(pi_env) if e.get("type") == "message"]


def test_429_with_retry_after_waits_the_given_delay(pi_env: PiEnv, api: str) -> None:
    # Provider-level retries honour Retry-After (the session-level retry has its own backoff).
    use_api(pi_env, api, {"retry": {"enabled": False, "provider": {"maxRetries": 2, "maxRetryDelayMs": 5000}}})
    limited = HTTPErrorSpec(429, "Rate limit reached", type="rate_limit_error", headers={"retry-after": "1"})
    pi_env.server.push(ScriptedResponse(http_error=limited), ScriptedResponse(steps=[TextStep("after the wait")]))
    result = pi_env.run("-p", "hello")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "after the wait"
    first, second = pi_env.server.requests
    assert second.received_at - first.received_at >= 0.9  # the asked-for second, not the 0.5 s backoff
    session_entries(pi_env)


def test_retry_after_above_the_limit_fails_at_once(pi_env: PiEnv, api: str) -> None:
    use_api(pi_env, api, {"retry": {"enabled": False, "provider": {"maxRetries": 2, "maxRetryDelayMs": 2000}}})
    limited = HTTPErrorSpec(429, "Rate limit reached", type="rate_limit_error", headers={"retry-after": "120"})
    pi_env.server.push(ScriptedResponse(http_error=limited))
    started = time.monotonic()
    result = pi_env.run("-p", "hello")
    assert result.returncode == 1
    assert "above the limit of 2s" in result.stderr
    assert len(pi_env.server.requests) == 1
    assert time.monotonic() - started < 60  # never the 120 s the server asked for


def test_session_level_retry_of_a_429_uses_its_own_backoff(pi_env: PiEnv, api: str) -> None:
    # Default settings (no provider-level retries): the session retries with ``retry.baseDelayMs``
    # doubling, as Pi does; the server's Retry-After is not consulted.
    use_api(pi_env, api, FAST_RETRY)
    limited = HTTPErrorSpec(429, "Rate limit reached", type="rate_limit_error", headers={"retry-after": "30"})
    pi_env.server.push(ScriptedResponse(http_error=limited), ScriptedResponse(steps=[TextStep("retried")]))
    result = pi_env.run("--mode", "json", "hello")
    assert result.returncode == 0, result.stderr
    found = records(result.stdout)
    (start,) = of_type(found, "auto_retry_start")
    assert start["delayMs"] == 10
    assert assistant_ends(found)[-1]["content"][0]["text"] == "retried"
    first, second = pi_env.server.requests
    assert second.received_at - first.received_at < 20  # not the 30 s asked for


def test_a_run_of_5xx_is_retried_and_counted(pi_env: PiEnv, api: str) -> None:
    use_api(pi_env, api, FAST_RETRY)
    for status in (500, 502, 503):
        pi_env.server.push(ScriptedResponse(http_error=HTTPErrorSpec(status, f"server error {status}")))
    pi_env.server.push(ScriptedResponse(steps=[TextStep("finally")]))
    result = pi_env.run("--mode", "json", "hello")
    assert result.returncode == 0, result.stderr
    found = records(result.stdout)
    assert [r["attempt"] for r in of_type(found, "auto_retry_start")] == [1, 2, 3]
    (end,) = of_type(found, "auto_retry_end")
    assert end["success"] is True
    assert assistant_ends(found)[-1]["stopReason"] == "stop"
    assert len(pi_env.server.requests) == 4
    session_entries(pi_env)


def test_5xx_beyond_max_retries_ends_in_an_error(pi_env: PiEnv, api: str) -> None:
    use_api(pi_env, api, {"retry": {"baseDelayMs": 10, "maxRetries": 2}})
    for _ in range(3):
        pi_env.server.push(ScriptedResponse(http_error=HTTPErrorSpec(503, "overloaded")))
    result = pi_env.run("-p", "hello")
    assert result.returncode == 1
    assert "overloaded" in result.stderr
    assert len(pi_env.server.requests) == 3  # the first try and two retries, no more
    assert [m for m in session_messages(pi_env) if m.get("stopReason") == "error"]


def test_a_stream_dropped_mid_message_is_retried(pi_env: PiEnv, api: str) -> None:
    use_api(pi_env, api, FAST_RETRY)
    pi_env.server.push(ScriptedResponse(steps=[TextStep("this answer is cut off", chunks=6)], drop_after=4))
    pi_env.server.push(ScriptedResponse(steps=[TextStep("whole answer")]))
    result = pi_env.run("--mode", "json", "hello")
    assert result.returncode == 0, result.stderr
    found = records(result.stdout)
    ends = assistant_ends(found)
    assert ends[0]["stopReason"] == "error"
    assert ends[-1]["stopReason"] == "stop"
    assert ends[-1]["content"][0]["text"] == "whole answer"
    assert len(of_type(found, "auto_retry_start")) == 1
    session_entries(pi_env)


def test_malformed_sse_is_an_error_not_a_crash(pi_env: PiEnv, api: str) -> None:
    use_api(pi_env, api, {"retry": {"enabled": False}})
    # A line that is no SSE field is ignored; a known event whose data is not JSON is an error.
    garbage = b"this line is no field\n\nevent: content_block_delta\ndata: {not json at all\n\n"
    pi_env.server.push(ScriptedResponse(steps=[TextStep("partial answer", chunks=4)], garbage=garbage, garbage_after=3))
    result = pi_env.run("--mode", "json", "hello")
    found = records(result.stdout)  # every stdout line is still a JSON record
    (message,) = assistant_ends(found)
    assert message["stopReason"] == "error"
    assert message["errorMessage"]
    assert "Traceback" not in result.stderr
    session_entries(pi_env)
    # The session goes on: the next prompt on it is answered.
    pi_env.server.push(ScriptedResponse(steps=[TextStep("fine again")]))
    again = pi_env.run("-c", "-p", "again")
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip() == "fine again"


def test_a_never_ending_stream_is_ended_by_rpc_abort(pi_env: PiEnv, api: str, start_rpc: StartRpc) -> None:
    use_api(pi_env, api)
    pi_env.server.push(ScriptedResponse(steps=[TextStep("streaming forever", chunks=4)], stall_after=3))
    client = start_rpc()
    start = client.mark()
    assert client.request("prompt", message="go")["success"] is True
    client.wait_event("message_update", start=start)
    assert client.request("abort")["success"] is True
    client.wait_event("agent_settled", start=start)
    ends = [r["message"] for r in client.events(start) if r["type"] == "message_end"]
    assert ends[-1]["role"] == "assistant"
    assert ends[-1]["stopReason"] == "aborted"
    deadline = time.monotonic() + 10
    while pi_env.server.cancelled_streams < 1 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert pi_env.server.cancelled_streams == 1  # the connection was closed, not left hanging
    # The session takes a new prompt at once.
    pi_env.server.push(ScriptedResponse(steps=[TextStep("next")]))
    records_ = client.prompt_and_settle("next one")
    assert [
        r["message"]["stopReason"]
        for r in records_
        if r["type"] == "message_end" and r["message"]["role"] == "assistant"
    ] == ["stop"]
    client.close_stdin()
    assert client.wait_exit() == 0
    session_entries(pi_env)


def test_a_never_ending_stream_is_ended_by_sigint(pi_env: PiEnv, api: str) -> None:
    use_api(pi_env, api)
    pi_env.server.push(ScriptedResponse(steps=[TextStep("streaming forever", chunks=4)], stall_after=3))
    process = pi_env.popen("--mode", "json", "go", stdin=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while not pi_env.server.requests and time.monotonic() < deadline:
        time.sleep(0.02)
    assert pi_env.server.requests, "pi never called the server"
    time.sleep(0.2)  # let the first events arrive; the outcome is the same either way
    process.send_signal(signal.SIGINT)
    assert wait_exit(process) == 130
    deadline = time.monotonic() + 10
    while pi_env.server.cancelled_streams < 1 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert pi_env.server.cancelled_streams == 1
    for path in pi_env.sessions():
        check_session(path)


def test_a_10_mb_delta_arrives_whole(pi_env: PiEnv, api: str) -> None:
    use_api(pi_env, api)
    text = "0123456789abcdef" * (10 * 1024 * 1024 // 16)
    pi_env.server.push(ScriptedResponse(steps=[TextStep(text, chunks=1)]))
    result = pi_env.run("-p", "big", timeout=90)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.rstrip("\n") == text
    assistant = [m for m in session_messages(pi_env) if m["role"] == "assistant"]
    assert assistant[-1]["content"][0]["text"] == text


@pytest.mark.parametrize(
    "raw",
    [
        '{"command": "echo pwned > pwned.txt", oops}',
        '{"command": "echo pwned > pwned.txt"}}',
        "echo pwned > pwned.txt",
        '{"command": "echo pwned > pwned.txt"',
    ],
    ids=["bad_token", "trailing_brace", "not_json", "cut_off"],
)
def test_invalid_tool_call_json_is_refused_not_run(pi_env: PiEnv, api: str, raw: str) -> None:
    use_api(pi_env, api)
    call = ToolCallStep("bash", {}, id="call_bad", raw_arguments=raw)
    pi_env.server.push(ScriptedResponse(steps=[call]), ScriptedResponse(steps=[TextStep("done")]))
    result = pi_env.run("-p", "run it")
    assert result.returncode == 0, result.stderr
    assert not (pi_env.cwd / "pwned.txt").exists()
    (tool_result,) = tool_results(session_entries(pi_env))
    assert tool_result["isError"] is True
    assert tool_result["toolCallId"] == "call_bad"
    text = tool_result["content"][0]["text"]
    assert text.startswith('Invalid arguments for tool "bash": ')
    assert text.endswith(f"Received arguments:\n{raw}")  # the model sees what it sent


def test_a_stalled_stream_ends_at_the_idle_timeout_and_is_retried(pi_env: PiEnv, api: str) -> None:
    use_api(pi_env, api, {"httpIdleTimeoutMs": 1000, **FAST_RETRY})
    pi_env.server.push(ScriptedResponse(steps=[TextStep("stalls here", chunks=4)], stall_after=3))
    pi_env.server.push(ScriptedResponse(steps=[TextStep("second try")]))
    result = pi_env.run("--mode", "json", "hello")
    assert result.returncode == 0, result.stderr
    found = records(result.stdout)
    ends = assistant_ends(found)
    assert ends[0]["stopReason"] == "error"
    assert ends[-1]["content"][0]["text"] == "second try"
    assert len(of_type(found, "auto_retry_start")) == 1
    session_entries(pi_env)


def test_headers_that_never_come_are_ended_by_rpc_abort(pi_env: PiEnv, api: str, start_rpc: StartRpc) -> None:
    use_api(pi_env, api)
    pi_env.server.push(ScriptedResponse(steps=[TextStep("never sent")], delay_ms=3_600_000))
    client = start_rpc()
    start = client.mark()
    assert client.request("prompt", message="go")["success"] is True
    deadline = time.monotonic() + 20
    while not pi_env.server.requests and time.monotonic() < deadline:
        time.sleep(0.02)
    assert client.request("abort")["success"] is True
    client.wait_event("agent_settled", start=start)
    ends = [r["message"] for r in client.events(start) if r["type"] == "message_end"]
    assert ends[-1]["role"] == "assistant" and ends[-1]["stopReason"] == "aborted"
    client.close_stdin()
    assert client.wait_exit() == 0
    session_entries(pi_env)
