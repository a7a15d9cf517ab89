"""The SDK: ``create_agent_session`` defaults and options, and the examples in ``examples/sdk``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import pi_harness
from pi_harness.agent import AgentTool, AgentToolResult
from pi_harness.coding.config.settings import SettingsManager
from pi_harness.coding.extensions.types import ToolDefinition
from pi_harness.coding.sdk import CreateAgentSessionResult, create_agent_session
from pi_harness.coding.session_store import SessionManager
from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep, ToolCallStep

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "sdk"
API = "openai-completions"


@pytest.fixture
def server() -> Any:
    with FakeLLMServer() as running:
        yield running


def write_models_json(agent_dir: Path, server: FakeLLMServer, api_key: str = "models-json-key") -> None:
    config = {
        "providers": {
            "fake-server": {
                "baseUrl": server.base_url(API),
                "api": API,
                "apiKey": api_key,
                "models": [{"id": "fake-model", "name": "Fake model"}],
            }
        }
    }
    (agent_dir / "models.json").write_text(json.dumps(config))


def run_example(name: str, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(EXAMPLES / name), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        check=False,
    )


async def test_defaults_persistent_session_default_tools_and_lazy_export(
    server: FakeLLMServer, tmp_path: Path, agent_dir: Path
) -> None:
    assert pi_harness.create_agent_session is create_agent_session
    write_models_json(agent_dir, server)
    server.push(ScriptedResponse(steps=[TextStep("hello")]))
    result = await create_agent_session(cwd=str(tmp_path))
    assert isinstance(result, CreateAgentSessionResult)
    session = result.session
    assert session.model is not None and session.model["provider"] == "fake-server"
    assert session.get_active_tool_names() == ["read", "bash", "edit", "write"]
    assert session.session_manager.is_persisted()
    assert session.thinking_level == "off"  # default "medium", clamped for a model without reasoning
    await session.prompt("hi")
    session_file = session.session_manager.get_session_file()
    assert session_file is not None and session_file.is_relative_to(agent_dir / "sessions")
    assert result.runtime.session is session
    await result.runtime.shutdown()


async def test_default_tools_setting_and_tool_objects(server: FakeLLMServer, tmp_path: Path) -> None:
    async def noop(tool_call_id: str, params: dict[str, Any], signal: Any, on_update: Any) -> AgentToolResult:
        return {"content": []}

    extra = AgentTool("noop", "Noop", "Does nothing.", {"type": "object", "properties": {}}, noop)
    result = await create_agent_session(
        cwd=str(tmp_path),
        settings_manager=SettingsManager.in_memory({"defaultTools": ["read", "ls"]}),
        session_manager=SessionManager.in_memory(str(tmp_path)),
        model=server.model(API),
        api_keys={"fake": "k"},
    )
    assert result.session.get_active_tool_names() == ["read", "ls"]
    await result.runtime.shutdown()
    chosen = await create_agent_session(
        cwd=str(tmp_path),
        tools=["grep", extra],
        settings_manager=SettingsManager.in_memory({"defaultTools": ["read", "ls"]}),
        session_manager=SessionManager.in_memory(str(tmp_path)),
        model=server.model(API),
        api_keys={"fake": "k"},
    )
    assert chosen.session.get_active_tool_names() == ["grep", "noop"]
    await chosen.runtime.shutdown()


@pytest.mark.parametrize(
    ("default_tools", "tools", "active"),
    [
        ([], None, []),  # an empty defaultTools selects nothing (Pi 1.4.0)
        (["+grep", "-read"], None, ["bash", "edit", "write", "grep"]),
        (["ls", "+grep", "-ls", "+"], None, ["grep"]),
        (None, ["+grep", "-bash"], ["read", "edit", "write", "grep"]),  # changes to the defaults
        (["read", "ls"], ["-ls", "+find"], ["read", "find"]),  # ... which defaultTools sets
    ],
)
async def test_tool_lists_of_changes(
    server: FakeLLMServer, tmp_path: Path, default_tools: list[str] | None, tools: list[str] | None, active: list[str]
) -> None:
    settings = {} if default_tools is None else {"defaultTools": default_tools}
    result = await create_agent_session(
        cwd=str(tmp_path),
        tools=tools,
        settings_manager=SettingsManager.in_memory(settings),
        session_manager=SessionManager.in_memory(str(tmp_path)),
        model=server.model(API),
        api_keys={"fake": "k"},
    )
    assert result.session.get_active_tool_names() == active
    await result.runtime.shutdown()


@pytest.mark.parametrize(
    ("tools", "message"),
    [
        (["read", "+grep"], "Invalid tools option: tool names cannot be mixed with +name or -name entries"),
        (["+gr*"], "Invalid tools option: +name and -name entries take exact tool names, not patterns: +gr*"),
    ],
)
async def test_tool_lists_pi_refuses(tmp_path: Path, tools: list[str], message: str) -> None:
    with pytest.raises(ValueError) as raised:
        await create_agent_session(cwd=str(tmp_path), tools=tools, session_manager=SessionManager.in_memory(str(tmp_path)))
    assert str(raised.value) == message


async def test_extension_load_failures_are_diagnostics(server: FakeLLMServer, tmp_path: Path) -> None:
    def broken(pi: Any) -> None:
        raise RuntimeError("factory exploded")

    bad = tmp_path / "bad_ext.py"
    bad.write_text("x = 1\n")
    result = await create_agent_session(
        cwd=str(tmp_path),
        extension_factories=[("inline:broken", broken)],
        extension_paths=[str(bad)],
        settings_manager=SettingsManager.in_memory(),
        session_manager=SessionManager.in_memory(str(tmp_path)),
        model=server.model(API),
        api_keys={"fake": "k"},
    )
    assert any("factory exploded" in d for d in result.diagnostics)
    assert any(f"Extension does not export a valid factory function: {bad}" in d for d in result.diagnostics)
    await result.runtime.shutdown()


async def test_custom_tool_definition_gets_a_context(server: FakeLLMServer, tmp_path: Path) -> None:
    async def where(tool_call_id: str, params: dict[str, Any], signal: Any, on_update: Any, ctx: Any) -> str:
        return f"cwd={ctx.cwd}"

    definition = ToolDefinition(name="where", description="Where am I?", parameters={"type": "object"}, execute=where)
    server.push(ScriptedResponse(steps=[ToolCallStep("where", {}, id="c1")]), ScriptedResponse(steps=[TextStep("ok")]))
    result = await create_agent_session(
        cwd=str(tmp_path),
        custom_tools=[definition],
        settings_manager=SettingsManager.in_memory(),
        session_manager=SessionManager.in_memory(str(tmp_path)),
        model=server.model(API),
        api_keys={"fake": "k"},
    )
    await result.session.prompt("where?")
    output = next(m for m in result.session.get_messages() if m["role"] == "toolResult")
    assert output["content"][0]["text"] == f"cwd={tmp_path}"
    await result.runtime.shutdown()


def test_example_minimal(server: FakeLLMServer, tmp_path: Path, agent_dir: Path) -> None:
    write_models_json(agent_dir, server)
    server.push(ScriptedResponse(steps=[TextStep("A harness runs a model in a loop with tools.")]))
    done = run_example("minimal.py", tmp_path, "fake-server/fake-model")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "A harness runs a model in a loop with tools."
    assert list((agent_dir / "sessions").rglob("*.jsonl"))  # the default session is persistent


def test_example_streaming_events(server: FakeLLMServer, tmp_path: Path, agent_dir: Path) -> None:
    write_models_json(agent_dir, server)
    (tmp_path / "a.txt").write_text("x")
    server.push(
        ScriptedResponse(steps=[ToolCallStep("bash", {"command": "ls"}, id="c1")]),
        ScriptedResponse(steps=[TextStep("There is one file.", chunks=4)]),
    )
    done = run_example("streaming_events.py", tmp_path, "fake-server/fake-model")
    assert done.returncode == 0, done.stderr
    assert "[tool bash {'command': 'ls'}]" in done.stdout
    assert "[tool bash done]" in done.stdout
    assert "There is one file." in done.stdout and done.stdout.rstrip().endswith("[settled]")


def test_example_read_only_tools(server: FakeLLMServer, tmp_path: Path, agent_dir: Path) -> None:
    write_models_json(agent_dir, server)
    (tmp_path / "main.py").write_text("print(1)\n")
    server.push(
        ScriptedResponse(steps=[ToolCallStep("find", {"pattern": "*.py"}, id="c1")]),
        ScriptedResponse(steps=[TextStep("Only main.py.")]),
    )
    done = run_example("read_only_tools.py", tmp_path, "fake-server/fake-model")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["tools: read, grep, find, ls", "Only main.py."]
    tools = [t["function"]["name"] for t in server.requests[0].json["tools"]]
    assert tools == ["read", "grep", "find", "ls"]
    assert "main.py" in str(server.requests[1].json["messages"][-1])
    assert not (agent_dir / "sessions").exists()


def test_example_custom_tool(server: FakeLLMServer, tmp_path: Path, agent_dir: Path) -> None:
    write_models_json(agent_dir, server)
    server.push(
        ScriptedResponse(
            steps=[
                ToolCallStep("word_count", {"text": "the quick brown fox"}, id="c1"),
                ToolCallStep("shout", {"text": "done"}, id="c2"),
            ]
        ),
        ScriptedResponse(steps=[TextStep("Four words. DONE")]),
    )
    done = run_example("custom_tool.py", tmp_path, "fake-server/fake-model")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["word_count -> 4 words", "shout -> DONE"]


def test_example_in_memory_session(server: FakeLLMServer, tmp_path: Path, agent_dir: Path) -> None:
    write_models_json(agent_dir, server)
    server.push(ScriptedResponse(steps=[TextStep("Teal.")]), ScriptedResponse(steps=[TextStep("Bleu sarcelle.")]))
    done = run_example("in_memory_session.py", tmp_path, "fake-server/fake-model")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["Teal.", "Bleu sarcelle."]
    first = [m for m in server.requests[0].json["messages"] if m["role"] == "user"]
    assert "My favourite colour is teal." in str(first[0]["content"])
    assert "What is my favourite colour?" in str(first[1]["content"])
    assert not (agent_dir / "sessions").exists()


def test_example_full_control(server: FakeLLMServer, tmp_path: Path, agent_dir: Path) -> None:
    write_models_json(agent_dir, server, api_key="unused-key")
    server.push(ScriptedResponse(steps=[TextStep("It builds things.")]))
    done = run_example("full_control.py", tmp_path, "fake-server/fake-model", "runtime-key")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "It builds things."
    request = server.requests[0]
    assert request.headers["authorization"] == "Bearer runtime-key"
    system = request.json["messages"][0]["content"]
    assert system.startswith("You are a terse assistant embedded in a build tool.")
    assert "Answer in at most two sentences." in system
    assert [t["function"]["name"] for t in request.json["tools"]] == ["read"]
