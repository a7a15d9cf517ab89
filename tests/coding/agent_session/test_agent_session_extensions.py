"""Extension hooks as the session drives them (extensions.md 4-7, agent-loop.md 6.3, 8.7)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from _agent_session_helpers import Recorder, make_session, request_texts, system_prompt_of, wait_for

from pi_harness.coding.extensions.api import ExtensionAPI
from pi_harness.coding.extensions.types import ExtensionErrorRecord, ToolResult
from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep, ToolCallStep


async def test_tool_call_blocks_and_tool_result_redacts(server: FakeLLMServer, project: Path) -> None:
    seen: list[dict[str, Any]] = []

    def guard(pi: ExtensionAPI) -> None:
        @pi.on("tool_call")
        def gate(event: Any, ctx: Any) -> Any:
            seen.append(
                {"name": event.tool_name, "input": event.input, "persisted": len(ctx.session_manager.get_entries())}
            )
            if "rm -rf" in event.input.get("command", ""):
                return {"block": True, "reason": "Dangerous command blocked"}
            return None

        @pi.on("tool_result")
        def redact(event: Any, ctx: Any) -> Any:
            text = event.content[0]["text"].replace("hunter2", "[REDACTED]")
            return {"content": [{"type": "text", "text": text}], "details": {"redacted": True}}

    server.push(
        ScriptedResponse(
            steps=[
                ToolCallStep("bash", {"command": "rm -rf /"}, id="c1"),
                ToolCallStep("bash", {"command": "echo password=hunter2"}, id="c2"),
            ]
        ),
        ScriptedResponse(steps=[TextStep("done")]),
    )
    result = await make_session(server, project, extension_factories=[guard])
    session = result.session
    recorder = Recorder(session)
    await session.prompt("clean up")

    ends = {e["toolCallId"]: e for e in recorder.of("tool_execution_end")}
    assert ends["c1"]["isError"] is True
    assert ends["c1"]["result"]["content"] == [{"type": "text", "text": "Dangerous command blocked"}]
    assert ends["c2"]["result"]["content"][0]["text"] == "password=[REDACTED]\n"
    results = [m for m in session.get_messages() if m["role"] == "toolResult"]
    assert results[1]["details"] == {"redacted": True}
    tool_messages = [m for m in server.requests[1].json["messages"] if m["role"] == "tool"]
    assert "hunter2" not in str(tool_messages) and "[REDACTED]" in str(tool_messages)
    # Handlers ran in source order, with the calling assistant message already persisted.
    assert [s["input"]["command"] for s in seen] == ["rm -rf /", "echo password=hunter2"]
    assert seen[0]["persisted"] == seen[1]["persisted"] >= 5
    await result.runtime.shutdown()


async def test_context_and_before_agent_start_shape_the_request(server: FakeLLMServer, project: Path) -> None:
    def shaper(pi: ExtensionAPI) -> None:
        @pi.on("before_agent_start")
        def start(event: Any, ctx: Any) -> Any:
            event.sections["team"] = "Team conventions: write tests first."
            event.guidelines.append("Mention the ticket number.")
            if event.prompt == "replace":
                return {"systemPrompt": "You are a pirate."}
            return {"message": {"customType": "memo", "content": "Remember the release date.", "display": False}}

        @pi.on("context")
        def context(event: Any, ctx: Any) -> Any:
            # Memos reach only the request right after them; the transcript keeps them.
            last = len(event.messages) - 1
            return {"messages": [m for i, m in enumerate(event.messages) if m.get("customType") != "memo" or i == last]}

    server.push(ScriptedResponse(steps=[TextStep("a")]), ScriptedResponse(steps=[TextStep("b")]))
    result = await make_session(server, project, extension_factories=[shaper])
    session = result.session
    await session.prompt("normal")

    first = server.requests[0]
    system = system_prompt_of(first)
    assert "<team>\nTeam conventions: write tests first.\n</team>" in system
    assert "- Mention the ticket number." in system
    assert request_texts(first)[1:] == ["user:normal", "user:Remember the release date."]
    recorded = session.session_manager.get_system_state()
    assert recorded.sections["team"] == "<team>\nTeam conventions: write tests first.\n</team>"
    custom = [e for e in session.session_manager.get_entries() if e["type"] == "custom_message"]
    assert [(c["customType"], c["display"]) for c in custom] == [("memo", False)]

    await session.prompt("replace")
    assert system_prompt_of(server.requests[1]) == "You are a pirate."
    # The context handler took the memo out of the second request.
    assert request_texts(server.requests[1])[1:] == ["user:normal", "assistant:a", "user:replace"]
    memos = [m for m in session.get_messages() if m.get("customType") == "memo"]
    assert len(memos) == 1
    assert "<team>" in session.get_system_prompt()  # the replacement was for that run only
    await result.runtime.shutdown()


async def test_input_transform_and_handled(server: FakeLLMServer, project: Path) -> None:
    sources: list[str] = []

    def inputs(pi: ExtensionAPI) -> None:
        @pi.on("input")
        def rewrite(event: Any, ctx: Any) -> Any:
            sources.append(event.source)
            if event.text == "ping":
                ctx.ui.notify("pong")
                return {"action": "handled"}
            return {"action": "transform", "text": event.text.upper()}

    server.push(ScriptedResponse(steps=[TextStep("ok")]))
    result = await make_session(server, project, extension_factories=[inputs])
    session = result.session
    assert await session.prompt("ping", source="rpc") == "handled"
    assert await session.prompt("shout") == "started"
    assert sources == ["rpc", "interactive"]
    assert request_texts(server.requests[0])[-1] == "user:SHOUT"
    assert len(server.requests) == 1
    await result.runtime.shutdown()


async def test_send_message_delivery_modes(server: FakeLLMServer, project: Path) -> None:
    api: list[ExtensionAPI] = []

    def capture(pi: ExtensionAPI) -> None:
        api.append(pi)

    release, started = asyncio.Event(), asyncio.Event()

    async def slow(tool_call_id: str, params: dict[str, Any], signal: Any, on_update: Any, ctx: Any) -> Any:
        started.set()
        await release.wait()
        return ToolResult("slow done")

    def tools(pi: ExtensionAPI) -> None:
        pi.tool(name="slow", description="Waits.", parameters={"type": "object", "properties": {}})(slow)

    server.push(
        ScriptedResponse(steps=[TextStep("one")]),
        ScriptedResponse(steps=[ToolCallStep("slow", {}, id="c1")]),
        ScriptedResponse(steps=[TextStep("two")]),
        ScriptedResponse(steps=[TextStep("three")]),
    )
    result = await make_session(server, project, extension_factories=[capture, tools])
    session = result.session
    await session.bind_extensions(mode="print")
    pi = api[0]
    recorder = Recorder(session)

    # Idle, no trigger: appended at once, nothing sent.
    await pi.send_message({"customType": "note", "content": "idle note", "display": True})
    assert recorder.trace() == ["message_start:custom", "message_end:custom"]
    assert len(server.requests) == 0
    # nextTurn: held until the next prompt, then sent after the user message.
    await pi.send_message({"customType": "ctx", "content": "held for next turn"}, deliver_as="nextTurn")
    await session.prompt("first")
    assert request_texts(server.requests[0])[1:] == ["user:idle note", "user:first", "user:held for next turn"]

    # While a tool runs: without trigger the message waits for the end of the turn.
    await session.start_prompt("second")
    await started.wait()
    await pi.send_message({"customType": "late", "content": "deferred note"})
    release.set()
    await session.wait_for_idle()
    texts = request_texts(server.requests[2])
    assert texts[-2:] == ["tool:slow done", "user:deferred note"]

    # Idle with trigger: starts a run with the message.
    await pi.send_message({"customType": "wake", "content": "wake up"}, trigger_turn=True)
    await wait_for(lambda: len(server.requests) == 4 and session.is_idle)
    assert request_texts(server.requests[3])[-1] == "user:wake up"
    await result.runtime.shutdown()


async def test_send_user_message_while_streaming_needs_deliver_as(server: FakeLLMServer, project: Path) -> None:
    api: list[ExtensionAPI] = []
    errors: list[ExtensionErrorRecord] = []
    server.push(
        ScriptedResponse(steps=[TextStep("slow " * 8)], chunk_delay_ms=20), ScriptedResponse(steps=[TextStep("b")])
    )
    result = await make_session(server, project, extension_factories=[api.append])
    session = result.session
    session.extensions.on_error(errors.append)
    await session.start_prompt("first")
    await api[0].send_user_message("no mode")
    assert [(e.extension_path, e.event) for e in errors] == [("<runtime>", "send_user_message")]
    assert errors[0].error.startswith("Agent is already processing. Specify streamingBehavior")
    await api[0].send_user_message([{"type": "text", "text": "queued text"}], deliver_as="followUp")
    await session.wait_for_idle()
    assert request_texts(server.requests[1])[-1] == "user:queued text"
    await result.runtime.shutdown()


async def test_actionable_boundaries_continue_once(server: FakeLLMServer, project: Path) -> None:
    """``continue: true`` runs one more request only when there is something new to answer: a
    turn that ended with the assistant's text and nothing queued is not continued (reported, as
    in Pi); a settle handler that adds a message is."""
    state = {"settle": 0, "turns": 0}
    errors: list[ExtensionErrorRecord] = []

    def boundaries(pi: ExtensionAPI) -> None:
        @pi.on("turn_end")
        def turn_end(event: Any, ctx: Any) -> Any:
            state["turns"] += 1
            return {"continue": True} if state["turns"] == 1 else None

        @pi.on("agent_before_settle")
        async def before_settle(event: Any, ctx: Any) -> Any:
            state["settle"] += 1
            if state["settle"] == 1:
                await pi.send_message({"customType": "check", "content": "Did you run the tests?"})
                return {"continue": True}
            return None

    server.push(
        ScriptedResponse(steps=[TextStep("first")]),
        ScriptedResponse(steps=[TextStep("yes, tests pass")]),
    )
    result = await make_session(server, project, extension_factories=[boundaries])
    session = result.session
    session.extensions.on_error(errors.append)
    recorder = Recorder(session)
    await session.prompt("work")
    assert len(server.requests) == 2
    assert request_texts(server.requests[1])[-1] == "user:Did you run the tests?"
    assert state == {"settle": 2, "turns": 2}
    assert [(e.extension_path, e.event, e.error) for e in errors] == [
        ("<boundary>", "turn_end", "turn_end requested continuation without runnable model context")
    ]
    assert recorder.trace().count("agent_settled") == 1
    assert session.get_last_assistant_text() == "yes, tests pass"
    await result.runtime.shutdown()


async def test_a_handler_always_asking_to_continue_cannot_loop(server: FakeLLMServer, project: Path) -> None:
    errors: list[ExtensionErrorRecord] = []

    def insistent(pi: ExtensionAPI) -> None:
        pi.on("agent_before_settle", lambda event: {"continue": True})
        pi.on("turn_end", lambda event: {"continue": True})

    server.push(ScriptedResponse(steps=[TextStep("done")]))
    result = await make_session(server, project, extension_factories=[insistent])
    result.session.extensions.on_error(errors.append)
    await result.session.prompt("once")
    assert len(server.requests) == 1
    assert [e.event for e in errors] == ["turn_end", "agent_before_settle"]
    assert result.session.is_idle
    await result.runtime.shutdown()


async def test_nested_execute_tool_runs_through_the_hooks(server: FakeLLMServer, project: Path) -> None:
    (project / "notes.txt").write_text("nested content\n")
    gated: list[tuple[str, str | None]] = []

    async def combo(tool_call_id: str, params: dict[str, Any], signal: Any, on_update: Any, ctx: Any) -> Any:
        inner = await ctx.execute_tool("read", {"path": "notes.txt"})
        blocked = await ctx.execute_tool("bash", {"command": "echo nope"})
        return ToolResult(f"read: {inner['content'][0]['text'].strip()} / bash error: {blocked['isError']}")

    def ext(pi: ExtensionAPI) -> None:
        pi.tool(name="combo", description="Reads through another tool.", parameters={"type": "object"})(combo)

        @pi.on("tool_call")
        def gate(event: Any, ctx: Any) -> Any:
            gated.append((event.tool_name, event.get("parentToolCallId")))
            return {"block": True} if event.tool_name == "bash" else None

    server.push(ScriptedResponse(steps=[ToolCallStep("combo", {}, id="c1")]), ScriptedResponse(steps=[TextStep("ok")]))
    result = await make_session(server, project, extension_factories=[ext])
    session = result.session
    recorder = Recorder(session)
    await session.prompt("combine")

    assert gated == [("combo", None), ("read", "c1"), ("bash", "c1")]
    nested = [e for e in recorder.of("tool_execution_start") if e.get("parentToolCallId") == "c1"]
    assert [e["toolName"] for e in nested] == ["read", "bash"]
    outer = next(m for m in session.get_messages() if m["role"] == "toolResult")
    assert outer["content"][0]["text"] == "read: nested content / bash error: True"
    record = outer["nestedCalls"]
    assert [(r["id"], r["name"], r["status"]) for r in record["calls"]] == [
        ("c1/1", "read", "ok"),
        ("c1/2", "bash", "error"),
    ]
    assert record["calls"][0]["arguments"] == {"path": "notes.txt"}
    assert record["complete"] is True
    assert "nestedCalls" not in str(server.requests[1].json)  # kept for the session, not sent
    assert sum(1 for m in session.get_messages() if m["role"] == "toolResult") == 1  # not in the transcript
    await result.runtime.shutdown()


async def test_session_lifecycle_events_and_stale_contexts(server: FakeLLMServer, project: Path) -> None:
    log: list[Any] = []
    contexts: list[Any] = []

    def lifecycle(pi: ExtensionAPI) -> None:
        @pi.on("session_start")
        def start(event: Any, ctx: Any) -> None:
            contexts.append(ctx)
            log.append(("start", event.reason, event.get("previousSessionFile")))

        @pi.on("resources_discover")
        def discover(event: Any, ctx: Any) -> None:
            log.append(("discover", event.reason))

        @pi.on("session_shutdown")
        def shutdown(event: Any, ctx: Any) -> None:
            log.append(("shutdown",))

        @pi.on("session_switch")
        def switched(event: Any, ctx: Any) -> None:
            log.append(("switch", event.reason))

    result = await make_session(server, project, extension_factories=[lifecycle])
    runtime = result.runtime
    await result.session.bind_extensions(mode="json")
    await result.session.bind_extensions(mode="json")  # idempotent
    replaced: list[Any] = []
    runtime.on_session_replaced(replaced.append)
    assert await runtime.new_session() == {"cancelled": False}
    assert replaced == [runtime.session] and runtime.session is not result.session
    assert runtime.session.mode == "json"
    assert log == [
        ("start", "startup", None),
        ("discover", "startup"),
        ("shutdown",),
        ("start", "new", None),
        ("discover", "startup"),
        ("switch", "new"),
    ]
    old_ctx = contexts[0]
    try:
        _ = old_ctx.cwd
    except Exception as error:
        assert str(error).startswith("This extension ctx is stale after session replacement or reload.")
    else:
        raise AssertionError("stale context was usable")
    assert contexts[1].cwd == str(project)
    await runtime.shutdown()
    await runtime.shutdown()
    assert log.count(("shutdown",)) == 2


async def test_provider_request_hooks(server: FakeLLMServer, project: Path) -> None:
    responses: list[tuple[int, str]] = []

    def hooks(pi: ExtensionAPI) -> None:
        @pi.on("before_provider_headers")
        def headers(event: Any, ctx: Any) -> Any:
            return {**event.headers, "X-Trace": f"trace-{event.model['id']}"}

        @pi.on("before_provider_request")
        def payload(event: Any, ctx: Any) -> Any:
            return {**event.payload, "temperature": 0.25}

        @pi.on("after_provider_response")
        def response(event: Any, ctx: Any) -> None:
            responses.append((event.status, event.model["id"]))

    server.push(ScriptedResponse(steps=[TextStep("ok")]))
    model = server.model("openai-completions", headers={"X-Model": "from-model"})
    result = await make_session(server, project, model=model, extension_factories=[hooks])
    await result.session.prompt("hi")
    request = server.requests[0]
    assert request.headers["x-trace"] == "trace-fake-model" and request.headers["x-model"] == "from-model"
    assert request.json["temperature"] == 0.25
    assert responses == [(200, "fake-model")]
    await result.runtime.shutdown()
