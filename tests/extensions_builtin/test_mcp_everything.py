"""builtin:mcp against ``@modelcontextprotocol/server-everything`` (Node), side by side with Pi 1.4.0.

``fixtures/pi14_mcp_golden.json`` holds what the reference Pi declared for the same mcp.json
(``fixtures/record_pi14_mcp.py`` records it). The tests skip with a reason when ``node`` or the
package is missing (``cd tests/fixtures/npm && npm install``).
"""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from pi_harness.extensions_builtin.mcp import McpOptions, create_mcp_extension

FIXTURES = Path(__file__).resolve().parent / "fixtures"
sys.path.insert(0, str(FIXTURES))
import record_pi14_mcp  # noqa: E402  # the recorder's mcp.json is the one the golden was made with

GOLDEN = json.loads((FIXTURES / "pi14_mcp_golden.json").read_text())
PI_BUILTIN_TOOLS = {"read", "bash", "edit", "write"}


@pytest.fixture
def node() -> str:
    found = shutil.which("node")
    if found is None:
        pytest.skip("node is not installed")
    if not (record_pi14_mcp.EVERYTHING / "dist" / "index.js").is_file():
        pytest.skip(f"@modelcontextprotocol/server-everything is not installed at {record_pi14_mcp.EVERYTHING}")
    return found


def everything(node: str, **extra: Any) -> dict[str, Any]:
    return {"command": node, "args": [str(record_pi14_mcp.EVERYTHING / "dist" / "index.js"), "stdio"], **extra}


async def eventually(predicate: Any, attempts: int = 400) -> bool:
    for _ in range(attempts):
        if predicate():
            return True
        await asyncio.sleep(0.025)
    return False


async def started(harness: Any, cwd: Path, agent_dir: Path, servers: dict[str, Any], **options: Any) -> Any:
    (agent_dir / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
    h = await harness(create_mcp_extension(McpOptions(**options)), cwd)
    await h.start()
    await h.runner.emit_before_agent_start({"prompt": "go", "systemPrompt": "", "sections": {}})
    return h


async def test_declared_tools_match_pi_for_the_same_mcp_json(
    tmp_path: Path, agent_dir: Path, harness: Any, node: str
) -> None:
    h = await started(harness, tmp_path, agent_dir, record_pi14_mcp.mcp_config(node)["mcpServers"])
    expected = sorted(set(GOLDEN["toolNames"]) - PI_BUILTIN_TOOLS)
    # The first prompt waited for both servers: they have direct tools.
    assert sorted(h.host.get_active_tools()) == expected
    # Hidden tools (get-env, the second server's other tools) are not registered at all.
    assert "mcp__every_thing__get_env" not in h.tools()
    assert not any(name.startswith("mcp__a_server") and "trigger" not in name for name in h.tools())
    for name, schema in GOLDEN["resourceToolParameters"].items():
        assert record_pi14_mcp.without_descriptions(h.tools()[name].parameters) == schema
    await h.shutdown()


async def test_timeout_is_in_seconds_and_progress_resets_it(
    tmp_path: Path, agent_dir: Path, harness: Any, node: str
) -> None:
    # As in the golden: "timeout": 2 (seconds); progress every second keeps a 3 s call alive, and
    # a 3 s call with no progress before its end fails.
    h = await started(harness, tmp_path, agent_dir, record_pi14_mcp.mcp_config(node)["mcpServers"])
    tool = "mcp__every_thing__trigger_long_running_operation"
    updates: list[Any] = []
    done = await h.call(tool, {"duration": 3, "steps": 3}, on_update=updates.append)
    assert done["content"][0]["text"] == GOLDEN["toolResults"][0]["text"]
    assert [u["content"][0]["text"] for u in updates] == ["Progress 1/3", "Progress 2/3", "Progress 3/3"]
    assert GOLDEN["toolResults"][1]["isError"] is True
    with pytest.raises(Exception, match=r"timed out after 2 s without progress"):
        await h.call(tool, {"duration": 3, "steps": 1})
    await h.shutdown()


async def test_roots_are_the_session_directory(tmp_path: Path, agent_dir: Path, harness: Any, node: str) -> None:
    project = tmp_path / "my project"
    project.mkdir()
    h = await started(harness, project, agent_dir, {"ev": everything(node, exposure="direct")})
    text = (await h.call("mcp__ev__get_roots_list", {}))["content"][0]["text"]
    assert "Current MCP Roots (1 total)" in text
    assert f"1. my project\n   URI: {project.as_uri()}" in text
    await h.shutdown()


async def test_resource_tools_list_page_and_read(tmp_path: Path, agent_dir: Path, harness: Any, node: str) -> None:
    h = await started(harness, tmp_path, agent_dir, {"ev": everything(node, exposure="direct")})
    first = await h.call("list_mcp_resources", {"server": "ev"})
    page = first["structuredContent"]
    assert json.loads(first["content"][0]["text"]) == page
    assert page["server"] == "ev" and page["resources"]
    assert all(r["server"] == "ev" and r["uri"] and r["name"] for r in page["resources"])
    uri = next(r["uri"] for r in page["resources"] if r.get("mimeType", "").startswith("text/"))
    if "nextCursor" in page:
        second = await h.call("list_mcp_resources", {"server": "ev", "cursor": page["nextCursor"]})
        assert {r["uri"] for r in second["structuredContent"]["resources"]}.isdisjoint(
            {r["uri"] for r in page["resources"]}
        )
    every = (await h.call("list_mcp_resources", {}))["structuredContent"]
    assert "server" not in every and len(every["resources"]) >= len(page["resources"])

    read = await h.call("read_mcp_resource", {"server": "ev", "uri": uri})
    assert read["structuredContent"]["server"] == "ev" and read["structuredContent"]["uri"] == uri
    assert read["content"][0]["type"] == "text" and read["content"][0]["text"]

    templates = (await h.call("list_mcp_resource_templates", {"server": "ev"}))["structuredContent"]
    assert templates["resourceTemplates"] and all("uriTemplate" in t for t in templates["resourceTemplates"])

    with pytest.raises(Exception, match=r'MCP server "nope" has no resources\. Servers with resources: ev'):
        await h.call("read_mcp_resource", {"server": "nope", "uri": uri})
    with pytest.raises(Exception, match="cursor can only be used when a server is specified"):
        await h.call("list_mcp_resources", {"cursor": "x"})
    await h.shutdown()


async def test_codemode_and_deferred_tools_are_registered_but_inactive(
    tmp_path: Path, agent_dir: Path, harness: Any, node: str, recording_ui: Any
) -> None:
    servers = {"ev": everything(node), "lazy": everything(node, exposure="deferred", description="Test bench")}
    (agent_dir / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
    h = await harness(create_mcp_extension(), tmp_path, ui=recording_ui)
    await h.start()
    assert any("registered but inactive" in text for kind, text in recording_ui.notifications if kind == "warning")
    assert await eventually(lambda: "mcp__ev__echo" in h.tools() and "mcp__lazy__echo" in h.tools())
    assert await eventually(lambda: "read_mcp_resource" in h.tools())
    active = h.host.get_active_tools()
    assert not any(name.startswith("mcp__") or "mcp_resource" in name for name in active)
    # Still callable when a user switches them on.
    assert (await h.call("mcp__ev__echo", {"message": "hi"}))["content"][0]["text"] == "Echo: hi"
    await h.shutdown()


async def test_servers_section_uses_description_or_instructions(tmp_path: Path, agent_dir: Path, node: str) -> None:
    from pi_harness.extensions_builtin.mcp.config import load_mcp_config
    from pi_harness.extensions_builtin.mcp.log import McpLog
    from pi_harness.extensions_builtin.mcp.manager import McpManager
    from pi_harness.extensions_builtin.mcp.policy import ConnectionSettings
    from pi_harness.extensions_builtin.mcp.prompt_section import servers_section

    servers = {
        "ev": everything(node),
        "lazy-one": everything(node, exposure="deferred", description="Test bench\nsecond line"),
        "direct": everything(node, exposure="direct"),
    }
    (agent_dir / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
    config = load_mcp_config(agent_dir, tmp_path, project_trusted=False)
    manager = McpManager(config, cwd=str(tmp_path), log=McpLog(agent_dir / "mcp.log"), settings=ConnectionSettings())
    manager.start()
    try:
        await manager.wait_all(60)
        connection = manager.connections["ev"]
        assert connection.status == "connected" and connection.instructions
        section = servers_section(list(manager.connections.values()))
    finally:
        await manager.close()
    assert section is not None
    lines = section.splitlines()
    summary = connection.instructions.split("\n", 1)[0].strip()
    assert lines[1:] == [f"- mcp__ev (codemode): {summary}", "- mcp__lazy_one (tool_search): Test bench"]


async def test_tool_list_changes_add_and_withdraw_tools(
    tmp_path: Path, agent_dir: Path, harness: Any, stdio_entry: Any
) -> None:
    h = await started(harness, tmp_path, agent_dir, {"dyn": stdio_entry("--dynamic")})
    assert "mcp__dyn__echo" in h.host.get_active_tools()
    said = await h.call("mcp__dyn__swap", {"remove": "echo", "add": "fresh"})
    assert said["content"][0]["text"] == "removed echo, added fresh"
    assert await eventually(lambda: "mcp__dyn__fresh" in h.tools())
    assert (await h.call("mcp__dyn__fresh", {"text": "x"}))["content"][0]["text"] == "fresh: x"
    active = h.host.get_active_tools()
    assert "mcp__dyn__fresh" in active and "mcp__dyn__echo" not in active
    with pytest.raises(RuntimeError, match='"mcp__dyn__echo" is no longer available'):
        await h.call("mcp__dyn__echo", {"text": "x"})
    assert "[dyn] tool list changed" in (agent_dir / "mcp.log").read_text()
    await h.shutdown()


@pytest.fixture
def everything_http(node: str, tmp_path: Path) -> Any:
    """server-everything's streamable-HTTP transport on a free loopback port."""
    import socket
    import subprocess
    import time

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    log = (tmp_path / "http-server.log").open("w")
    process = subprocess.Popen(
        [node, str(record_pi14_mcp.EVERYTHING / "dist" / "index.js"), "streamableHttp"],
        env={"PATH": "/usr/bin:/bin", "PORT": str(port), "HOME": str(tmp_path)},
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    for _ in range(400):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.025)
    yield f"http://127.0.0.1:{port}/mcp"
    process.terminate()
    try:
        process.wait(5)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    log.close()


async def test_streamable_http_transport_of_a_third_party_server(
    tmp_path: Path, agent_dir: Path, harness: Any, everything_http: str
) -> None:
    h = await started(harness, tmp_path, agent_dir, {"web": {"url": everything_http, "exposure": "direct"}})
    assert "mcp__web__echo" in h.host.get_active_tools() and "read_mcp_resource" in h.host.get_active_tools()
    assert (await h.call("mcp__web__echo", {"message": "over http"}))["content"][0]["text"] == "Echo: over http"
    summed = await h.call("mcp__web__get_sum", {"a": 2, "b": 3})
    assert "5" in summed["content"][0]["text"]
    roots = (await h.call("mcp__web__get_roots_list", {}))["content"][0]["text"]
    assert tmp_path.as_uri() in roots
    await h.shutdown()
