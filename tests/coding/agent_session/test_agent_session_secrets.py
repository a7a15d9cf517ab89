"""Secret masking in a live session: every tool's result, partial results, ``!cmd`` output."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _agent_session_helpers import Recorder, make_session

from pi_harness.coding.extensions.api import ExtensionAPI
from pi_harness.coding.extensions.types import ToolResult
from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep, ToolCallStep

SECRET = "pih-unit-secret-0123456789"
MARK = "[redacted:PIH_UNIT_API_KEY]"


@pytest.fixture(autouse=True)
def secret_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PIH_UNIT_API_KEY", SECRET)
    monkeypatch.setenv("PIH_SHORT_TOKEN", "abc1234")


async def test_bash_results_updates_and_requests_are_masked(server: FakeLLMServer, project: Path) -> None:
    command = 'echo "key=$PIH_UNIT_API_KEY short=$PIH_SHORT_TOKEN"'
    server.push(
        ScriptedResponse(steps=[ToolCallStep("bash", {"command": command}, id="c1")]),
        ScriptedResponse(steps=[TextStep("done")]),
    )
    result = await make_session(server, project)
    recorder = Recorder(result.session)
    await result.session.prompt("show the key")

    assert SECRET not in str(recorder.events)
    end = recorder.of("tool_execution_end")[0]
    assert end["result"]["content"][0]["text"] == f"key={MARK} short=abc1234\n"
    updates = [str(e["partialResult"]) for e in recorder.of("tool_execution_update")]
    assert any(MARK in text for text in updates)
    assert SECRET not in str(server.requests[1].json) and MARK in str(server.requests[1].json)
    assert SECRET not in str(result.session.session_manager.get_entries())
    await result.runtime.shutdown()


async def test_extension_tools_handlers_and_nested_calls_are_masked(server: FakeLLMServer, project: Path) -> None:
    (project / ".env").write_text(f"PIH_UNIT_API_KEY={SECRET}\n")
    handler_saw: list[str] = []
    nested_saw: list[str] = []

    async def leak(tool_call_id: str, params: dict[str, Any], signal: Any, on_update: Any, ctx: Any) -> Any:
        inner = await ctx.execute_tool("read", {"path": ".env"})
        nested_saw.append(inner["content"][0]["text"])
        return ToolResult(f"extension says {SECRET}", details={"raw": SECRET})

    def ext(pi: ExtensionAPI) -> None:
        pi.tool(name="leak", description="Prints a key.", parameters={"type": "object"})(leak)

        @pi.on("tool_result")
        def patch(event: Any, ctx: Any) -> Any:
            handler_saw.append(event.content[0]["text"])
            if event.tool_name == "leak":
                return {"content": [{"type": "text", "text": f"patched {SECRET}"}]}
            return None

    server.push(ScriptedResponse(steps=[ToolCallStep("leak", {}, id="c1")]), ScriptedResponse(steps=[TextStep("ok")]))
    result = await make_session(server, project, extension_factories=[ext])
    recorder = Recorder(result.session)
    await result.session.prompt("leak it")

    assert nested_saw == [f"PIH_UNIT_API_KEY={MARK}\n"]
    assert handler_saw == [f"PIH_UNIT_API_KEY={MARK}\n", f"extension says {MARK}"]
    message = next(m for m in result.session.get_messages() if m["role"] == "toolResult")
    assert message["content"][0]["text"] == f"patched {MARK}"
    assert message["details"]["raw"] == MARK
    assert SECRET not in str(recorder.events) and SECRET not in str(server.requests[1].json)
    await result.runtime.shutdown()


async def test_user_bash_output_and_deltas_are_masked(server: FakeLLMServer, project: Path) -> None:
    result = await make_session(server, project)
    recorder = Recorder(result.session)
    deltas: list[str] = []
    answer = await result.session.run_bash('printf "%s\\n" "$PIH_UNIT_API_KEY"', on_delta=deltas.append)
    assert answer["output"] == f"{MARK}\n"
    assert SECRET not in "".join(deltas) and MARK in "".join(deltas)
    assert SECRET not in str(recorder.events)
    stored = [m for m in result.session.get_messages() if m["role"] == "bashExecution"]
    assert stored[0]["output"] == f"{MARK}\n"
    await result.runtime.shutdown()


async def test_masking_off_passes_the_value(server: FakeLLMServer, project: Path) -> None:
    server.push(
        ScriptedResponse(steps=[ToolCallStep("bash", {"command": "echo $PIH_UNIT_API_KEY"}, id="c1")]),
        ScriptedResponse(steps=[TextStep("done")]),
    )
    result = await make_session(server, project, settings={"security": {"maskSecrets": False}})
    await result.session.prompt("show the key")
    message = next(m for m in result.session.get_messages() if m["role"] == "toolResult")
    assert message["content"][0]["text"] == f"{SECRET}\n"
    answer = await result.session.run_bash("echo $PIH_UNIT_API_KEY")
    assert answer["output"] == f"{SECRET}\n"
    await result.runtime.shutdown()


async def test_a_file_written_back_keeps_its_credentials(server: FakeLLMServer, project: Path) -> None:
    env_file = project / ".env"
    env_file.write_text(f"PIH_UNIT_API_KEY={SECRET}\nDEBUG=0\n")
    line = f"PIH_UNIT_API_KEY={MARK}"  # what the model saw
    server.push(
        ScriptedResponse(steps=[ToolCallStep("read", {"path": ".env"}, id="c1")]),
        ScriptedResponse(
            steps=[
                ToolCallStep(
                    "edit", {"path": ".env", "edits": [{"oldText": line, "newText": f"{line}\nLEVEL=2"}]}, id="c2"
                )
            ]
        ),
        ScriptedResponse(steps=[TextStep("edited")]),
        ScriptedResponse(steps=[ToolCallStep("write", {"path": "copy.env", "content": f"{line}\n"}, id="c3")]),
        ScriptedResponse(steps=[TextStep("copied")]),
    )
    result = await make_session(server, project)
    recorder = Recorder(result.session)
    await result.session.prompt("add LEVEL=2")
    await result.session.prompt("copy the key line")

    assert env_file.read_text() == f"PIH_UNIT_API_KEY={SECRET}\nLEVEL=2\nDEBUG=0\n"
    assert (project / "copy.env").read_text() == f"PIH_UNIT_API_KEY={SECRET}\n"
    ends = {e["toolCallId"]: e for e in recorder.of("tool_execution_end")}
    assert ends["c2"]["isError"] is False and ends["c3"]["isError"] is False
    assert SECRET not in str(recorder.events)
    assert all(SECRET not in str(request.json) for request in server.requests)
    assert SECRET not in str(result.session.session_manager.get_entries())
    await result.runtime.shutdown()
