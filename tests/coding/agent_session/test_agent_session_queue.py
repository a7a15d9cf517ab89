"""Steering, follow-up, the UI queues, extension commands while streaming, abort (agent-loop.md 5.4, 7, 10)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from _agent_session_helpers import Recorder, gate_tool, make_session, request_texts, wait_for

from pi_harness.coding.agent_session import SessionError
from pi_harness.coding.extensions.api import ExtensionAPI
from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep, ToolCallStep


async def test_steering_during_the_tool_phase(server: FakeLLMServer, project: Path) -> None:
    release, started = asyncio.Event(), asyncio.Event()
    server.push(
        ScriptedResponse(steps=[ToolCallStep("gate", {}, id="c1")]),
        ScriptedResponse(steps=[TextStep("using yarn")]),
    )
    result = await make_session(server, project, custom_tools=[gate_tool("gate", release, started)])
    session = result.session
    recorder = Recorder(session)
    await session.start_prompt("install deps")
    await started.wait()

    assert await session.steer("use yarn") == "queued"
    assert session.get_steering_messages() == ["use yarn"]
    release.set()
    await session.wait_for_idle()

    trace = recorder.trace()
    queued = trace.index("queue_update:['use yarn']:[]")
    assert trace[queued:] == [
        "queue_update:['use yarn']:[]",
        "tool_execution_end:c1",
        "message_start:c1",
        "message_end:c1",
        "turn_end",
        "turn_start",
        "queue_update:[]:[]",
        "message_start:user",
        "message_end:user",
        "message_start:assistant",
        "message_end:assistant",
        "turn_end",
        "agent_end",
        "agent_settled",
    ]
    assert request_texts(server.requests[1])[-2:] == ["tool:gate done", "user:use yarn"]
    assert session.get_steering_messages() == []
    await result.runtime.shutdown()


async def test_clear_queue_returns_and_announces_what_was_queued(server: FakeLLMServer, project: Path) -> None:
    release = asyncio.Event()
    server.push(ScriptedResponse(steps=[ToolCallStep("gate", {}, id="c1")]), ScriptedResponse(steps=[TextStep("ok")]))
    result = await make_session(server, project, custom_tools=[gate_tool("gate", release)])
    session = result.session
    recorder = Recorder(session)
    await session.start_prompt("work")
    await wait_for(lambda: bool(recorder.of("tool_execution_start")))
    await session.steer("s1")
    await session.follow_up("f1")
    await session.follow_up("f2")
    assert session.pending_message_count == 3
    assert session.clear_queue() == {"steering": ["s1"], "followUp": ["f1", "f2"]}
    assert recorder.of("queue_update")[-1] == {"type": "queue_update", "steering": [], "followUp": []}
    assert session.pending_message_count == 0
    release.set()
    await session.wait_for_idle()
    assert [t for t in request_texts(server.requests[1]) if t.startswith("user:")] == ["user:work"]
    await result.runtime.shutdown()


def commands(pi: ExtensionAPI) -> None:
    @pi.command("stats", description="Show numbers")
    async def stats(args: str, ctx: Any) -> None:
        ctx.ui.notify(f"stats {args}")
        calls.append((args, ctx.is_idle()))


calls: list[tuple[str, bool]] = []


async def test_extension_commands_run_at_once_even_while_streaming(server: FakeLLMServer, project: Path) -> None:
    calls.clear()
    server.push(ScriptedResponse(steps=[TextStep("slow " * 10)], chunk_delay_ms=20))
    result = await make_session(server, project, extension_factories=[commands])
    session = result.session
    await session.start_prompt("hello")
    assert session.is_streaming
    assert await session.prompt("/stats now") == "handled"
    assert calls == [("now", False)]
    with pytest.raises(SessionError) as refused:
        await session.steer("/stats later")
    assert str(refused.value) == (
        'Extension command "/stats" cannot be queued. Use prompt() or execute the command when not streaming.'
    )
    await session.wait_for_idle()
    assert len(server.requests) == 1  # the command sent nothing
    assert {"name": "stats", "description": "Show numbers", "source": "extension"}.items() <= session.get_commands()[
        0
    ].items()
    await result.runtime.shutdown()


async def test_abort_while_streaming(server: FakeLLMServer, project: Path) -> None:
    server.push(ScriptedResponse(steps=[TextStep("word " * 40, chunks=40)], chunk_delay_ms=25))
    result = await make_session(server, project)
    session = result.session
    recorder = Recorder(session)
    await session.start_prompt("talk")
    await wait_for(lambda: bool(recorder.of("message_update")))
    await session.abort()
    assert session.is_idle
    assert recorder.trace()[-5:] == [
        "message_start:assistant",
        "message_end:assistant",
        "turn_end",
        "agent_end",
        "agent_settled:aborted",
    ]
    final = recorder.of("message_end")[-1]["message"]
    assert final["stopReason"] == "aborted"
    assert recorder.of("agent_end")[-1]["willRetry"] is False
    assert recorder.of("turn_end")[-1]["toolResults"] == []
    # The partial response is kept in the file but never replayed.
    assert session.get_messages()[-1]["stopReason"] == "aborted"
    await result.runtime.shutdown()


async def test_prompt_from_an_agent_settled_listener_waits_for_the_emission(
    server: FakeLLMServer, project: Path
) -> None:
    server.push(ScriptedResponse(steps=[TextStep("one")]), ScriptedResponse(steps=[TextStep("two")]))
    result = await make_session(server, project)
    session = result.session
    recorder = Recorder(session)
    dispositions: list[str] = []

    async def again(event: dict[str, Any]) -> None:
        if event["type"] == "agent_settled" and not dispositions:
            dispositions.append(await session.prompt("second"))
            dispositions.append("listener done")

    session.subscribe(again)
    await session.prompt("first")
    await wait_for(lambda: len(recorder.of("agent_settled")) == 2)
    assert dispositions == ["queued", "listener done"]
    assert session.get_last_assistant_text() == "two"
    await result.runtime.shutdown()


async def test_cancelling_a_prompt_aborts_its_run(server: FakeLLMServer, project: Path) -> None:
    server.push(ScriptedResponse(steps=[TextStep("word " * 40, chunks=40)], chunk_delay_ms=25))
    result = await make_session(server, project)
    session = result.session
    recorder = Recorder(session)
    waiting = asyncio.ensure_future(session.prompt("talk"))
    await wait_for(lambda: bool(recorder.of("message_update")))
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    await session.wait_for_idle()
    assert recorder.of("agent_settled") == [{"type": "agent_settled", "aborted": True}]
    assert session.get_messages()[-1]["stopReason"] == "aborted"
    await result.runtime.shutdown()
