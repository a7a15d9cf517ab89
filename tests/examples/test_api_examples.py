"""The examples of the extension API's newer parts: each loaded from its path into a real session
on the fake LLM server, checked by what the user (or the model) gets."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _examples_support import UIClient, example_path, sdk_session, tool_results

from pi_harness.coding.extensions.runner import ExtensionRunner
from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep, ToolCallStep


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as running:
        yield running


def declared_tools(request: Any) -> dict[str, str]:
    return {t["function"]["name"]: t["function"]["description"] for t in request.json.get("tools", [])}


async def test_dynamic_tools(server: FakeLLMServer, tmp_path: Path) -> None:
    client = UIClient()
    server.push(
        ScriptedResponse(steps=[ToolCallStep("echo_session", {"message": "hi"}, id="e1")]),
        ScriptedResponse(steps=[TextStep("echoed")]),
        ScriptedResponse(steps=[ToolCallStep("greet", {"message": "there"}, id="e2")]),
        ScriptedResponse(steps=[TextStep("greeted")]),
    )
    result = await sdk_session(server, tmp_path, "dynamic_tools", client=client)
    session = result.session
    assert ("Added the tool echo_session", "info") in client.notifications
    await session.prompt("say hi")
    assert tool_results(session)[-1] == ("echo_session", False, "[session] hi")
    assert "greet" not in declared_tools(server.requests[0])
    assert await session.prompt("/add-echo-tool Bad Name!") == "handled"
    assert await session.prompt("/add-echo-tool greet") == "handled"
    assert await session.prompt("/add-echo-tool greet") == "handled"
    assert client.notifications[-3:] == [
        ("Usage: /add-echo-tool <name> (lowercase letters, digits, _)", "warning"),
        ("Added the tool greet", "info"),
        ("There is a tool greet already", "warning"),
    ]
    await session.prompt("greet me")
    assert "greet" in declared_tools(server.requests[2])
    assert tool_results(session)[-1] == ("greet", False, "[greet] there")
    assert "- Use greet when the user wants their words repeated exactly." in session.get_system_prompt()
    await result.runtime.shutdown()


async def test_structured_output_ends_the_run_on_the_tool(server: FakeLLMServer, tmp_path: Path) -> None:
    answer = {"headline": "Release 2.1", "summary": "Two fixes.", "actionItems": ["tag", "announce"]}
    server.push(ScriptedResponse(steps=[ToolCallStep("structured_output", answer, id="s1")]))
    result = await sdk_session(server, tmp_path, "structured_output")
    ends: list[dict[str, Any]] = []
    result.session.subscribe(lambda e: ends.append(e) if e["type"] == "tool_execution_end" else None)
    await result.session.prompt("give me a structured summary")
    assert len(server.requests) == 1  # no request after the terminating tool call
    assert tool_results(result.session) == [("structured_output", False, "Saved the structured answer: Release 2.1")]
    assert ends[0]["result"]["structuredContent"] == answer
    message = next(m for m in result.session.get_messages() if m["role"] == "toolResult")
    assert message["details"] == answer
    renderer = next(d for d, _ in result.session.extensions.tool_definitions() if d.name == "structured_output")
    assert renderer.render_result is not None
    assert renderer.render_result(message) == ["Release 2.1", "Two fixes.", "", "1. tag", "2. announce"]
    await result.runtime.shutdown()


async def test_provider_payload_logs_requests_and_responses(server: FakeLLMServer, tmp_path: Path) -> None:
    server.push(ScriptedResponse(steps=[TextStep("logged")]))
    result = await sdk_session(server, tmp_path, "provider_payload")
    await result.session.prompt("hello log")
    log = (tmp_path / ".pi" / "provider-payload.log").read_text()
    body = json.loads(log.split("\n\n")[0])
    assert body["model"] == "fake-model"
    assert "hello log" in json.dumps(body["messages"][-1])
    assert "\n[200] {" in log
    await result.runtime.shutdown()


async def test_event_bus_notifies_from_the_bus(server: FakeLLMServer, tmp_path: Path) -> None:
    client = UIClient()
    result = await sdk_session(server, tmp_path, "event_bus", client=client)
    assert await result.session.prompt("/emit deploy finished") == "handled"
    assert await result.session.prompt("/emit") == "handled"
    assert client.notifications == [
        ("Event from event-bus example: session started", "info"),
        ("Event from /emit: deploy finished", "info"),
        ("Event from /emit: hello", "info"),
    ]
    await result.runtime.shutdown()


async def test_project_trust_answers_with_pi_s_shape(tmp_path: Path) -> None:
    runner = ExtensionRunner(
        ui=UIClient({"value": "Trust for this session"}, {"value": "Do not trust"}).ui, has_ui=True
    )
    assert await runner.load_paths([str(example_path("project_trust"))]) == []
    assert await runner.emit_project_trust(str(tmp_path), [], mode="rpc") is True
    assert await runner.emit_project_trust(str(tmp_path), [], mode="rpc") is False
    headless = ExtensionRunner()
    await headless.load_paths([str(example_path("project_trust"))])
    assert await headless.emit_project_trust(str(tmp_path), []) is None  # undecided: the built-in rules decide


async def test_debug_provider_keeps_the_raw_events(server: FakeLLMServer, tmp_path: Path) -> None:
    client = UIClient()
    server.push(ScriptedResponse(steps=[TextStep("quiet")]), ScriptedResponse(steps=[TextStep("captured words")]))
    result = await sdk_session(server, tmp_path, "debug_provider", client=client)
    session = result.session
    await session.prompt("before")  # capture is off
    assert await session.prompt("/debug-provider loud") == "handled"
    assert await session.prompt("/debug-provider on") == "handled"
    assert client.status("debug-provider") == "provider debug"
    await session.prompt("after")
    entries = [e for e in session.session_manager.get_entries() if e["type"] == "custom"]
    assert len(entries) == 1
    data = entries[0]["data"]
    assert (data["provider"], data["api"], data["model"]) == ("fake", "openai-completions", "fake-model")
    text = "".join(
        choice["delta"].get("content") or "" for event in data["events"] for choice in event.get("choices", [])
    )
    assert text == "captured words"
    renderer = session.extensions.entry_renderer("debug-provider-events")
    assert renderer is not None and renderer(entries[0], {"expanded": False})[0].startswith(
        "[provider debug] fake/fake-model (openai-completions): "
    )
    assert ("Usage: /debug-provider [on|off]", "warning") in client.notifications
    assert all("captured" not in str(m) for m in server.requests[1].json["messages"][:-1])  # entries stay local
    await result.runtime.shutdown()


async def test_tool_override_logs_and_blocks_reads(
    server: FakeLLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = tmp_path / "agent"
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(agent))
    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.txt").write_text("line one\nline two\n")
    (project / ".env").write_text("TOKEN=abc\n")
    client = UIClient()
    server.push(
        ScriptedResponse(
            steps=[
                ToolCallStep("read", {"path": "notes.txt"}, id="r1"),
                ToolCallStep("read", {"path": ".env"}, id="r2"),
            ]
        ),
        ScriptedResponse(steps=[TextStep("read them")]),
    )
    result = await sdk_session(server, project, "tool_override", client=client)
    await result.session.prompt("read both")
    results = tool_results(result.session)
    assert results[0][:2] == ("read", False) and "line one" in results[0][2]
    assert results[1] == ("read", True, "Access to .env is blocked (sensitive file)")
    assert "abc" not in str(server.requests[1].json)
    log = (agent / "read-access.log").read_text().splitlines()
    assert [line.split(" ", 1)[1] for line in log] == [
        f"ALLOWED {project / 'notes.txt'}",
        f"BLOCKED {project / '.env'}",
    ]
    assert declared_tools(server.requests[0])["read"].startswith("Read a file (every access is logged")
    assert await result.session.prompt("/read-log") == "handled"
    assert client.notifications[-1][0].startswith("Recent reads:\n")
    await result.runtime.shutdown()


async def test_truncated_tool_cuts_and_keeps_the_rest(server: FakeLLMServer, tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("".join(f"match {n}\n" for n in range(3000)))
    (tmp_path / "small.py").write_text("match here\n")
    server.push(
        ScriptedResponse(steps=[ToolCallStep("search_text", {"pattern": "match"}, id="t1")]),
        ScriptedResponse(steps=[ToolCallStep("search_text", {"pattern": "match", "glob": "*.py"}, id="t2")]),
        ScriptedResponse(steps=[ToolCallStep("search_text", {"pattern": "nowhere"}, id="t3")]),
        ScriptedResponse(steps=[TextStep("searched")]),
    )
    result = await sdk_session(server, tmp_path, "truncated_tool")
    await result.session.prompt("search")
    (_, error, cut), (_, _, small), (_, _, none) = tool_results(result.session)
    assert not error
    assert cut.count("\n") < 2010 and "[Showing 2000 of 3001 lines" in cut
    full = Path(cut.rsplit("Everything is in ", 1)[1].rstrip("]"))
    assert full.read_text().count("\n") == 3001
    full.unlink()
    assert small == "./small.py:1:match here\n"
    assert none == "No matches found"
    await result.runtime.shutdown()


async def test_reload_runtime_from_the_command_and_from_the_tool(server: FakeLLMServer, tmp_path: Path) -> None:
    client = UIClient()
    server.push(
        ScriptedResponse(steps=[ToolCallStep("reload_runtime", {}, id="x1")]),
        ScriptedResponse(steps=[TextStep("reloading")]),
    )
    result = await sdk_session(server, tmp_path, "reload_runtime", client=client)
    runtime = result.runtime
    first = runtime.session
    assert await first.prompt("/reload-runtime") == "handled"
    second = runtime.session
    assert second is not first
    assert client.notifications == [("Reloaded extensions, skills, prompts, themes and context files", "info")]
    replaced = asyncio.Event()
    runtime.on_session_replaced(lambda _session: replaced.set())
    await second.prompt("please reload")
    await asyncio.wait_for(replaced.wait(), 30)  # the reload starts from agent_settled
    assert tool_results(second)[0] == ("reload_runtime", False, "/reload-runtime will run when this run is over.")
    assert runtime.session is not second  # the queued command reloaded once more
    assert client.notifications.count(("Reloaded extensions, skills, prompts, themes and context files", "info")) == 2
    assert len(server.requests) == 2  # the command itself went to no model
    await runtime.shutdown()


async def test_custom_provider_anthropic_speaks_the_messages_api(
    server: FakeLLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CUSTOM_ANTHROPIC_BASE_URL", server.base_url("anthropic-messages"))
    monkeypatch.setenv("CUSTOM_ANTHROPIC_API_KEY", "sk-custom")
    (tmp_path / "todo.txt").write_text("ship it\n")
    server.push(
        ScriptedResponse(steps=[TextStep("Let me look."), ToolCallStep("read", {"path": "todo.txt"}, id="toolu_1")]),
        ScriptedResponse(steps=[TextStep("The list says: ship it.")]),
    )
    result = await sdk_session(server, tmp_path, "custom_provider_anthropic")
    session = result.session
    model = session.model_runtime.find("custom-anthropic", "claude-sonnet-4-5")
    assert model is not None and model["api"] == "custom-anthropic-api"
    await session.set_model(model)
    await session.prompt("what is on my list?")
    assert session.get_last_assistant_text() == "The list says: ship it."
    first, second = server.requests
    assert first.path == "/v1/messages" and first.headers["x-api-key"] == "sk-custom"
    assert first.json["model"] == "claude-sonnet-4-5" and first.json["stream"] is True
    assert "read" in {t["name"] for t in first.json["tools"]}
    results = [b for m in second.json["messages"] for b in m["content"] if b.get("type") == "tool_result"]
    assert results[0]["tool_use_id"] == "toolu_1" and "ship it" in results[0]["content"][0]["text"]
    assistant = next(m for m in session.get_messages() if m["role"] == "assistant")
    assert assistant["provider"] == "custom-anthropic" and assistant["usage"]["output"] > 0
    await result.runtime.shutdown()


class _TokenExchange:
    """GitLab's token exchange on loopback: answers ``direct_access`` with a gateway token."""

    def __init__(self, status: int = 200) -> None:
        import http.server
        import threading

        self.requests: list[dict[str, Any]] = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                outer.requests.append(
                    {"path": self.path, "auth": self.headers.get("authorization"), "body": self.rfile.read(length)}
                )
                body = json.dumps({"token": "gw-token", "headers": {"x-gitlab-instance-id": "inst-1"}}).encode()
                if status != 200:
                    body = b"duo is off"
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.parametrize("status", [200, 403])
async def test_custom_provider_gitlab_duo_exchanges_the_token(
    server: FakeLLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, status: int
) -> None:
    exchange = _TokenExchange(status)
    try:
        monkeypatch.setenv("GITLAB_URL", exchange.url)
        monkeypatch.setenv("GITLAB_AI_GATEWAY_URL", server.url)
        monkeypatch.setenv("GITLAB_TOKEN", "glpat-secret")
        server.push(ScriptedResponse(steps=[TextStep("Duo says hi")]))
        result = await sdk_session(server, tmp_path, "custom_provider_gitlab_duo")
        session = result.session
        model = session.model_runtime.find("gitlab-duo", "claude-sonnet-4-5-20250929")
        assert model is not None
        await session.set_model(model)
        await session.prompt("hello duo")
        assert exchange.requests[0]["path"] == "/api/v4/ai/third_party_agents/direct_access"
        assert exchange.requests[0]["auth"] == "Bearer glpat-secret"
        last = [m for m in session.get_messages() if m["role"] == "assistant"][-1]
        if status == 200:
            assert session.get_last_assistant_text() == "Duo says hi"
            request = server.requests[0]
            assert request.path == "/ai/v1/proxy/anthropic/v1/messages"
            assert request.headers["authorization"] == "Bearer gw-token"
            assert request.headers["x-gitlab-instance-id"] == "inst-1"
            assert "glpat-secret" not in str(request.headers)
        else:
            assert server.requests == []
            assert last["stopReason"] == "error"
            assert last["errorMessage"].startswith("GitLab Duo access denied: is Duo enabled for your account?")
        await result.runtime.shutdown()
    finally:
        exchange.close()
