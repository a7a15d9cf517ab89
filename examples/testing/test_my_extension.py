"""Offline tests for my_extension.py: a scripted fake model calls the extension's tool.

No network, no API key: ``FakeLLMServer`` listens on 127.0.0.1 and answers each model request
with the next response a test pushed. Run with ``pytest test_my_extension.py`` (needs pi-harness
and pytest, no pytest plugins).
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pi_harness import create_agent_session
from pi_harness.coding.config.settings import SettingsManager
from pi_harness.coding.session_store import SessionManager
from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep, ToolCallStep

EXTENSION = Path(__file__).with_name("my_extension.py")
PI = shutil.which("pi", path=str(Path(sys.executable).parent)) or "pi"  # the pi next to this Python


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as running:
        yield running


def run_session(server: FakeLLMServer, cwd: Path, prompt: str) -> list[Any]:
    """Send one prompt through a session that loads the extension; return the conversation."""

    async def main() -> list[Any]:
        result = await create_agent_session(
            cwd=cwd,
            agent_dir=cwd / "agent",  # not your ~/.pi/agent
            model=server.model("openai-completions"),  # a model whose baseUrl is the fake server
            api_keys={"fake": "test-key"},  # any key will do
            extension_paths=[str(EXTENSION)],
            settings_manager=SettingsManager.in_memory(),
            session_manager=SessionManager.in_memory(str(cwd)),
        )
        errors: list[Any] = []  # errors raised in the extension's handlers are reported here, not printed
        result.session.extensions.on_error(errors.append)
        try:
            assert result.diagnostics == []  # the extension loaded
            await result.session.prompt(prompt)
            assert errors == []
            return list(result.session.get_messages())
        finally:
            await result.runtime.shutdown()

    return asyncio.run(main())


def test_the_tool_result_reaches_the_model(server: FakeLLMServer, tmp_path: Path) -> None:
    server.push(
        # first model request: call the tool
        ScriptedResponse(steps=[ToolCallStep("word_count", {"text": "the quick brown fox"}, id="call_1")]),
        # second model request (it carries the tool result): the final answer
        ScriptedResponse(steps=[TextStep("That is four words.")]),
    )
    messages = run_session(server, tmp_path, "How many words are in 'the quick brown fox'?")

    result = next(m for m in messages if m["role"] == "toolResult")
    assert result["toolName"] == "word_count" and not result["isError"]
    assert result["content"] == [{"type": "text", "text": "4 words"}]
    assert messages[-1]["content"] == [{"type": "text", "text": "That is four words."}]

    # What pi sent: the tool was offered in the first request, its result came back in the second.
    assert len(server.requests) == 2 and server.pending == 0
    offered = [tool["function"]["name"] for tool in server.requests[0].json["tools"]]
    assert "word_count" in offered
    last = server.requests[1].json["messages"][-1]
    assert last == {"role": "tool", "tool_call_id": "call_1", "content": "4 words"}


def test_rm_rf_is_blocked(server: FakeLLMServer, tmp_path: Path) -> None:
    (tmp_path / "build").mkdir()
    server.push(
        ScriptedResponse(steps=[ToolCallStep("bash", {"command": "rm -rf build"}, id="call_1")]),
        ScriptedResponse(steps=[TextStep("I was not allowed to delete it.")]),
    )
    messages = run_session(server, tmp_path, "Delete the build directory.")

    result = next(m for m in messages if m["role"] == "toolResult")
    assert result["isError"]
    assert result["content"] == [{"type": "text", "text": "rm -rf is not allowed"}]
    assert (tmp_path / "build").is_dir()  # the command never ran


def test_the_pi_command_loads_the_extension(server: FakeLLMServer, tmp_path: Path) -> None:
    """The same through the ``pi`` command, run as a subprocess against the server in this process."""
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir()
    provider = {
        "baseUrl": server.base_url("openai-completions"),
        "api": "openai-completions",
        "apiKey": "not-needed",
        "models": [{"id": "scripted"}],
    }
    (agent_dir / "models.json").write_text(json.dumps({"providers": {"fake": provider}}))
    server.push(
        ScriptedResponse(steps=[ToolCallStep("word_count", {"text": "one two three"}, id="call_1")]),
        ScriptedResponse(steps=[TextStep("Three words.")]),
    )
    env = {
        **os.environ,
        "PI_CODING_AGENT_DIR": str(agent_dir),
        "PI_OFFLINE": "1",
        "NO_PROXY": "127.0.0.1,localhost",
    }
    done = subprocess.run(
        [PI, "-e", str(EXTENSION), "--model", "fake/scripted", "-p", "Count: one two three"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Three words.\n"
    assert server.requests[1].json["messages"][-1]["content"] == "3 words"
