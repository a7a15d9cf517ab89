"""``tool_search`` with the installed ``pi``: 200 deferred MCP tools from a real stdio server.

The first request declares the built-ins, the one direct MCP tool and ``tool_search``, none of the
deferred tools. The scripted model searches, and the next request of the same run declares the
match, which the model calls and which runs on the server. The session file records the change as
a ``system`` message patch with ``toolsAdded`` only; ``--continue`` and ``--fork`` declare the
loaded tool again, a fresh session does not.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from _pi_env import PiEnv

from pi_harness.testing.fake_llm import ScriptedResponse, TextStep, ToolCallStep

SERVER = Path(__file__).resolve().parents[1] / "extensions_builtin" / "fixtures" / "mcp_many_tools_server.py"
FOUND = "mcp__office__record_calendar_9"


def declared(body: Any) -> list[str]:
    return [tool["function"]["name"] for tool in body.get("tools", [])]


def tool_results(body: Any) -> list[str]:
    return [str(m.get("content")) for m in body.get("messages", []) if m.get("role") == "tool"]


def system_messages(session: Path) -> list[dict[str, Any]]:
    entries = [json.loads(line) for line in session.read_text().splitlines() if line.strip()]
    return [e["message"] for e in entries if e.get("type") == "message" and e["message"].get("role") == "system"]


def configure(pi_env: PiEnv) -> None:
    entry = {
        "command": sys.executable,
        "args": [str(SERVER)],
        "exposure": "deferred",
        "toolExposure": {"lookup_time": "direct"},
    }
    (pi_env.agent_dir / "mcp.json").write_text(json.dumps({"mcpServers": {"office": entry}}))


def search_then_call(pi_env: PiEnv) -> None:
    pi_env.server.push(
        ScriptedResponse(steps=[ToolCallStep("tool_search", {"query": "calendar record variant 9", "limit": 1})]),
        ScriptedResponse(steps=[ToolCallStep(FOUND, {"text": "standup"})]),
        ScriptedResponse(steps=[TextStep("stored")]),
    )


def test_search_loads_a_deferred_tool_for_the_same_run(pi_env: PiEnv) -> None:
    configure(pi_env)
    search_then_call(pi_env)
    result = pi_env.run("-p", "store a calendar entry")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "stored"
    first, second, third = (request.body for request in pi_env.server.requests)
    names = declared(first)
    assert "tool_search" in names and "mcp__office__lookup_time" in names
    assert not any(name.startswith("mcp__office__record_") for name in names)
    assert len(names) < 20  # not 200
    search = first["tools"][names.index("tool_search")]["function"]
    assert sorted(search["parameters"]["properties"]) == ["limit", "query"]
    assert search["parameters"]["required"] == ["query"]
    assert "mcp_servers" in first["messages"][0]["content"]  # the server is listed for tool_search
    # The search result in Pi's format; the next request of the run declares the match.
    assert tool_results(second)[0] == (
        f"Loaded 1 tool. They are available from your next call:\n- {FOUND}: Store one calendar record (variant 9)."
    )
    assert declared(second) == [*names, FOUND]
    assert tool_results(third)[-1] == "record_calendar_9: standup"
    # The transcript: the first declaration, then a patch that only adds the loaded tool.
    [session] = pi_env.sessions()
    full, patch = system_messages(session)
    assert "mcp__office__record_calendar_9" not in [t["name"] for t in full["toolsAdded"]]
    assert [t["name"] for t in patch["toolsAdded"]] == [FOUND]
    assert "sections" not in patch and "toolsRemoved" not in patch
    # The session went on with the tool loaded: --continue declares it from the first request.
    pi_env.server.requests.clear()
    pi_env.server.push(ScriptedResponse(steps=[TextStep("again")]))
    result = pi_env.run("-p", "--continue", "one more")
    assert result.returncode == 0, result.stderr
    assert FOUND in declared(pi_env.server.requests[0].body)
    # A fork of the session too.
    pi_env.server.requests.clear()
    pi_env.server.push(ScriptedResponse(steps=[TextStep("forked")]))
    result = pi_env.run("-p", "--fork", str(session), "in the fork")
    assert result.returncode == 0, result.stderr
    assert FOUND in declared(pi_env.server.requests[0].body)
    # A new session starts without it.
    pi_env.server.requests.clear()
    pi_env.server.push(ScriptedResponse(steps=[TextStep("fresh")]))
    result = pi_env.run("-p", "fresh start")
    assert result.returncode == 0, result.stderr
    assert FOUND not in declared(pi_env.server.requests[0].body)


def test_search_without_a_match_loads_nothing(pi_env: PiEnv) -> None:
    configure(pi_env)
    pi_env.server.push(
        ScriptedResponse(steps=[ToolCallStep("tool_search", {"query": "spaceship telemetry"})]),
        ScriptedResponse(steps=[TextStep("none")]),
    )
    result = pi_env.run("-p", "find something")
    assert result.returncode == 0, result.stderr
    first, second = (request.body for request in pi_env.server.requests)
    assert tool_results(second) == ["No matching tools found."]
    assert declared(second) == declared(first)


def test_disabling_the_builtin_removes_tool_search(pi_env: PiEnv) -> None:
    configure(pi_env)
    pi_env.configure(settings={"extensions": ["-builtin:tool-search"]})
    pi_env.server.push(ScriptedResponse(steps=[TextStep("ok")]))
    result = pi_env.run("-p", "hi")
    assert result.returncode == 0, result.stderr
    names = declared(pi_env.server.requests[0].body)
    assert "tool_search" not in names and "mcp__office__lookup_time" in names


GOLDEN = SERVER.parent / "pi14_tool_search_golden.json"


def without_descriptions(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: without_descriptions(v) for k, v in schema.items() if k != "description"}
    if isinstance(schema, list):
        return [without_descriptions(v) for v in schema]
    return schema


def test_same_requests_and_records_as_pi(pi_env: PiEnv) -> None:
    """The reference's run of the same script (``record_pi14_tool_search.py``), fact by fact."""
    golden = json.loads(GOLDEN.read_text())
    configure(pi_env)
    search_then_call(pi_env)
    result = pi_env.run("-p", "store a calendar entry")
    assert result.returncode == 0, result.stderr
    bodies = [request.body for request in pi_env.server.requests]
    assert [declared(body) for body in bodies] == golden["requestToolNames"][:3]
    search = next(t for t in bodies[0]["tools"] if t["function"]["name"] == "tool_search")
    assert without_descriptions(search["function"]["parameters"]) == golden["toolSearchParameters"]
    assert tool_results(bodies[1])[0] == golden["toolResults"][0]["text"]
    [session] = pi_env.sessions()
    ours = system_messages(session)
    theirs = golden["systemMessages"]
    assert sorted(t["name"] for t in ours[0]["toolsAdded"]) == theirs[0]["toolsAdded"]
    assert "mcp_servers" in ours[0]["sections"] and "mcp_servers" in theirs[0]["sections"]
    assert list(ours[1]) == theirs[1]["keys"]
    assert [t["name"] for t in ours[1]["toolsAdded"]] == theirs[1]["toolsAdded"]


@pytest.mark.parametrize("how", ["--tools", "defaultTools"])
def test_naming_tool_search_activates_it_for_codemode_servers(pi_env: PiEnv, how: str) -> None:
    entry = {"command": sys.executable, "args": [str(SERVER), "--count", "20"]}  # codemode, the default
    # Without the codemode tool (which such a server would switch on), so only tool_search reaches them.
    config = {"autoEnableCodemode": False, "mcpServers": {"office": entry}}
    (pi_env.agent_dir / "mcp.json").write_text(json.dumps(config))
    pi_env.server.push(
        ScriptedResponse(steps=[ToolCallStep("tool_search", {"query": "time zone"})]),
        ScriptedResponse(steps=[TextStep("ok")]),
    )
    if how == "--tools":
        result = pi_env.run("-p", "--tools", "read,tool_search", "what time is it")
    else:
        pi_env.configure(settings={"defaultTools": ["read", "tool_search"]})
        result = pi_env.run("-p", "what time is it")
    assert result.returncode == 0, result.stderr
    first, second = (request.body for request in pi_env.server.requests)
    assert declared(first) == ["read", "tool_search"], result.stderr
    assert declared(second) == ["read", "tool_search", "mcp__office__lookup_time"]


REPLACEMENT = """
from pi_harness.coding.extensions import ToolDefinition


def extension(pi):
    async def execute(_id, params, _signal, _on_update, _ctx=None):
        pi.set_active_tools([*pi.get_active_tools(), "mcp__office__record_invoice_0"])
        return "my own search for " + params["query"]

    pi.register_tool(
        ToolDefinition(
            name="tool_search",
            description="Another search.",
            parameters={"type": "object", "properties": {"query": {"type": "string"}}},
            execute=execute,
            exposure="model-only",
            default_active=False,
            reaches_tools=lambda _input: "all",
        )
    )
"""


def test_an_extension_tool_search_replaces_the_builtin(pi_env: PiEnv, tmp_path: Path) -> None:
    configure(pi_env)
    extension = tmp_path / "my_search.py"
    extension.write_text(REPLACEMENT)
    pi_env.server.push(
        ScriptedResponse(steps=[ToolCallStep("tool_search", {"query": "bills"})]),
        ScriptedResponse(steps=[TextStep("ok")]),
    )
    result = pi_env.run("-p", "-e", str(extension), "find bills")
    assert result.returncode == 0, result.stderr
    first, second = (request.body for request in pi_env.server.requests)
    search = next(t for t in first["tools"] if t["function"]["name"] == "tool_search")
    assert search["function"]["description"] == "Another search."  # activated by builtin:mcp all the same
    assert tool_results(second) == ["my own search for bills"]
    assert declared(second)[-1] == "mcp__office__record_invoice_0"


def test_codemode_servers_without_an_active_reaching_tool_are_reported(pi_env: PiEnv) -> None:
    entry = {"command": sys.executable, "args": [str(SERVER), "--count", "5"]}  # codemode, the default
    (pi_env.agent_dir / "mcp.json").write_text(json.dumps({"mcpServers": {"office": entry}}))
    pi_env.server.push(ScriptedResponse(steps=[TextStep("ok")]))
    result = pi_env.run("-p", "hi")
    assert result.returncode == 0, result.stderr
    assert "tool_search" not in declared(pi_env.server.requests[0].body)  # only deferred servers switch it on
    assert "tools registered inactive: office" in (pi_env.agent_dir / "mcp.log").read_text()


def test_allowlist_keeps_deferred_tools_for_search_but_not_direct_ones(pi_env: PiEnv) -> None:
    """``--tools read,tool_search``: as the reference Pi, the direct MCP tool is not declared, and a
    deferred one the allowlist does not name is still loaded by the search and runs."""
    configure(pi_env)
    search_then_call(pi_env)
    result = pi_env.run("--tools", "read,tool_search", "-p", "store a calendar entry")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "stored"
    first, second, third = (request.body for request in pi_env.server.requests)
    assert declared(first) == ["read", "tool_search"]
    assert declared(second) == ["read", "tool_search", FOUND]
    assert tool_results(third)[-1] == "record_calendar_9: standup"
