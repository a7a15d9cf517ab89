"""The prompt pipeline, event orders and persistence of AgentSession (agent-loop.md 8.2, 8.3, 10)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from _agent_session_helpers import (
    API,
    Recorder,
    make_session,
    request_roles,
    request_texts,
    system_prompt_of,
)

from pi_harness.coding.agent_session import SessionError
from pi_harness.coding.config.settings import SettingsManager
from pi_harness.coding.sdk import create_agent_session
from pi_harness.coding.session_store import SessionManager
from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep, ToolCallStep

QA_ORDER = [
    "agent_start",
    "turn_start",
    "message_start:system",
    "message_end:system",
    "message_start:user",
    "message_end:user",
    "message_start:assistant",
    "message_end:assistant",
    "turn_end",
    "agent_end",
    "agent_settled",
]


async def test_question_and_answer_follows_the_canonical_order(server: FakeLLMServer, project: Path) -> None:
    server.push(ScriptedResponse(steps=[TextStep("Hello there")]))
    result = await make_session(server, project)
    session = result.session
    recorder = Recorder(session)

    assert await session.prompt("hi") == "started"

    assert recorder.trace() == QA_ORDER
    assert recorder.of("agent_end")[0]["willRetry"] is False
    assert recorder.of("agent_settled") == [{"type": "agent_settled", "aborted": False}]
    assert recorder.of("message_start")[2]["message"]["stopReason"] == "pending"
    assert recorder.of("message_end")[2]["message"]["stopReason"] == "stop"
    assert len(recorder.of("message_update")) >= 1
    assert session.get_last_assistant_text() == "Hello there"
    assert session.is_idle and not session.is_streaming
    # The first request carries the whole prompt recorded in the transcript's system message.
    # Pi's shape: the content is empty, every section but the preamble is tagged, the prompt
    # sent is the sections joined.
    system = next(m for m in session.get_messages() if m["role"] == "system")
    assert system["content"] == ""
    assert set(system["sections"]) >= {"preamble", "tools", "rules", "cwd"}
    assert system["sections"]["cwd"] == f"<cwd>\nCurrent working directory: {project}\n</cwd>"
    assert [t["name"] for t in system["toolsAdded"]] == ["read", "bash", "edit", "write"]
    assert system["toolsAdded"][0]["constrainedSampling"] == {"type": "json_schema", "strict": "prefer"}  # type: ignore[typeddict-item]
    assert system["timestamp"] > 0
    assert system_prompt_of(server.requests[0]) == "\n\n".join(text for text in system["sections"].values() if text)
    assert system_prompt_of(server.requests[0]).startswith("You are an expert coding assistant")
    assert [t["function"]["name"] for t in server.requests[0].json["tools"]] == ["read", "bash", "edit", "write"]
    await result.runtime.shutdown()


async def test_two_parallel_tool_calls_then_an_answer(server: FakeLLMServer, project: Path) -> None:
    (project / "a.txt").write_text("alpha\n")
    server.push(
        ScriptedResponse(
            steps=[
                ToolCallStep("read", {"path": "a.txt"}, id="c1"),
                ToolCallStep("bash", {"command": "echo beta"}, id="c2"),
            ]
        ),
        ScriptedResponse(steps=[TextStep("Both done")]),
    )
    result = await make_session(server, project)
    session = result.session
    recorder = Recorder(session)

    await session.prompt("read and run")

    trace = [t for t in recorder.trace() if not t.startswith("tool_execution_update")]
    starts = trace.index("tool_execution_start:c1")
    assert trace[starts : starts + 2] == ["tool_execution_start:c1", "tool_execution_start:c2"]
    ends = sorted(trace.index(f"tool_execution_end:{c}") for c in ("c1", "c2"))
    results = [trace.index(f"message_start:{c}") for c in ("c1", "c2")]
    assert max(ends) < results[0] < results[1]  # results follow the whole batch, in source order
    assert trace[-5:] == ["message_start:assistant", "message_end:assistant", "turn_end", "agent_end", "agent_settled"]
    assert request_roles(server.requests[1]) == ["system", "user", "assistant", "tool", "tool"]
    tool_texts = [m["content"] for m in server.requests[1].json["messages"] if m["role"] == "tool"]
    assert "alpha" in str(tool_texts[0]) and "beta" in str(tool_texts[1])
    await result.runtime.shutdown()


async def test_a_tool_session_is_written_to_disk_and_resumed(server: FakeLLMServer, project: Path) -> None:
    server.push(
        ScriptedResponse(steps=[ToolCallStep("bash", {"command": "echo persisted"}, id="c1")]),
        ScriptedResponse(steps=[TextStep("first answer")]),
    )
    result = await make_session(server, project, persistent=True)
    session = result.session
    await session.prompt("run it")
    session_file = session.session_manager.get_session_file()
    assert session_file is not None and session_file.exists()
    assert session_file.parent.parent.name == "sessions"
    await result.runtime.shutdown()

    lines = session_file.read_text().splitlines()
    assert '"type":"session"' in lines[0]
    types = [line.split('"type":"', 1)[1].split('"', 1)[0] for line in lines[1:]]
    assert types[:2] == ["model_change", "thinking_level_change"]

    server.push(ScriptedResponse(steps=[TextStep("second answer")]))
    resumed = await create_agent_session(
        cwd=str(project),
        session_manager=SessionManager.open(session_file),
        api_keys={"fake": "test-key"},
        settings_manager=SettingsManager.in_memory(),
        model=server.model(API),
    )
    again = resumed.session
    assert [m["role"] for m in again.get_messages()] == ["system", "user", "assistant", "toolResult", "assistant"]
    await again.prompt("continue")
    assert request_texts(server.requests[2])[1:] == [
        "user:run it",
        "assistant:",
        "tool:persisted\n",
        "assistant:first answer",
        "user:continue",
    ]
    await resumed.runtime.shutdown()
    reopened = SessionManager.open(session_file)
    assert [m["role"] for m in reopened.build_session_context().messages][-2:] == ["user", "assistant"]


async def test_resuming_restores_the_recorded_model_or_reports_a_fallback(server: FakeLLMServer, project: Path) -> None:
    server.push(ScriptedResponse(steps=[TextStep("ok")]))
    manager = SessionManager.in_memory(str(project))
    first = await make_session(server, project, session_manager=manager, thinking_level="off")
    await first.session.prompt("hi")
    await first.session.dispose(close_session_manager=False)

    # Same manager, no explicit model: the recorded model is restored (its key is known).
    restored = await create_agent_session(
        cwd=str(project),
        session_manager=manager,
        settings_manager=SettingsManager.in_memory(),
        model_runtime=first.session.model_runtime,
    )
    assert restored.session.model is not None and restored.session.model["id"] == "fake-model"
    assert restored.model_fallback_message is None
    await restored.session.dispose(close_session_manager=False)

    # A runtime without credentials for it: a fallback message instead.
    fallback = await create_agent_session(
        cwd=str(project), session_manager=manager, settings_manager=SettingsManager.in_memory()
    )
    assert fallback.model_fallback_message == "Could not restore model fake/fake-model"
    await fallback.session.dispose()


async def test_pipeline_refusals_have_pis_texts(server: FakeLLMServer, project: Path) -> None:
    no_model = await create_agent_session(
        cwd=str(project),
        session_manager=SessionManager.in_memory(str(project)),
        settings_manager=SettingsManager.in_memory(),
    )
    assert no_model.session.model is None
    with pytest.raises(SessionError, match=r"^No model selected\."):
        await no_model.session.prompt("hi")
    await no_model.runtime.shutdown()

    no_key = await make_session(server, project, api_keys={})
    with pytest.raises(SessionError, match=r"^No API key found for fake\."):
        await no_key.session.prompt("hi")
    await no_key.runtime.shutdown()
    assert server.requests == []


async def test_prompt_while_streaming_needs_a_streaming_behavior(server: FakeLLMServer, project: Path) -> None:
    server.push(
        ScriptedResponse(steps=[TextStep("one two three four")], chunk_delay_ms=40),
        ScriptedResponse(steps=[TextStep("follow-up answer")]),
    )
    result = await make_session(server, project)
    session = result.session
    recorder = Recorder(session)
    assert await session.start_prompt("first") == "started"
    assert session.is_streaming
    with pytest.raises(SessionError) as refused:
        await session.prompt("second")
    assert str(refused.value) == (
        "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message."
    )
    assert await session.prompt("later", streaming_behavior="followUp") == "queued"
    assert session.get_follow_up_messages() == ["later"]
    assert session.pending_message_count == 1
    await session.wait_for_idle()
    assert session.get_follow_up_messages() == []
    trace = recorder.trace()
    # The follow-up is delivered in the same low-level run; its removal is announced first.
    follow = trace.index("queue_update:[]:[]")
    assert trace[follow - 2 : follow + 2] == ["turn_end", "turn_start", "queue_update:[]:[]", "message_start:user"]
    assert trace.count("agent_start") == 1 and trace.count("agent_settled") == 1
    assert request_texts(server.requests[1])[-1] == "user:later"
    await result.runtime.shutdown()


async def test_skills_and_templates_expand_and_context_files_reach_the_request(
    server: FakeLLMServer, project: Path, agent_dir: Path
) -> None:
    (agent_dir / "AGENTS.md").write_text("Global rule: be kind.")
    (project / "AGENTS.md").write_text("Project rule: use tabs.")
    skill = agent_dir / "skills" / "greeter"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: greeter\ndescription: Greets people warmly.\n---\nSay hello nicely.\n")
    prompts = agent_dir / "prompts"
    prompts.mkdir()
    (prompts / "review.md").write_text("---\ndescription: Review code\n---\nReview $1 carefully, then $ARGUMENTS.\n")
    server.push(ScriptedResponse(steps=[TextStep("a")]), ScriptedResponse(steps=[TextStep("b")]))
    result = await make_session(server, project, agent_dir=str(agent_dir))
    session = result.session

    await session.prompt("/skill:greeter Bob")
    await session.prompt("/review main.py fast")

    system = system_prompt_of(server.requests[0])
    assert f'<project_instructions path="{agent_dir / "AGENTS.md"}">' in system
    assert "Project rule: use tabs." in system and "Global rule: be kind." in system
    assert "<name>greeter</name>" in system and "Greets people warmly." in system
    first_user = request_texts(server.requests[0])[-1]
    assert first_user.startswith('user:<skill name="greeter" location="')
    assert "Say hello nicely.\n</skill>\n\nBob" in first_user
    assert request_texts(server.requests[1])[-1] == "user:Review main.py carefully, then main.py fast.\n"
    commands = {c["name"]: c for c in session.get_commands()}
    # Pi's sourceInfo: discovered in the agent dir (source auto, scope user), the agent dir as baseDir.
    assert commands["review"]["source"] == "prompt"
    assert commands["review"]["sourceInfo"] == {
        "path": str((prompts / "review.md").resolve()),
        "source": "auto",
        "scope": "user",
        "origin": "top-level",
        "baseDir": str(agent_dir),
    }
    assert commands["skill:greeter"]["source"] == "skill"
    assert commands["skill:greeter"]["sourceInfo"]["source"] == "auto"
    assert commands["skill:greeter"]["sourceInfo"]["scope"] == "user"
    await result.runtime.shutdown()


async def test_skill_commands_off_still_expands_a_typed_skill_command(
    server: FakeLLMServer, project: Path, agent_dir: Path
) -> None:
    # As in Pi 1.4.0, enableSkillCommands only hides skills from interactive completion
    # (tests/cli/modes/interactive); a typed /skill:name is expanded and get_commands lists it.
    skill = agent_dir / "skills" / "greeter"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: greeter\ndescription: Greets people warmly.\n---\nSay hello nicely.\n")
    server.push(ScriptedResponse(steps=[TextStep("a")]))
    result = await make_session(server, project, agent_dir=str(agent_dir), settings={"enableSkillCommands": False})
    session = result.session
    await session.prompt("/skill:greeter Bob")
    assert request_texts(server.requests[0])[-1].startswith('user:<skill name="greeter"')
    assert "skill:greeter" in {c["name"] for c in session.get_commands()}
    await result.runtime.shutdown()


async def test_bash_tool_sees_the_session_environment(server: FakeLLMServer, project: Path) -> None:
    command = "echo $PI_SESSION_ID/$PI_PROVIDER/$PI_MODEL/$PI_REASONING_LEVEL/[$PI_SESSION_FILE]"
    server.push(
        ScriptedResponse(steps=[ToolCallStep("bash", {"command": command}, id="c1")]),
        ScriptedResponse(steps=[TextStep("ok")]),
    )
    result = await make_session(server, project, thinking_level="high")
    session = result.session
    await session.prompt("env")
    output = next(m for m in session.get_messages() if m["role"] == "toolResult")["content"][0]["text"]
    session_id = session.session_manager.get_session_id()
    # The fake model does not reason, so the level is clamped to "off"; in memory: no file.
    assert output.strip() == f"{session_id}/fake/fake-model/off/[]"
    assert "PI_SESSION_ID" not in os.environ
    await result.runtime.shutdown()


async def test_get_state_and_stats_shapes(server: FakeLLMServer, project: Path) -> None:
    server.push(
        ScriptedResponse(
            steps=[ToolCallStep("bash", {"command": "true"}, id="c1")], usage={"input": 100, "output": 20}
        ),
        ScriptedResponse(steps=[TextStep("done")], usage={"input": 150, "output": 30}),
    )
    result = await make_session(server, project)
    session = result.session
    await session.prompt("go")
    state = session.get_state()
    assert state["model"]["id"] == "fake-model"
    assert state["isStreaming"] is False and state["isCompacting"] is False
    assert state["steeringMode"] == "one-at-a-time" and state["followUpMode"] == "one-at-a-time"
    assert "sessionFile" not in state and state["sessionId"] == session.session_manager.get_session_id()
    assert state["autoCompactionEnabled"] is True and state["pendingMessageCount"] == 0
    assert state["messageCount"] == 5
    stats: dict[str, Any] = session.get_session_stats()
    assert stats["userMessages"] == 1 and stats["assistantMessages"] == 2
    assert stats["toolCalls"] == 1 and stats["toolResults"] == 1 and stats["totalMessages"] == 5
    assert stats["tokens"]["input"] == 250 and stats["tokens"]["output"] == 50
    assert stats["cost"] > 0
    usage = stats["contextUsage"]
    assert (
        usage["contextWindow"] == 128_000 and usage["tokens"] == 180 and usage["percent"] == pytest.approx(180 / 1280)
    )
    await result.runtime.shutdown()
