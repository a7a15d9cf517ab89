"""``pi -p`` with an ``openai-codex-responses`` model: over the WebSocket route by default (Pi's
``transport: "auto"``), the tool turn sending only its new input on the kept connection; with the
route refused, over SSE with the fallback recorded in the session file, as Pi 1.4.0 does against
the same fake server (``tests/fixtures/pi_codex/websocket_request.json``)."""

from __future__ import annotations

import base64
import json

from _pi_env import PiEnv

from pi_harness.testing.fake_llm import ScriptedResponse, TextStep, ToolCallStep


def _token() -> str:
    def part(data: object) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")

    return ".".join([part({"alg": "none"}), part({"https://api.openai.com/auth": {"chatgpt_account_id": "acct-1"}}), "s"])


def _configure(pi_env: PiEnv, settings: dict[str, object]) -> None:
    provider = {
        "baseUrl": pi_env.server.base_url("openai-codex-responses"),
        "api": "openai-codex-responses",
        "apiKey": _token(),
        "models": [{"id": "gpt-x", "contextWindow": 100000, "maxTokens": 1000}],
    }
    (pi_env.agent_dir / "models.json").write_text(json.dumps({"providers": {"cx": provider}}))
    (pi_env.agent_dir / "settings.json").write_text(
        json.dumps({"defaultProvider": "cx", "defaultModel": "gpt-x", **settings})
    )
    pi_env.server.push(
        ScriptedResponse(steps=[ToolCallStep("ls", {"path": "."})]), ScriptedResponse(steps=[TextStep("done")])
    )


def _assistant_messages(pi_env: PiEnv) -> list[dict[str, object]]:
    (session,) = pi_env.sessions()
    entries = [json.loads(line) for line in session.read_text().splitlines()]
    return [e["message"] for e in entries if e.get("type") == "message" and e["message"]["role"] == "assistant"]


def test_tool_turn_continues_on_the_kept_websocket(pi_env: PiEnv) -> None:
    _configure(pi_env, {})
    result = pi_env.run("-p", "list the files")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "done\n"
    server = pi_env.server
    assert [request.method for request in server.requests] == ["WEBSOCKET", "WEBSOCKET"]
    assert server.websocket_connections == 1
    first, second = _assistant_messages(pi_env)
    continued = server.requests[1].json
    assert continued["previous_response_id"] == first["responseId"]
    assert [item["type"] for item in continued["input"]] == ["function_call_output"]
    assert "diagnostics" not in first and "diagnostics" not in second


def test_refused_websocket_falls_back_to_sse_and_records_it(pi_env: PiEnv) -> None:
    _configure(pi_env, {})
    pi_env.server.websocket = False
    result = pi_env.run("-p", "list the files")
    assert result.returncode == 0, result.stderr
    assert [request.method for request in pi_env.server.requests] == ["POST", "POST"]
    first, second = _assistant_messages(pi_env)
    assert [d["type"] for d in first["diagnostics"]] == ["provider_transport_failure"]  # type: ignore[attr-defined]
    assert "diagnostics" not in second


def test_sse_setting_posts(pi_env: PiEnv) -> None:
    _configure(pi_env, {"transport": "sse"})
    result = pi_env.run("-p", "list the files")
    assert result.returncode == 0, result.stderr
    assert [request.method for request in pi_env.server.requests] == ["POST", "POST"]
    assert pi_env.server.websocket_connections == pi_env.server.websocket_refusals == 0
