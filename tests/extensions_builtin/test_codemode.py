"""builtin:codemode in-process: the real sandbox with host callbacks, worker slots, declarations,
and a session where an MCP server with ``codemode`` exposure turns the tool on."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from pi_harness.ai.abort import AbortController
from pi_harness.ai.json_values import JsonObject
from pi_harness.coding.config.settings import SettingsManager
from pi_harness.coding.sdk import create_agent_session
from pi_harness.coding.session_store import SessionManager
from pi_harness.extensions_builtin import builtin_extensions
from pi_harness.extensions_builtin.codemode.declarations import identifier, sample, schema_type
from pi_harness.extensions_builtin.codemode.description import describe
from pi_harness.extensions_builtin.codemode.executor import Run, execute_script
from pi_harness.extensions_builtin.codemode.pool import POOL
from pi_harness.extensions_builtin.codemode.source import OptionsError, parse_source
from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep, ToolCallStep

pytest.importorskip("quickjs")
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def text_of(content: list[JsonObject]) -> str:
    return "\n".join(str(item.get("text", "")) for item in content if item.get("type") == "text")


def make_run(handler: Any = None, tools: tuple[str, ...] = ("echo",)) -> Run:
    async def call(op: str, _payload: str, args: JsonObject) -> tuple[bool, object]:
        if handler is not None:
            return await handler(op, args)
        return True, args

    return Run(tools=[(identifier(t), t) for t in tools], catalog=[], store={}, call=call)


async def test_tool_calls_run_concurrently_in_the_host() -> None:
    both_started = asyncio.Event()
    started: list[object] = []

    async def handler(_op: str, args: JsonObject) -> tuple[bool, object]:
        started.append(args["args"])
        if len(started) == 2:
            both_started.set()
        await asyncio.wait_for(both_started.wait(), 10)  # a serial caller would never get here
        return True, {"got": args["args"]}

    code = "const r = await Promise.all([tools.echo({n: 1}), tools.echo({n: 2})]); return r.map((x) => x.got.n);"
    outcome = await execute_script(code, make_run(handler), None)
    assert outcome.ok, text_of(outcome.content)
    assert "[1,2]" in text_of(outcome.content)


async def test_a_rejected_tool_call_is_an_error_the_script_can_catch() -> None:
    async def handler(_op: str, _args: JsonObject) -> tuple[bool, object]:
        return False, "the tool broke"

    code = "try { await tools.echo({}); } catch (e) { return 'caught: ' + e.message; }"
    outcome = await execute_script(code, make_run(handler), None)
    assert outcome.ok and "caught: the tool broke" in text_of(outcome.content)


async def test_mangled_identifiers_reach_the_tool() -> None:
    seen: list[object] = []

    async def handler(_op: str, args: JsonObject) -> tuple[bool, object]:
        seen.append(args["name"])
        return True, "ok"

    outcome = await execute_script(
        "return await tools.mcp__dev_radius__search({});", make_run(handler, ("mcp__dev-radius__search",)), None
    )
    assert outcome.ok and seen == ["mcp__dev-radius__search"]


async def test_abort_kills_a_script_without_timeout() -> None:
    controller = AbortController()
    task = asyncio.ensure_future(execute_script("while (true) {}", make_run(), controller.signal))
    await asyncio.sleep(0.3)
    controller.abort()
    outcome = await asyncio.wait_for(task, 10)
    assert not outcome.ok and "Script aborted" in text_of(outcome.content)
    assert POOL.busy == 0  # the slot came back once the worker was gone


async def test_scripts_wait_for_a_free_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PI_CODEMODE_MAX_WORKERS", "1")
    release = asyncio.Event()

    async def handler(_op: str, _args: JsonObject) -> tuple[bool, object]:
        await release.wait()
        return True, "first"

    first = asyncio.ensure_future(execute_script("return await tools.echo({});", make_run(handler), None))
    for _ in range(400):
        if POOL.busy == 1:
            break
        await asyncio.sleep(0.01)
    # No worker within its deadline: fails without running.
    blocked = await execute_script('// @options: {"timeout_ms": 200}\nreturn "ran";', make_run(), None)
    assert not blocked.ok and "waiting for a free codemode worker" in text_of(blocked.content)
    assert "The script did not start." in text_of(blocked.content)
    second = asyncio.ensure_future(execute_script("return 'second';", make_run(), None))
    release.set()
    assert (await asyncio.wait_for(first, 10)).ok
    outcome = await asyncio.wait_for(second, 10)
    assert outcome.ok and "second" in text_of(outcome.content)


def test_options_line() -> None:
    source = parse_source('// @options: {"max_output_tokens": 50, "timeout_ms": 1000}\nreturn 1;')
    assert (source.max_output_tokens, source.timeout_ms, source.code) == (50, 1000, "return 1;")
    assert parse_source("return 1;").max_output_tokens == 10000
    with pytest.raises(OptionsError):
        parse_source('return 1;\n// @options: {"timeout_ms": 5}')
    with pytest.raises(OptionsError):
        parse_source('// @options: {"timeout_ms": -1}')


def test_identifiers_and_declarations() -> None:
    assert identifier("mcp__dev-radius__search") == "mcp__dev_radius__search"
    assert identifier("9lives") == "_lives" and identifier("") == "_"
    schema = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "File to read"},
            "limit": {"type": "integer"},
            "mode": {"enum": ["a", "b"]},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["path"],
    }
    rendered = schema_type(schema)
    assert "// File to read" in rendered and "path: string;" in rendered and "limit?: number;" in rendered
    assert 'mode?: "a" | "b";' in rendered and "tags?: Array<string>;" in rendered
    assert schema_type({"type": "object", "properties": {"a": {"type": "string"}}}) == "{ a?: string; }"
    text = sample("my-tool", "Does things.", {"type": "object", "properties": {}}, {"type": "string"})
    assert "declare const tools: { my_tool(args: Record<string, unknown>): Promise<string>; };" in text


def test_description_lists_tools_within_the_budget() -> None:
    tools = [
        {"name": f"tool_{i}", "description": "x" * 400, "parameters": {"type": "object", "properties": {}}}
        for i in range(10)
    ]
    everything = describe(tools, None)
    assert all(f"### `tool_{i}`" in everything for i in range(10))
    some = describe(tools, 400)
    assert 0 < sum(f"### `tool_{i}`" in some for i in range(10)) < 10
    assert "Nested tools:" not in describe([], 3000)


@pytest.fixture
def llm() -> Any:
    with FakeLLMServer(models=["m"]) as server:
        yield server


async def test_an_mcp_server_with_codemode_exposure_turns_codemode_on(tmp_path: Path, llm: FakeLLMServer) -> None:
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir()
    servers = {"fx": {"command": sys.executable, "args": [str(FIXTURES / "mcp_stdio_server.py")]}}
    (agent_dir / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
    code = "const r = await tools.mcp__fx__echo({text: 'via codemode'}); store('seen', r.content[0].text); return r.content[0].text;"
    llm.push(
        ScriptedResponse(steps=[ToolCallStep("codemode", {"code": code}, id="c1")]),
        ScriptedResponse(steps=[TextStep("done")]),
    )
    result = await create_agent_session(
        cwd=str(tmp_path),
        agent_dir=agent_dir,
        settings_manager=SettingsManager.in_memory({}),
        session_manager=SessionManager.in_memory(str(tmp_path)),
        model=llm.model("openai-completions"),
        api_keys={"fake": "k"},
        extension_paths=["builtin:mcp", "builtin:codemode"],
        builtin_extensions=builtin_extensions(agent_dir=agent_dir),
    )
    session = result.session
    assert "codemode" not in session.get_active_tool_names()  # registered inactive
    await session.bind_extensions(ui=None, has_ui=False, mode="print")
    for _ in range(800):
        if "codemode" in session.get_active_tool_names():
            break
        await asyncio.sleep(0.025)
    active = session.get_active_tool_names()
    assert "codemode" in active and not any(name.startswith("mcp__") for name in active)
    await session.prompt("go")
    tool_message = llm.requests[-1].json["messages"][-1]
    assert tool_message["role"] == "tool" and "echo: via codemode" in json.dumps(tool_message)
    stores = [e for e in session.session_manager.get_entries() if e.get("customType") == "codemode-store"]
    assert [e.get("data") for e in stores] == [{"set": {"seen": "echo: via codemode"}, "delete": []}]
    await result.runtime.shutdown()


async def test_an_extension_codemode_replaces_the_builtin(tmp_path: Path, llm: FakeLLMServer) -> None:
    extension = tmp_path / "my_codemode.py"
    extension.write_text(
        "from pi_harness.coding.extensions import ToolDefinition\n\n"
        "def extension(pi):\n"
        "    async def run(call_id, params, signal, on_update, ctx=None):\n"
        "        return {'content': [{'type': 'text', 'text': 'mine'}]}\n"
        "    pi.register_tool(ToolDefinition(name='codemode', description='my own', "
        "parameters={'type': 'object', 'properties': {}}, execute=run))\n"
    )
    result = await create_agent_session(
        cwd=str(tmp_path),
        agent_dir=tmp_path / "agent",
        settings_manager=SettingsManager.in_memory({}),
        session_manager=SessionManager.in_memory(str(tmp_path)),
        model=llm.model("openai-completions"),
        api_keys={"fake": "k"},
        extension_paths=["builtin:codemode", str(extension)],  # loaded first, yields all the same
        builtin_extensions=builtin_extensions(agent_dir=tmp_path / "agent"),
    )
    session = result.session
    await session.bind_extensions(ui=None, has_ui=False, mode="print")
    tools = {str(t["name"]): t for t in session.get_all_tools()}
    assert tools["codemode"]["description"] == "my own"
    assert not [d for d in result.diagnostics if "conflict" in str(d).lower()]
    await result.runtime.shutdown()


PNG_1PX = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="


async def test_images_exit_and_the_failure_summary() -> None:
    shown = await execute_script(
        f"image('data:image/png;base64,{PNG_1PX}'); text('after'); exit(); text('never')", make_run(), None
    )
    assert shown.ok
    kinds = [item["type"] for item in shown.content]
    assert "image" in kinds and "never" not in text_of(shown.content)
    saved = next(item["text"] for item in shown.content if str(item.get("text", "")).startswith("Image saved to "))
    assert Path(str(saved).removeprefix("Image saved to ")).read_bytes().startswith(b"\x89PNG")
    failed = await execute_script("await tools.echo({}); null.x;", make_run(), None)
    text = text_of(failed.content)
    assert text.startswith("Script failed\nWall time ") and "TypeError" in text
    assert "Tool calls made before the failure (they are not undone): echo (ok)" in text
    bad = await execute_script("image('https://example.com/a.png')", make_run(), None)
    assert not bad.ok and "image() expects" in text_of(bad.content)


async def test_store_limits_and_deletes() -> None:
    run = make_run()
    run.store = {"old": 1, "gone": 2}
    outcome = await execute_script(
        "store('gone', undefined); store('n', load('old') + 1); return load('n');", run, None
    )
    assert outcome.ok and outcome.writes == {"set": {"n": 2}, "delete": ["gone"]}
    big = await execute_script("store('k', 'x'.repeat(262145));", make_run(), None)
    assert not big.ok and "262144" in text_of(big.content) and big.writes is None


async def test_a_missing_quickjs_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, harness: Any) -> None:
    from pi_harness.extensions_builtin.codemode import create_codemode_extension
    from pi_harness.optional_deps import MissingDependencyError

    h = await harness(create_codemode_extension(), tmp_path)
    monkeypatch.setitem(sys.modules, "quickjs", None)
    with pytest.raises(MissingDependencyError, match=r"pi-harness\[codemode\]"):
        await h.call("codemode", {"code": "return 1"})


async def test_auto_enable_codemode_false_leaves_codemode_off(tmp_path: Path, llm: FakeLLMServer) -> None:
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir()
    servers = {"fx": {"command": sys.executable, "args": [str(FIXTURES / "mcp_stdio_server.py")]}}
    (agent_dir / "mcp.json").write_text(json.dumps({"autoEnableCodemode": False, "mcpServers": servers}))
    result = await create_agent_session(
        cwd=str(tmp_path),
        agent_dir=agent_dir,
        settings_manager=SettingsManager.in_memory({}),
        session_manager=SessionManager.in_memory(str(tmp_path)),
        model=llm.model("openai-completions"),
        api_keys={"fake": "k"},
        extension_paths=["builtin:mcp", "builtin:codemode"],
        builtin_extensions=builtin_extensions(agent_dir=agent_dir),
    )
    session = result.session
    await session.bind_extensions(ui=None, has_ui=False, mode="print")
    for _ in range(800):
        if any(t["name"] == "mcp__fx__echo" for t in session.get_all_tools()):
            break
        await asyncio.sleep(0.025)
    assert any(t["name"] == "mcp__fx__echo" for t in session.get_all_tools())  # the server connected
    assert "codemode" not in session.get_active_tool_names()
    await result.runtime.shutdown()


def test_describe_namespace_reports_the_servers_description_and_instructions() -> None:
    from pi_harness.extensions_builtin.codemode.discovery import describe_namespace

    group = {
        "name": "mcp__dev_radius",
        "aliases": ["dev-radius"],
        "description": "Radius tools.",
        "instructions": "Call ping first.",
    }
    tools = [
        {"name": "mcp__dev_radius__ping", "namespace": group},
        {"name": "mcp__dev_radius__get-user", "namespace": group},
        {"name": "read"},
    ]
    expected = {
        "name": "mcp__dev_radius",
        "description": "Radius tools.",
        "instructions": "Call ping first.",
        "tools": ["mcp__dev_radius__ping", "mcp__dev_radius__get_user"],
    }
    for query in ("mcp__dev-radius", "mcp__dev_radius", "dev-radius", "dev_radius"):
        assert describe_namespace(tools, query) == expected
    assert describe_namespace(tools, "nope") is None
