"""``pi --mode rpc``: framing, errors, correlation and the state/model/settings commands (section 8)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from _pi_env import PiEnv
from _rpc_client import RpcClient

from pi_harness.testing.fake_llm import ScriptedResponse, TextStep

StartRpc = Callable[..., RpcClient]

STATE_KEYS = {
    "model",
    "thinkingLevel",
    "isStreaming",
    "isCompacting",
    "steeringMode",
    "followUpMode",
    "sessionFile",
    "sessionId",
    "autoCompactionEnabled",
    "messageCount",
    "pendingMessageCount",
}
MODEL_KEYS = {"id", "name", "api", "provider", "baseUrl", "reasoning", "input", "contextWindow", "maxTokens", "cost"}


def test_a_prompt_exchange(pi_env: PiEnv, start_rpc: StartRpc) -> None:
    pi_env.server.push(ScriptedResponse(steps=[TextStep("Hello from RPC.")]))
    client = start_rpc()
    records = client.prompt_and_settle("Say hello")
    response = records[0]
    assert response["type"] == "response" and response["command"] == "prompt"
    assert response["data"] == {"disposition": "started"}
    kinds = [r["type"] for r in records]
    assert kinds.index("agent_start") < kinds.index("turn_start") < kinds.index("agent_end") < len(kinds) - 1
    assert records[-1] == {"type": "agent_settled", "aborted": False}
    for event in records[1:]:
        assert "id" not in event  # events carry no command id
    text = client.request("get_last_assistant_text")
    assert text == {
        "id": text["id"],
        "type": "response",
        "command": "get_last_assistant_text",
        "success": True,
        "data": {"text": "Hello from RPC."},
    }
    messages = client.request("get_messages")["data"]["messages"]
    assert [m["role"] for m in messages if m["role"] != "system"] == ["user", "assistant"]


def test_u2028_and_u2029_round_trip(pi_env: PiEnv, start_rpc: StartRpc) -> None:
    tricky = "line\u2028separator\u2029paragraph"
    pi_env.server.push(ScriptedResponse(steps=[TextStep(f"echo: {tricky}")]))
    client = start_rpc()
    client.prompt_and_settle(tricky)
    sent = pi_env.server.requests[0].json["messages"][-1]["content"]
    assert tricky in json.dumps(sent, ensure_ascii=False)
    assert client.request("get_last_assistant_text")["data"]["text"] == f"echo: {tricky}"
    # The writer may emit the characters raw; each record is still exactly one LF-terminated line.
    assert any("\u2028".encode() in line for line in client.raw_lines)
    assert all(b"\n" not in line for line in client.raw_lines)


def test_crlf_and_a_final_unterminated_line(pi_env: PiEnv, start_rpc: StartRpc) -> None:
    client = start_rpc()
    client.send_raw(b'{"id":"a","type":"get_state"}\r\n{"id":"b","type":"get_commands"}')
    assert client.response("a")["success"] is True
    client.close_stdin()
    assert client.response("b")["success"] is True
    assert client.wait_exit() == 0


def test_errors(pi_env: PiEnv, start_rpc: StartRpc) -> None:
    client = start_rpc()
    client.send_raw(b"this is not json\n")
    parse = client.wait_for(lambda r: r.get("command") == "parse")
    assert parse["type"] == "response" and parse["success"] is False and "id" not in parse
    assert parse["error"].startswith("Failed to parse command: ")

    unknown = client.request("no_such_command")
    assert unknown["success"] is False
    assert unknown["command"] == "no_such_command"
    assert unknown["error"] == "Unknown command: no_such_command"

    missing = client.request("set_model", provider="fake", modelId="nope")
    assert missing == {
        "id": missing["id"],
        "type": "response",
        "command": "set_model",
        "success": False,
        "error": "Model not found: fake/nope",
    }
    blank = client.request("set_session_name", name="   ")
    assert blank["success"] is False and blank["error"] == "Session name cannot be empty"
    unknown_since = client.request("get_entries", since="no-such-entry")
    assert unknown_since["success"] is False

    # A response without an id for a command sent without one.
    client.send({"type": "get_state"})
    anonymous = client.wait_for(lambda r: r.get("command") == "get_state")
    assert "id" not in anonymous and anonymous["success"] is True


def test_concurrent_commands_are_correlated_by_id(pi_env: PiEnv, start_rpc: StartRpc) -> None:
    client = start_rpc()
    ids = {client.command("bash", command="sleep 0.2; echo slow"): "bash", client.command("get_state"): "get_state"}
    for request_id, command in ids.items():
        response = client.response(request_id)
        assert response["command"] == command and response["success"] is True
    responses = [r for r in client.records if r["type"] == "response"]
    # The quick command was answered while the slow one was still running.
    assert [r["command"] for r in responses] == ["get_state", "bash"]


def test_state_models_and_thinking(pi_env: PiEnv, start_rpc: StartRpc) -> None:
    pi_env.configure(extra=[{"id": "thinker", "name": "Thinker", "reasoning": True}, "plain-2"])
    client = start_rpc()
    state = client.request("get_state")["data"]
    assert set(state) >= STATE_KEYS
    assert state["model"]["id"] == "fake-model" and set(state["model"]) >= MODEL_KEYS
    assert state["isStreaming"] is False and state["messageCount"] == 0
    assert state["thinkingLevel"] == "off"

    models = client.request("get_available_models")["data"]["models"]
    assert {m["id"] for m in models} == {"fake-model", "thinker", "plain-2"}

    assert client.request("get_available_thinking_levels")["data"] == {"levels": ["off"]}
    assert client.request("cycle_thinking_level")["data"] is None  # not a reasoning model

    chosen = client.request("set_model", provider="fake", modelId="thinker")
    assert chosen["success"] is True and chosen["data"]["id"] == "thinker"
    levels = client.request("get_available_thinking_levels")["data"]["levels"]
    assert levels[0] == "off" and "high" in levels
    assert "data" not in client.request("set_thinking_level", level="high")
    assert client.request("get_state")["data"]["thinkingLevel"] == "high"
    cycled = client.request("cycle_thinking_level")["data"]
    assert cycled["level"] in levels and cycled["level"] != "high"

    cycled_model = client.request("cycle_model")["data"]
    assert set(cycled_model) == {"model", "thinkingLevel", "isScoped"}
    assert cycled_model["model"]["id"] != "thinker"
    assert client.request("get_state")["data"]["model"]["id"] == cycled_model["model"]["id"]


def test_cycle_model_with_a_single_model_returns_null(pi_env: PiEnv, start_rpc: StartRpc) -> None:
    client = start_rpc()
    response = client.request("cycle_model")
    assert response["success"] is True and response["data"] is None


def test_settings_commands_are_persisted(pi_env: PiEnv, start_rpc: StartRpc) -> None:
    client = start_rpc()
    for command, fields in (
        ("set_steering_mode", {"mode": "one-at-a-time"}),
        ("set_follow_up_mode", {"mode": "one-at-a-time"}),
        ("set_auto_compaction", {"enabled": False}),
        ("set_auto_retry", {"enabled": False}),
        ("abort_retry", {}),
        ("abort_bash", {}),
        ("abort", {}),
    ):
        response = client.request(command, **fields)
        assert response["success"] is True, response
        assert "data" not in response
    state = client.request("get_state")["data"]
    assert state["steeringMode"] == "one-at-a-time" and state["followUpMode"] == "one-at-a-time"
    assert state["autoCompactionEnabled"] is False
    client.close_stdin()
    assert client.wait_exit() == 0
    settings = json.loads((pi_env.agent_dir / "settings.json").read_text())
    assert settings["steeringMode"] == "one-at-a-time" and settings["followUpMode"] == "one-at-a-time"
    bad = RpcClient(pi_env.popen("--mode", "rpc"))
    try:
        assert bad.request("set_steering_mode", mode="sometimes")["success"] is False
    finally:
        bad.kill()


def test_bash_streams_its_output(pi_env: PiEnv, start_rpc: StartRpc) -> None:
    pi_env.server.push(ScriptedResponse(steps=[TextStep("I see the output.")]))
    client = start_rpc()
    request_id = client.command("bash", command="echo first; sleep 0.05; echo second")
    response = client.response(request_id)
    assert response["success"] is True
    data = response["data"]
    assert data["output"] == "first\nsecond\n"
    assert data["exitCode"] == 0 and data["cancelled"] is False and data["truncated"] is False
    updates = [r for r in client.records if r["type"] == "bash_execution_update"]
    assert updates and all(u["id"] == request_id for u in updates)
    assert "".join(u["delta"] for u in updates) == "first\nsecond\n"
    # The result reaches the model with the next prompt.
    client.prompt_and_settle("What did it print?")
    assert "second" in json.dumps(pi_env.server.requests[0].json["messages"])


def test_session_stats_and_commands(pi_env: PiEnv, start_rpc: StartRpc) -> None:
    extension = pi_env.cwd / "hello_command.py"
    extension.write_text(
        "def extension(pi):\n"
        "    @pi.command('hello', description='Say hello')\n"
        "    async def hello(args, ctx):\n"
        "        ctx.ui.notify('hello ' + args)\n"
    )
    pi_env.server.push(ScriptedResponse(steps=[TextStep("ok")], usage={"input": 100, "output": 20}))
    client = start_rpc("-e", str(extension))
    client.prompt_and_settle("hi")
    stats = client.request("get_session_stats")["data"]
    assert stats["sessionId"] and stats["sessionFile"]
    assert stats["userMessages"] == 1 and stats["assistantMessages"] == 1
    assert stats["toolCalls"] == 0 and stats["toolResults"] == 0
    assert stats["tokens"]["input"] == 100 and stats["tokens"]["output"] == 20
    assert stats["tokens"]["total"] == 120
    assert stats["cost"] > 0
    assert set(stats["contextUsage"]) == {"tokens", "contextWindow", "percent"}

    commands = client.request("get_commands")["data"]["commands"]
    hello = next(c for c in commands if c["name"] == "hello")
    assert hello["source"] == "extension" and hello["description"] == "Say hello"
    # Pi's sourceInfo: an -e extension is a "cli" one, for this run only.
    assert hello["sourceInfo"] == {
        "path": str(extension.resolve()),
        "source": "cli",
        "scope": "temporary",
        "origin": "top-level",
    }

    # An extension command runs at once; its notify arrives as a UI request.
    start = client.mark()
    handled = client.request("prompt", message="/hello world")
    assert handled["success"] is True and handled["data"] == {"disposition": "handled"}
    notify = client.wait_event("extension_ui_request", start=start, method="notify")
    assert notify["message"] == "hello world"
    assert len(pi_env.server.requests) == 1


def test_compact_and_export(pi_env: PiEnv, start_rpc: StartRpc) -> None:
    # Keep almost nothing verbatim: the history and the prefix of the last turn are summarised.
    pi_env.configure(settings={"compaction": {"keepRecentTokens": 1}})
    pi_env.server.push(
        ScriptedResponse(steps=[TextStep("first answer")]),
        ScriptedResponse(steps=[TextStep("second answer")]),
        ScriptedResponse(steps=[TextStep("## Goal\nA summary of the talk.")]),
        ScriptedResponse(steps=[TextStep("## Original Request\nThe second question.")]),
    )
    client = start_rpc()
    client.prompt_and_settle("Tell me something")
    client.prompt_and_settle("Tell me more")
    start = client.mark()
    compacted = client.request("compact", customInstructions="Keep it short")
    assert compacted["success"] is True, compacted
    result = compacted["data"]
    # The two summaries run in parallel, so either scripted text may answer either request.
    assert "A summary of the talk." in result["summary"] and "The second question." in result["summary"]
    assert "Turn Context (split turn)" in result["summary"]
    assert isinstance(result["tokensBefore"], int) and "firstKeptEntryId" in result
    assert client.wait_event("compaction_start", start=start)["reason"] == "manual"
    assert client.wait_event("compaction_end", start=start)["reason"] == "manual"
    summary_requests = [json.dumps(r.json) for r in pi_env.server.requests[2:]]
    assert len(summary_requests) == 2
    assert any("Keep it short" in body for body in summary_requests)

    target = pi_env.cwd / "exported.html"
    exported = client.request("export_html", outputPath=str(target))
    assert exported["data"] == {"path": str(target)}
    assert "Tell me something" in target.read_text()
    default = client.request("export_html")["data"]["path"]
    assert default.endswith(".html") and "first answer" in Path(default).read_text(encoding="utf-8")


def test_session_name(pi_env: PiEnv, start_rpc: StartRpc) -> None:
    client = start_rpc("--name", "From the command line")
    assert client.request("get_state")["data"]["sessionName"] == "From the command line"
    start = client.mark()
    response = client.request("set_session_name", name="Renamed")
    assert response["success"] is True and "data" not in response
    assert client.wait_event("session_info_changed", start=start)["name"] == "Renamed"
    assert client.request("get_state")["data"]["sessionName"] == "Renamed"


def test_abort_bash_cancels_a_running_command(pi_env: PiEnv, start_rpc: StartRpc) -> None:
    client = start_rpc()
    bash_id = client.command("bash", command="echo started; sleep 30; echo never")
    client.wait_event("bash_execution_update", id=bash_id)
    assert client.request("abort_bash")["success"] is True
    data = client.response(bash_id)["data"]
    assert data["cancelled"] is True and "never" not in data["output"] and "started" in data["output"]


def test_prompt_with_images(pi_env: PiEnv, start_rpc: StartRpc) -> None:
    pixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
    pi_env.server.push(ScriptedResponse(steps=[TextStep("a pixel")]))
    client = start_rpc()
    client.prompt_and_settle("What is this?", images=[{"type": "image", "data": pixel, "mimeType": "image/png"}])
    content = pi_env.server.requests[0].json["messages"][-1]["content"]
    urls = [part["image_url"]["url"] for part in content if part.get("type") == "image_url"]
    assert urls == [f"data:image/png;base64,{pixel}"]
    bad = client.request("prompt", message="x", images="not a list")
    assert bad["success"] is False


def test_rpc_starts_without_a_model(pi_env: PiEnv, start_rpc: StartRpc) -> None:
    # As Pi 1.4.0: a client can still ask what there is (and see a placeholder model, not null);
    # only a prompt is refused, as a failed response.
    (pi_env.agent_dir / "models.json").unlink()
    (pi_env.agent_dir / "settings.json").unlink()
    client = start_rpc()
    state = client.request("get_state")["data"]
    assert state["model"]["provider"] == "unknown" and state["model"]["id"] == "unknown"
    assert set(state["model"]) == MODEL_KEYS and state["thinkingLevel"] == "off"
    assert client.request("get_available_models")["data"] == {"models": []}
    refused = client.request("prompt", message="hi")
    assert refused["success"] is False and refused["error"].startswith("No model selected.")
    assert pi_env.server.requests == []
