"""The parts of Pi 1.4.0's extension API added for the surface check (extensions.md): new events,
``pi.*`` functions, context members and tool fields, each against a real session and the fake
LLM server."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from _agent_session_helpers import Recorder, make_session, request_texts

from pi_harness.coding.extensions import StaleContextError, ToolResult
from pi_harness.coding.extensions.api import ExtensionAPI
from pi_harness.coding.extensions.types import ExtensionErrorRecord, ToolAnnotations
from pi_harness.coding.extensions.ui import HeadlessUI
from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep, ToolCallStep

ECHO_SCHEMA: dict[str, Any] = {"type": "object", "properties": {"text": {"type": "string"}}}


class AnsweringUI:
    """A user interface whose confirm dialog says yes (everything else as headless)."""

    def __init__(self) -> None:
        self._headless = HeadlessUI()
        self.asked: list[str] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._headless, name)

    async def confirm(self, title: str, message: str = "", **_options: Any) -> bool:
        self.asked.append(title)
        return True


async def test_settled_thinking_level_and_session_info_reach_extensions(server: FakeLLMServer, project: Path) -> None:
    heard: list[tuple[str, dict[str, Any]]] = []
    apis: list[ExtensionAPI] = []

    def listener(pi: ExtensionAPI) -> None:
        apis.append(pi)

        def record(event: Any) -> None:
            heard.append((event.type, event.to_dict()))

        for name in ("agent_settled", "thinking_level_select", "session_info_changed"):
            pi.on(name, record)

    server.push(ScriptedResponse(steps=[TextStep("hi")]))
    result = await make_session(
        server, project, extension_factories=[listener], model=server.model(reasoning=True), thinking_level="low"
    )
    session = result.session
    await session.prompt("hello")
    await session.wait_for_idle()
    apis[0].set_thinking_level("high")
    apis[0].set_session_name("Release notes")
    await session.wait_for_idle()
    for _ in range(20):  # both are announced through the session's scheduled listeners
        if len(heard) >= 3:
            break
        import asyncio

        await asyncio.sleep(0)
    assert ("agent_settled", {"type": "agent_settled", "aborted": False}) in heard
    assert (
        "thinking_level_select",
        {"type": "thinking_level_select", "level": "high", "previousLevel": "low"},
    ) in heard
    assert ("session_info_changed", {"type": "session_info_changed", "name": "Release notes"}) in heard
    await result.runtime.shutdown()


async def test_dialogs_announce_themselves_and_mode_is_pi_s(server: FakeLLMServer, project: Path) -> None:
    log: list[Any] = []

    def asker(pi: ExtensionAPI) -> None:
        pi.on("ui_prompt_start", lambda event: log.append(("start", event.kind, event.get("title"))))
        pi.on("ui_prompt_end", lambda event: log.append(("end", event.kind, event.get("title"))))

        @pi.command("ask")
        async def ask(args: str, ctx: Any) -> None:
            log.append(("mode", ctx.mode))
            log.append(("answer", await ctx.ui.confirm("Deploy?", "to production")))

    result = await make_session(server, project, extension_factories=[asker])
    ui = AnsweringUI()
    await result.session.bind_extensions(ui=ui, has_ui=True, mode="interactive")
    assert await result.session.prompt("/ask") == "handled"
    assert log == [
        ("mode", "tui"),
        ("start", "confirm", "Deploy?"),
        ("end", "confirm", "Deploy?"),
        ("answer", True),
    ]
    assert ui.asked == ["Deploy?"]
    await result.runtime.shutdown()


async def test_headless_sdk_session_is_print_mode_without_prompt_events(server: FakeLLMServer, project: Path) -> None:
    log: list[Any] = []

    def asker(pi: ExtensionAPI) -> None:
        pi.on("ui_prompt_start", lambda event: log.append("start"))

        @pi.command("ask")
        async def ask(args: str, ctx: Any) -> None:
            log.append((ctx.mode, ctx.has_ui, await ctx.ui.confirm("Deploy?", "")))

    result = await make_session(server, project, extension_factories=[asker])
    assert await result.session.prompt("/ask") == "handled"
    assert log == [("print", False, False)]
    await result.runtime.shutdown()


async def test_context_members_inside_a_tool(server: FakeLLMServer, project: Path) -> None:
    seen: dict[str, Any] = {}

    def probe(pi: ExtensionAPI) -> None:
        @pi.tool(
            name="probe",
            description="Look at the context",
            parameters=ECHO_SCHEMA,
            annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False),
        )
        async def run(tool_call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any) -> Any:
            seen["signal"] = ctx.signal is not None and not ctx.signal.aborted
            seen["tools"] = sorted(t.name for t in ctx.tools)
            seen["trusted"] = ctx.is_project_trusted()
            seen["level"] = ctx.thinking_level
            seen["scoped"] = list(ctx.scoped_models)
            seen["settings"] = pi.get_settings()
            seen["info"] = next(t for t in pi.get_all_tools() if t["name"] == "probe")
            return ToolResult("looked")

    server.push(
        ScriptedResponse(steps=[ToolCallStep("probe", {"text": "x"}, id="p1")]),
        ScriptedResponse(steps=[TextStep("done")]),
    )
    result = await make_session(server, project, extension_factories=[probe], settings={"theme": "dark"})
    await result.session.prompt("go")
    assert seen["signal"] is True
    assert "probe" in seen["tools"] and "read" in seen["tools"]
    assert seen["trusted"] is True
    assert seen["level"] == "off"
    assert seen["scoped"] == []
    assert seen["settings"]["theme"] == "dark"
    seen["settings"]["theme"] = "changed"  # a copy: the session's settings keep their value
    assert result.session.settings.get("theme") == "dark"
    assert seen["info"]["annotations"] == {"readOnlyHint": True, "openWorldHint": False}
    await result.runtime.shutdown()


async def test_prepare_loadout_changes_what_requests_declare(server: FakeLLMServer, project: Path) -> None:
    errors: list[ExtensionErrorRecord] = []

    def orchestrator(pi: ExtensionAPI) -> None:
        def loadout(view: Any) -> Any:
            names = [tool.name for tool in view.declared]
            return {"descriptions": {"runner": f"Runs one of: {', '.join(names)}"}, "hiddenDeclarations": ["helper"]}

        @pi.tool(name="runner", description="Runs tools", parameters=ECHO_SCHEMA, prepare_loadout=loadout)
        async def run(*_args: Any) -> Any:
            return "ran"

        @pi.tool(name="helper", description="Helps", parameters=ECHO_SCHEMA)
        async def helper(*_args: Any) -> Any:
            return "helped"

        def broken(view: Any) -> Any:
            raise RuntimeError("loadout broke")

        @pi.tool(name="broken", description="Broken hook", parameters=ECHO_SCHEMA, prepare_loadout=broken)
        async def broken_tool(*_args: Any) -> Any:
            return "no"

    server.push(ScriptedResponse(steps=[TextStep("ok")]))
    result = await make_session(server, project, extension_factories=[orchestrator])
    result.session.extensions.on_error(errors.append)
    await result.session.prompt("hello")
    declared = {t["function"]["name"]: t["function"]["description"] for t in server.requests[0].json["tools"]}
    assert "helper" not in declared
    assert declared["runner"].startswith("Runs one of: ") and "helper" in declared["runner"]
    assert declared["broken"] == "Broken hook"
    assert "helper" in result.session.get_active_tool_names()  # still active and callable
    assert [(e.event, e.error) for e in errors] == [("prepare_loadout", "loadout broke")]
    await result.runtime.shutdown()


async def test_renderer_registrations_are_kept_for_the_ui(server: FakeLLMServer, project: Path) -> None:
    def entry(entry: Any, options: Any, theme: Any) -> list[str]:
        return ["entry"]

    def shout(markdown: str, context: Any) -> str:
        return markdown.upper()

    def resolver(tool_name: str, next_renderers: Any) -> Any:
        return next_renderers()

    def renderers(pi: ExtensionAPI) -> None:
        pi.register_entry_renderer("bookmark", entry)
        pi.register_markdown_transformer(shout)
        pi.register_tool_renderer(resolver)

    result = await make_session(server, project, extension_factories=[renderers])
    runner = result.session.extensions
    assert runner.entry_renderer("bookmark") is entry
    assert runner.entry_renderer("other") is None
    assert runner.markdown_transformers() == [shout]
    assert runner.tool_renderer_resolvers() == [resolver]
    await result.runtime.shutdown()


async def test_mcp_server_registration(server: FakeLLMServer, project: Path) -> None:
    apis: list[ExtensionAPI] = []
    changes: list[Any] = []
    errors: list[ExtensionErrorRecord] = []

    def registrar(pi: ExtensionAPI) -> None:
        apis.append(pi)
        pi.register_mcp_server("docs", {"url": "http://127.0.0.1:9/mcp"})

    def other(pi: ExtensionAPI) -> None:
        apis.append(pi)
        with pytest.raises(ValueError, match='MCP server "docs" is already registered by extension'):
            pi.register_mcp_server("docs", {"command": "docs-server"})
        with pytest.raises(ValueError, match='needs either "command" \\(stdio\\) or "url"'):
            pi.register_mcp_server("empty", {})
        with pytest.raises(ValueError, match="invalid server name"):
            pi.register_mcp_server("bad name", {"command": "x"})
        pi.on("mcp_servers_change", lambda event: changes.append([s["name"] for s in event.servers]))

    result = await make_session(server, project, extension_factories=[registrar, other])
    result.session.extensions.on_error(errors.append)
    await result.session.bind_extensions(mode="print")
    first, second = apis
    assert [s["name"] for s in second.get_mcp_servers()] == ["docs"]
    second.register_mcp_server("jira", {"command": "jira-mcp"})
    await result.session.wait_for_idle()
    for _ in range(10):
        if changes:
            break
        await asyncio.sleep(0)
    assert changes == [["docs", "jira"]]
    first.unregister_mcp_server("docs")
    for _ in range(10):
        if len(changes) > 1:
            break
        await asyncio.sleep(0)
    assert changes[-1] == ["jira"]
    assert errors == []
    await result.runtime.shutdown()


async def test_unconnected_mcp_servers_are_reported(server: FakeLLMServer, project: Path) -> None:
    errors: list[ExtensionErrorRecord] = []

    def registrar(pi: ExtensionAPI) -> None:
        pi.register_mcp_server("docs", {"url": "http://127.0.0.1:9/mcp"})

    result = await make_session(server, project, extension_factories=[registrar])
    result.session.extensions.on_error(errors.append)
    await result.session.bind_extensions(mode="print")
    assert [(e.event, e.error) for e in errors] == [
        (
            "register_mcp_server",
            'MCP server "docs" is registered, but no loaded extension connects MCP servers; '
            "another extension may have replaced the built-in MCP support",
        )
    ]
    await result.runtime.shutdown()


async def test_with_session_and_stale_pi_after_replacement(server: FakeLLMServer, project: Path) -> None:
    apis: list[ExtensionAPI] = []
    log: list[Any] = []

    def switcher(pi: ExtensionAPI) -> None:
        apis.append(pi)

        @pi.command("fresh")
        async def fresh(args: str, ctx: Any) -> None:
            log.append(("options", sorted(ctx.get_system_prompt_options())[:3]))

            async def then(new_ctx: Any) -> None:
                log.append(("new", type(new_ctx).__name__, new_ctx.session_manager.get_session_file() is None))
                await new_ctx.send_user_message("first words")

            log.append(("result", await ctx.new_session(with_session=then)))

    server.push(ScriptedResponse(steps=[TextStep("welcome")]))
    result = await make_session(server, project, extension_factories=[switcher])
    runtime = result.runtime
    assert await result.session.prompt("/fresh") == "handled"
    await runtime.session.wait_for_idle()
    assert log[0] == ("options", ["appendSystemPrompt", "contextFiles", "customPrompt"])
    assert log[1] == ("new", "ReplacedSessionContext", True)
    assert log[2] == ("result", {"cancelled": False})
    assert request_texts(server.requests[0])[-1] == "user:first words"
    assert runtime.session is not result.session
    with pytest.raises(StaleContextError, match="This extension ctx is stale after session replacement"):
        apis[0].get_active_tools()
    await runtime.shutdown()


async def test_project_trust_accepts_pi_s_result_shape(server: FakeLLMServer, project: Path) -> None:
    from pi_harness.coding.extensions.runner import ExtensionRunner

    def trusting(pi: ExtensionAPI) -> None:
        pi.on("project_trust", lambda event: {"trusted": "undecided"})
        pi.on("project_trust", lambda event: {"trusted": "yes", "remember": False})

    runner = ExtensionRunner()
    await runner.load_factory(trusting, "<trust>")
    assert await runner.emit_project_trust(str(project), []) is True
    Recorder  # noqa: B018 - imported for the other tests' shape


async def test_provider_stream_events_reach_extensions(server: FakeLLMServer, project: Path) -> None:
    seen: list[dict[str, Any]] = []

    def watcher(pi: ExtensionAPI) -> None:
        pi.on("provider_stream_event", lambda event: seen.append(event.to_dict()))

    server.push(ScriptedResponse(steps=[TextStep("streamed words")]))
    result = await make_session(server, project, extension_factories=[watcher])
    await result.session.prompt("hello")
    assert seen, "no provider_stream_event"
    assert {(e["provider"], e["api"], e["model"]) for e in seen} == {("fake", "openai-completions", "fake-model")}
    deltas = [
        choice["delta"].get("content")
        for e in seen
        for choice in e["data"].get("choices", [])
        if isinstance(choice.get("delta"), dict)
    ]
    assert "".join(d for d in deltas if d) == "streamed words"
    await result.runtime.shutdown()


async def test_model_registry_streams_with_the_session_s_credentials(server: FakeLLMServer, project: Path) -> None:
    answers: list[str] = []

    def asker(pi: ExtensionAPI) -> None:
        @pi.command("side")
        async def side(args: str, ctx: Any) -> None:
            context = {"systemPrompt": "Be brief.", "messages": [{"role": "user", "content": args, "timestamp": 0}]}
            message = await ctx.model_registry.stream_simple(ctx.model, context).result()
            answers.append("".join(block["text"] for block in message["content"] if block["type"] == "text"))

    server.push(ScriptedResponse(steps=[TextStep("side answer")]))
    result = await make_session(server, project, extension_factories=[asker])
    assert await result.session.prompt("/side what is 2+2") == "handled"
    assert answers == ["side answer"]
    assert server.requests[0].headers.get("authorization") == "Bearer test-key"
    assert request_texts(server.requests[0])[-1] == "user:what is 2+2"
    assert result.session.get_messages() == []  # a side request: nothing in the transcript
    await result.runtime.shutdown()


async def test_nested_call_record_keeps_pi_s_limits(server: FakeLLMServer, project: Path) -> None:
    """257 calls: one is dropped; 9 KiB of arguments are replaced by their size; a call of a
    nested tool is named after it and recorded on the model-issued call; errors are cut at 500."""

    async def leaf(tool_call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any) -> Any:
        if params.get("fail"):
            raise RuntimeError("x" * 600)
        return ToolResult(f"leaf {tool_call_id}")

    async def middle(tool_call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any) -> Any:
        inner = await ctx.execute_tool("leaf", {})
        return ToolResult(inner["content"][0]["text"])

    async def fan(tool_call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any) -> Any:
        first = await ctx.execute_tool("middle", {})
        big = await ctx.execute_tool("leaf", {"blob": "b" * 9000})
        failed = await ctx.execute_tool("leaf", {"fail": True})
        missing = await ctx.execute_tool("no_such_tool", {})
        for _ in range(253):
            await ctx.execute_tool("leaf", {})
        return ToolResult(
            f"{first['content'][0]['text']} | big ok {not big['isError']} | "
            f"failed {failed['isError']} | missing {missing['isError']}"
        )

    def ext(pi: ExtensionAPI) -> None:
        for name, fn in (("leaf", leaf), ("middle", middle), ("fan", fan)):
            pi.tool(name=name, description=name, parameters={"type": "object"})(fn)

    server.push(ScriptedResponse(steps=[ToolCallStep("fan", {}, id="f1")]), ScriptedResponse(steps=[TextStep("ok")]))
    result = await make_session(server, project, extension_factories=[ext])
    await result.session.prompt("go")
    outer = next(m for m in result.session.get_messages() if m["role"] == "toolResult")
    assert outer["content"][0]["text"] == "leaf f1/1/1 | big ok True | failed True | missing True"
    record = outer["nestedCalls"]
    calls = record["calls"]
    assert len(calls) == 256 and record["complete"] is False
    assert [(c["id"], c["name"]) for c in calls[:3]] == [("f1/1", "middle"), ("f1/1/1", "leaf"), ("f1/2", "leaf")]
    assert "arguments" not in calls[2] and calls[2]["argumentsBytes"] > 9000
    assert calls[3]["status"] == "error" and len(calls[3]["error"]) == 500
    assert calls[4]["name"] == "no_such_tool" and calls[4]["status"] == "error"
    assert all(c["status"] in ("ok", "error") and isinstance(c["durationMs"], int) for c in calls)
    await result.runtime.shutdown()


async def test_nested_results_usage_is_added_to_the_calling_result(server: FakeLLMServer, project: Path) -> None:
    """As Pi: the usage of every nested result is summed into the calling tool's result usage."""
    spent = {"input": 7, "output": 3, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 10,
             "cost": {"input": 0.5, "output": 0.25, "cacheRead": 0, "cacheWrite": 0, "total": 0.75}}  # fmt: skip

    async def priced(tool_call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any) -> Any:
        return {"content": [{"type": "text", "text": "priced"}], "usage": spent}

    async def caller(tool_call_id: str, params: Any, signal: Any, on_update: Any, ctx: Any) -> Any:
        await ctx.execute_tool("priced", {})
        await ctx.execute_tool("priced", {})
        return ToolResult("called twice")

    def ext(pi: ExtensionAPI) -> None:
        for name, fn in (("priced", priced), ("caller", caller)):
            pi.tool(name=name, description=name, parameters={"type": "object"})(fn)

    server.push(ScriptedResponse(steps=[ToolCallStep("caller", {}, id="c1")]), ScriptedResponse(steps=[TextStep("ok")]))
    result = await make_session(server, project, extension_factories=[ext])
    await result.session.prompt("go")
    outer = next(m for m in result.session.get_messages() if m["role"] == "toolResult")
    usage = outer["usage"]
    assert (usage["input"], usage["output"], usage["totalTokens"]) == (14, 6, 20)
    assert usage["cost"]["total"] == 1.5
    await result.runtime.shutdown()
