"""Tools, models, thinking levels, manual compaction and user shell commands of a session."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from _agent_session_helpers import Recorder, gate_tool, make_session, request_texts

from pi_harness.coding.compaction import CompactionError
from pi_harness.coding.extensions.api import ExtensionAPI
from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep, ToolCallStep


def tool_names(request: Any) -> list[str]:
    return [t["function"]["name"] for t in request.json.get("tools") or []]


async def test_set_active_tools_writes_system_patches(server: FakeLLMServer, project: Path) -> None:
    release, started = asyncio.Event(), asyncio.Event()
    server.push(
        ScriptedResponse(steps=[ToolCallStep("gate", {}, id="c1")]),
        ScriptedResponse(steps=[TextStep("after the switch")]),
        ScriptedResponse(steps=[TextStep("next prompt")]),
    )
    result = await make_session(
        server, project, tools=["read", "bash"], custom_tools=[gate_tool("gate", release, started)]
    )
    session = result.session
    recorder = Recorder(session)
    assert session.get_active_tool_names() == ["read", "bash", "gate"]
    assert {t["name"] for t in session.get_all_tools()} >= {
        "read",
        "bash",
        "edit",
        "write",
        "grep",
        "find",
        "ls",
        "gate",
    }

    await session.start_prompt("work")
    await started.wait()
    session.set_active_tools(["read", "gate", "no-such-tool"])
    release.set()
    await session.wait_for_idle()

    assert tool_names(server.requests[0]) == ["read", "bash", "gate"]
    assert tool_names(server.requests[1]) == ["read", "gate"]
    trace = recorder.trace()
    second_turn = trace.index("turn_start", trace.index("turn_end"))
    assert trace[second_turn : second_turn + 3] == ["turn_start", "message_start:system", "message_end:system"]
    systems = [m for m in session.get_messages() if m["role"] == "system"]
    assert len(systems) == 2
    assert systems[1]["toolsRemoved"] == [{"name": "bash"}] and "toolsAdded" not in systems[1]
    assert "- bash:" not in systems[1]["sections"]["tools"]

    session.set_active_tools(["read", "grep"])
    await session.prompt("again")
    assert tool_names(server.requests[2]) == ["read", "grep"]
    patch = [m for m in session.get_messages() if m["role"] == "system"][-1]
    assert [t["name"] for t in patch["toolsAdded"]] == ["grep"] and patch["toolsRemoved"] == [{"name": "gate"}]
    # Replaying the transcript gives the tool set in force.
    assert sorted(session.session_manager.get_system_state().tools) == ["grep", "read"]
    await result.runtime.shutdown()


async def test_extension_tools_are_active_and_restored_per_branch(server: FakeLLMServer, project: Path) -> None:
    def ext(pi: ExtensionAPI) -> None:
        @pi.tool(
            name="hello",
            description="Says hello.",
            parameters={"type": "object", "properties": {}},
            # "prefer": a "require" tool fails requests to servers without strict tools, as in Pi.
            constrained_sampling={"type": "json_schema", "strict": "prefer"},
        )
        async def hello(tool_call_id: str, params: dict[str, Any], signal: Any, on_update: Any, ctx: Any) -> str:
            return f"hello from {ctx.cwd}"

    server.push(ScriptedResponse(steps=[ToolCallStep("hello", {}, id="c1")]), ScriptedResponse(steps=[TextStep("x")]))
    server.push(ScriptedResponse(steps=[TextStep("y")]))
    result = await make_session(server, project, extension_factories=[ext])
    session = result.session
    await session.prompt("greet")
    assert "hello" in session.get_active_tool_names()
    assert request_texts(server.requests[1])[-1] == f"tool:hello from {project}"
    # The extension's sampling hint is part of the declaration the transcript records.
    declared = session.session_manager.get_system_state().tools["hello"]
    assert declared["constrainedSampling"] == {"type": "json_schema", "strict": "prefer"}  # type: ignore[typeddict-item]
    first_user = next(
        e["id"]
        for e in session.session_manager.get_entries()
        if e["type"] == "message" and e["message"]["role"] == "user"
    )
    session.set_active_tools(["read"])
    await session.prompt("narrow")
    assert session.get_active_tool_names() == ["read"]
    await session.navigate_tree(first_user)
    assert session.get_active_tool_names() == ["read", "bash", "edit", "write", "hello"]
    await result.runtime.shutdown()


async def test_models_and_thinking_levels(server: FakeLLMServer, project: Path) -> None:
    thinker = server.model("openai-completions", model_id="thinker", reasoning=True)
    plain = server.model("openai-completions", model_id="plain")
    selections: list[Any] = []

    def watch(pi: ExtensionAPI) -> None:
        @pi.on("model_select")
        def selected(event: Any, ctx: Any) -> None:
            selections.append((event.model["id"], event.source))

    result = await make_session(
        server, project, model=thinker, extension_factories=[watch], settings={"defaultThinkingLevel": "high"}
    )
    session = result.session
    recorder = Recorder(session)
    assert session.thinking_level == "high"
    assert session.get_available_thinking_levels() == ["off", "minimal", "low", "medium", "high"]
    assert session.cycle_thinking_level() == "off"
    session.set_thinking_level("xhigh")
    assert session.thinking_level == "high"  # clamped

    await session.set_model(plain)
    assert session.model is not None and session.model["id"] == "plain" and session.thinking_level == "off"
    assert session.cycle_thinking_level() is None
    assert selections == [("plain", "set")]
    assert recorder.of("model_changed")[0]["previousModel"]["id"] == "thinker"
    levels = [e["level"] for e in recorder.of("thinking_level_changed")]
    assert levels == ["off", "high", "off"]

    session.set_scoped_models([(thinker, "low"), (plain, None)])
    cycled = await session.cycle_model()
    assert cycled is not None and cycled["model"]["id"] == "thinker" and cycled["thinkingLevel"] == "low"
    assert cycled["isScoped"] is True
    kinds = [e["type"] for e in session.session_manager.get_entries()]
    assert kinds.count("model_change") == 3 and kinds.count("thinking_level_change") >= 4

    other = server.model("openai-completions", model_id="x")
    other["provider"] = "nobody"
    with pytest.raises(ValueError, match="No API key found for nobody"):
        await session.set_model(other)
    await result.runtime.shutdown()


async def test_per_model_thinking_setting_and_explicit_level(server: FakeLLMServer, project: Path) -> None:
    thinker = server.model("openai-completions", model_id="thinker", reasoning=True)
    settings = {"modelSettings": {"fake/thinker": {"thinkingLevel": "low"}}}
    by_setting = await make_session(server, project, model=thinker, settings=settings)
    assert by_setting.session.thinking_level == "low"
    await by_setting.runtime.shutdown()
    explicit = await make_session(server, project, model=thinker, settings=settings, thinking_level="minimal")
    assert explicit.session.thinking_level == "minimal"
    await explicit.runtime.shutdown()


async def test_pi_s_model_thinking_levels_win_over_model_settings(server: FakeLLMServer, project: Path) -> None:
    thinker = server.model("openai-completions", model_id="thinker", reasoning=True)
    settings = {
        "modelThinkingLevels": {"fake/thinker": "high"},
        "modelSettings": {"fake/thinker": {"thinkingLevel": "low"}},
    }
    result = await make_session(server, project, model=thinker, settings=settings)
    assert result.session.thinking_level == "high"
    await result.runtime.shutdown()


async def test_per_model_compaction_settings_override_the_general_ones(server: FakeLLMServer, project: Path) -> None:
    thinker = server.model("openai-completions", model_id="thinker", reasoning=True)
    per_model = {"reserveTokens": 500, "keepRecentTokens": "many", "enabled": False}
    settings = {
        "compaction": {"reserveTokens": 1000, "keepRecentTokens": 100},
        "modelSettings": {"fake/thinker": {"compaction": per_model}},
    }
    result = await make_session(server, project, model=thinker, settings=settings)
    compaction = result.session.compaction
    # A per-model value of the wrong type leaves the general setting in force (with a warning).
    ours = compaction.settings_for(thinker)
    assert (ours.reserve_tokens, ours.keep_recent_tokens, ours.enabled) == (500, 100, False)
    general = compaction.settings_for(server.model("openai-completions"))
    assert (general.reserve_tokens, general.keep_recent_tokens, general.enabled) == (1000, 100, True)
    assert result.session.auto_compaction_enabled  # ``compaction.enabled`` itself
    assert any("modelSettings.fake/thinker.compaction.keepRecentTokens: expected" in d for d in result.diagnostics)
    await result.runtime.shutdown()


async def test_manual_compaction(server: FakeLLMServer, project: Path) -> None:
    server.push(
        ScriptedResponse(steps=[TextStep("answer one " * 50)]),
        ScriptedResponse(steps=[TextStep("answer two " * 50)]),
        ScriptedResponse(steps=[TextStep("## Goal\nCompacted summary")]),
    )
    result = await make_session(server, project, settings={"compaction": {"keepRecentTokens": 139}})
    session = result.session
    recorder = Recorder(session)
    with pytest.raises(CompactionError, match=r"^Nothing to compact \(session too small\)$"):
        await session.compact()
    await session.prompt("one")
    await session.prompt("two")

    compacted = await session.compact("focus on answers")

    assert compacted["summary"].startswith("## Goal\nCompacted summary")
    assert compacted["firstKeptEntryId"] and compacted["tokensBefore"] > 0
    assert "focus on answers" in request_texts(server.requests[2])[1]
    assert recorder.trace()[-2:] == ["compaction_start:manual", "compaction_end:manual"]
    # Pi's compacted context: the system checkpoint, then the summary.
    assert [m["role"] for m in session.get_messages()[:2]] == ["system", "compactionSummary"]
    with pytest.raises(CompactionError, match=r"^Already compacted$"):
        await session.compact()
    assert recorder.of("compaction_end")[-1]["errorMessage"] == "Compaction failed: Already compacted"
    session.set_auto_compaction(False)
    assert session.get_state()["autoCompactionEnabled"] is False
    await result.runtime.shutdown()


async def test_user_bash_is_stored_and_reaches_the_next_prompt(server: FakeLLMServer, project: Path) -> None:
    server.push(ScriptedResponse(steps=[TextStep("seen")]))
    result = await make_session(server, project)
    session = result.session
    recorder = Recorder(session)
    deltas: list[str] = []

    outcome = await session.run_bash("echo from-user; exit 3", on_delta=deltas.append, request_id="r7")
    assert outcome == {"output": "from-user\n", "exitCode": 3, "cancelled": False, "truncated": False}
    assert "".join(deltas) == "from-user\n"
    assert recorder.of("bash_execution_update")[0]["id"] == "r7"
    hidden = await session.run_bash("echo private", exclude_from_context=True)
    assert hidden["exitCode"] == 0
    await session.prompt("what happened?")

    texts = request_texts(server.requests[0])
    assert texts[1] == "user:Ran `echo from-user; exit 3`\n```\nfrom-user\n\n```\n\nCommand exited with code 3"
    assert "private" not in str(texts) and texts[-1] == "user:what happened?"
    bash_messages = [m for m in session.get_messages() if m["role"] == "bashExecution"]
    assert [m["command"] for m in bash_messages] == ["echo from-user; exit 3", "echo private"]
    assert bash_messages[1]["excludeFromContext"] is True
    await result.runtime.shutdown()


async def test_user_bash_extension_hook(server: FakeLLMServer, project: Path) -> None:
    def hook(pi: ExtensionAPI) -> None:
        @pi.on("user_bash")
        def handle(event: Any, ctx: Any) -> Any:
            if event.command == "forbidden":
                raise PermissionError("not allowed here")
            return {
                "result": {"output": f"handled {event.command}", "exitCode": 0, "cancelled": False, "truncated": False}
            }

    result = await make_session(server, project, extension_factories=[hook])
    session = result.session
    assert (await session.run_bash("ls"))["output"] == "handled ls"
    with pytest.raises(RuntimeError, match="not allowed here"):
        await session.run_bash("forbidden")
    assert [m["command"] for m in session.get_messages() if m["role"] == "bashExecution"] == ["ls"]
    await result.runtime.shutdown()
