"""What some of Pi's example extensions do when the Node bridge runs them, seen from the session."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from _agent_session_helpers import make_session, system_prompt_of

from pi_harness.coding.extensions.types import ExtensionErrorRecord
from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep, ToolCallStep


def _tool_results(session: Any) -> dict[str, dict[str, Any]]:
    return {m["toolCallId"]: m for m in session.get_messages() if m["role"] == "toolResult"}


async def test_hello_tool_answers_the_model(examples: Path, server: FakeLLMServer, project: Path) -> None:
    server.push(
        ScriptedResponse(steps=[ToolCallStep("hello", {"name": "World"}, id="c1")]),
        ScriptedResponse(steps=[TextStep("done")]),
    )
    result = await make_session(server, project, extension_paths=[str(examples / "hello.ts")])
    await result.session.prompt("greet")
    message = _tool_results(result.session)["c1"]
    assert message["content"] == [{"type": "text", "text": "Hello, World!"}]
    assert message["details"] == {"greeted": "World"}
    tools = {t["function"]["name"]: t["function"] for t in server.requests[0].json["tools"]}
    assert tools["hello"]["parameters"]["properties"]["name"]["type"] == "string"
    await result.runtime.shutdown()


async def test_permission_gate_blocks_rm_rf_without_a_ui(examples: Path, server: FakeLLMServer, project: Path) -> None:
    (project / "keep.txt").write_text("x")
    server.push(
        ScriptedResponse(steps=[ToolCallStep("bash", {"command": "rm -rf keep.txt"}, id="c1")]),
        ScriptedResponse(steps=[TextStep("done")]),
    )
    result = await make_session(server, project, extension_paths=[str(examples / "permission-gate.ts")])
    await result.session.prompt("clean")
    message = _tool_results(result.session)["c1"]
    assert message["isError"] is True
    assert "Dangerous command blocked" in message["content"][0]["text"]
    assert (project / "keep.txt").exists()
    await result.runtime.shutdown()


async def test_protected_paths_blocks_writing_env(examples: Path, server: FakeLLMServer, project: Path) -> None:
    server.push(
        ScriptedResponse(
            steps=[
                ToolCallStep("write", {"path": ".env", "content": "SECRET=1"}, id="c1"),
                ToolCallStep("write", {"path": "notes.txt", "content": "hi"}, id="c2"),
            ]
        ),
        ScriptedResponse(steps=[TextStep("done")]),
    )
    result = await make_session(server, project, extension_paths=[str(examples / "protected-paths.ts")])
    await result.session.prompt("write")
    results = _tool_results(result.session)
    assert results["c1"]["isError"] is True and 'Path ".env" is protected' in results["c1"]["content"][0]["text"]
    assert not (project / ".env").exists()
    assert (project / "notes.txt").read_text() == "hi"
    await result.runtime.shutdown()


async def test_pirate_command_changes_the_system_prompt(examples: Path, server: FakeLLMServer, project: Path) -> None:
    server.push(ScriptedResponse(steps=[TextStep("one")]), ScriptedResponse(steps=[TextStep("two")]))
    result = await make_session(server, project, extension_paths=[str(examples / "pirate.ts")])
    await result.session.prompt("before")
    await result.session.prompt("/pirate")
    await result.session.prompt("after")
    assert "PIRATE MODE" not in system_prompt_of(server.requests[0])
    assert "PIRATE MODE" in system_prompt_of(server.requests[1])
    await result.runtime.shutdown()


async def test_input_transform_rewrites_and_handles_input(examples: Path, server: FakeLLMServer, project: Path) -> None:
    server.push(ScriptedResponse(steps=[TextStep("short")]))
    result = await make_session(server, project, extension_paths=[str(examples / "input-transform.ts")])
    await result.session.prompt("ping")  # handled by the extension: no request
    await result.session.prompt("?quick what is 2+2")
    assert len(server.requests) == 1
    users = [m for m in server.requests[0].json["messages"] if m["role"] == "user"]
    assert "Respond briefly in 1-2 sentences: what is 2+2" in str(users[-1]["content"])
    await result.runtime.shutdown()


async def test_todo_tool_keeps_its_list_in_tool_details(examples: Path, server: FakeLLMServer, project: Path) -> None:
    server.push(
        ScriptedResponse(steps=[ToolCallStep("todo", {"action": "add", "text": "write tests"}, id="c1")]),
        ScriptedResponse(steps=[ToolCallStep("todo", {"action": "list"}, id="c2")]),
        ScriptedResponse(steps=[TextStep("done")]),
    )
    result = await make_session(server, project, extension_paths=[str(examples / "todo.ts")])
    await result.session.prompt("plan")
    results = _tool_results(result.session)
    assert "isError" not in results["c1"] or results["c1"]["isError"] is False
    assert "write tests" in results["c2"]["content"][0]["text"]
    await result.runtime.shutdown()


async def test_send_user_message_command_starts_a_turn(examples: Path, server: FakeLLMServer, project: Path) -> None:
    errors: list[ExtensionErrorRecord] = []
    server.push(ScriptedResponse(steps=[TextStep("answer")]))
    result = await make_session(server, project, extension_paths=[str(examples / "send-user-message.ts")])
    result.session.extensions.on_error(errors.append)
    await result.session.prompt("/ask what time is it")
    # The example's sendUserMessage crosses the channel after its command returns: wait for the
    # run it starts (a generous deadline; it ends as soon as the message is there).
    deadline = asyncio.get_running_loop().time() + 60
    while not any(m["role"] == "user" for m in result.session.get_messages()):
        assert asyncio.get_running_loop().time() < deadline, "the example's user message never arrived"
        await asyncio.sleep(0.05)
    await result.session.wait_for_idle()
    assert errors == []
    users = [m for m in result.session.get_messages() if m["role"] == "user"]
    assert "what time is it" in str(users[-1]["content"])
    await result.runtime.shutdown()


async def test_bash_spawn_hook_runs_bash_through_its_hook(
    examples: Path, server: FakeLLMServer, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)  # the example takes process.cwd() as it loads, as Pi runs in the project
    (Path.home() / ".profile").write_text("export FROM_PROFILE=yes\n")  # the hook sources ~/.profile
    server.push(
        ScriptedResponse(
            steps=[
                ToolCallStep("bash", {"command": "echo $PI_SPAWN_HOOK $FROM_PROFILE; pwd"}, id="c1"),
                ToolCallStep("bash", {"command": "exit 3"}, id="c2"),
            ]
        ),
        ScriptedResponse(steps=[TextStep("done")]),
    )
    result = await make_session(server, project, extension_paths=[str(examples / "bash-spawn-hook.ts")])
    await result.session.prompt("run")
    results = _tool_results(result.session)
    assert results["c1"]["content"][0]["text"] == f"1 yes\n{project}\n"
    assert results["c2"]["isError"] is True and "Command exited with code 3" in results["c2"]["content"][0]["text"]
    tools = {t["function"]["name"]: t["function"] for t in server.requests[0].json["tools"]}
    assert tools["bash"]["parameters"]["required"] == ["command"]
    await result.runtime.shutdown()


async def test_built_in_tool_renderer_keeps_the_tools_working(
    examples: Path, server: FakeLLMServer, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    (project / "a.txt").write_text("one\ntwo\n")
    server.push(
        ScriptedResponse(
            steps=[
                ToolCallStep("read", {"path": "a.txt"}, id="c1"),
                ToolCallStep("edit", {"path": "a.txt", "edits": [{"oldText": "two", "newText": "2"}]}, id="c2"),
                ToolCallStep("write", {"path": "b/c.txt", "content": "new"}, id="c3"),
            ]
        ),
        ScriptedResponse(steps=[TextStep("done")]),
    )
    result = await make_session(server, project, extension_paths=[str(examples / "built-in-tool-renderer.ts")])
    await result.session.prompt("work")
    results = _tool_results(result.session)
    assert results["c1"]["content"][0]["text"].startswith("one\ntwo")
    assert "isError" not in results["c2"] or not results["c2"]["isError"]
    assert (project / "a.txt").read_text() == "one\n2\n"
    assert (project / "b" / "c.txt").read_text() == "new"
    await result.runtime.shutdown()


async def test_minimal_mode_tools_search_and_list(
    examples: Path, server: FakeLLMServer, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    (project / "src").mkdir()
    (project / "src" / "main.py").write_text("def needle():\n    pass\n")
    server.push(
        ScriptedResponse(
            steps=[
                ToolCallStep("grep", {"pattern": "needle"}, id="c1"),
                ToolCallStep("find", {"pattern": "*.py"}, id="c2"),
                ToolCallStep("ls", {}, id="c3"),
            ]
        ),
        ScriptedResponse(steps=[TextStep("done")]),
    )
    result = await make_session(
        server, project, extension_paths=[str(examples / "minimal-mode.ts")], tools=["read", "grep", "find", "ls"]
    )
    await result.session.prompt("look")
    results = _tool_results(result.session)
    assert results["c1"]["content"][0]["text"] == "src/main.py:1: def needle():"
    assert results["c2"]["content"][0]["text"] == "src/main.py"
    assert results["c3"]["content"][0]["text"] == "src/"
    await result.runtime.shutdown()


class EditorUI:
    """A user interface that records the editor text and notices it is given."""

    def __init__(self) -> None:
        self.editor = ""
        self.told: list[str] = []

    def set_editor_text(self, text: str) -> None:
        self.editor = text

    def get_editor_text(self) -> str:
        return self.editor

    def notify(self, message: str, type: str = "info") -> None:
        self.told.append(message)

    def __getattr__(self, name: str) -> Any:
        return lambda *args, **kwargs: None


async def test_qna_asks_the_model_behind_a_loader(examples: Path, server: FakeLLMServer, project: Path) -> None:
    server.push(
        ScriptedResponse(steps=[TextStep("Which database? And which port?")]),
        ScriptedResponse(steps=[TextStep("Q: Which database?\nA:\n\nQ: Which port?\nA:")]),
    )
    result = await make_session(server, project, extension_paths=[str(examples / "qna.ts")])
    ui = EditorUI()
    await result.session.bind_extensions(ui=ui, has_ui=True, mode="interactive")  # type: ignore[arg-type]  # duck-typed UI
    await result.session.prompt("set it up")
    await result.session.prompt("/qna")
    assert ui.editor == "Q: Which database?\nA:\n\nQ: Which port?\nA:"
    assert ui.told[-1].startswith("Questions loaded")
    # The extraction request carried the last answer to the session's model.
    assert "Which database? And which port?" in str(server.requests[1].json["messages"])
    await result.runtime.shutdown()


async def test_claude_rules_lists_project_rules_in_the_system_prompt(
    examples: Path, server: FakeLLMServer, project: Path
) -> None:
    (project / ".claude" / "rules" / "frontend").mkdir(parents=True)
    (project / ".claude" / "rules" / "testing.md").write_text("# Tests\n")
    (project / ".claude" / "rules" / "frontend" / "css.md").write_text("# CSS\n")
    server.push(ScriptedResponse(steps=[TextStep("ok")]))
    result = await make_session(server, project, extension_paths=[str(examples / "claude-rules.ts")])
    await result.session.prompt("hi")
    prompt = system_prompt_of(server.requests[0])
    assert "- .claude/rules/testing.md" in prompt and "- .claude/rules/frontend/css.md" in prompt
    await result.runtime.shutdown()


async def test_session_name_command_names_the_session(examples: Path, server: FakeLLMServer, project: Path) -> None:
    result = await make_session(server, project, extension_paths=[str(examples / "session-name.ts")])
    ui = EditorUI()
    await result.session.bind_extensions(ui=ui, has_ui=True, mode="interactive")  # type: ignore[arg-type]  # duck-typed UI
    await result.session.prompt("/session-name release prep")
    await result.session.prompt("/session-name")
    assert result.session.session_manager.get_session_name() == "release prep"
    assert ui.told == ["Session named: release prep", "Session: release prep"]
    await result.runtime.shutdown()
