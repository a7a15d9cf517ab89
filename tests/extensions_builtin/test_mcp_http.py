"""The MCP client against a real streamable-HTTP server (SDK server under uvicorn, in a subprocess)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pi_harness.ai.abort import AbortController
from pi_harness.extensions_builtin.mcp import McpOptions, create_mcp_extension

FAST_RETRY = McpOptions(retry_delays_s=(0.01, 0.01))


def write_config(agent_dir: Path, servers: dict[str, Any]) -> None:
    """Servers with ``direct`` exposure, which the first prompt waits for."""
    direct = {name: {"exposure": "direct", **entry} for name, entry in servers.items()}
    (agent_dir / "mcp.json").write_text(json.dumps({"mcpServers": direct}))


def server_tools(h: Any) -> list[str]:
    return sorted(name for name in h.tools() if name.startswith("mcp__"))


async def started(harness: Any, tmp_path: Path, options: McpOptions = FAST_RETRY) -> Any:
    h = await harness(create_mcp_extension(options), tmp_path)
    await h.start()
    await h.runner.emit_before_agent_start({"prompt": "", "systemPrompt": ""})
    return h


async def test_http_server_tools_and_headers_with_env_expansion(
    tmp_path: Path, agent_dir: Path, harness: Any, mcp_http_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = mcp_http_server()
    monkeypatch.setenv("FIXTURE_TOKEN", "s3cret")
    write_config(agent_dir, {"web": {"url": server.url, "headers": {"X-Fixture-Token": "${FIXTURE_TOKEN}"}}})
    h = await started(harness, tmp_path)
    assert server_tools(h) == ["mcp__web__echo", "mcp__web__fail", "mcp__web__picture", "mcp__web__slow"]
    result = await h.call("mcp__web__echo", {"text": "over http"})
    assert result["content"] == [{"type": "text", "text": "echo: over http"}]
    assert server.stats()["token"] == "s3cret"
    await h.shutdown()
    await h.shutdown()


async def test_transient_503_on_list_is_retried(
    tmp_path: Path, agent_dir: Path, harness: Any, mcp_http_server: Any
) -> None:
    server = mcp_http_server("--fail-method", "tools/list:2")
    write_config(agent_dir, {"web": {"url": server.url}})
    h = await started(harness, tmp_path)
    assert "mcp__web__echo" in h.tools()
    assert server.calls("tools/list") == 3  # two 503 answers, then success
    log = (agent_dir / "mcp.log").read_text()
    assert "[web] HTTP 503 for tools/list; retry 1" in log
    assert "[web] HTTP 503 for tools/list; retry 2" in log
    await h.shutdown()


async def test_three_503_answers_exhaust_the_retries(
    tmp_path: Path, agent_dir: Path, harness: Any, mcp_http_server: Any
) -> None:
    server = mcp_http_server("--fail-method", "tools/list:3")
    write_config(agent_dir, {"web": {"url": server.url}})
    h = await started(harness, tmp_path)
    assert server_tools(h) == []
    assert server.calls("tools/list") == 3
    await h.shutdown()


async def test_tool_call_503_is_not_retried(
    tmp_path: Path, agent_dir: Path, harness: Any, mcp_http_server: Any
) -> None:
    server = mcp_http_server("--fail-tool", "echo")
    write_config(agent_dir, {"web": {"url": server.url}})
    h = await started(harness, tmp_path)
    with pytest.raises(Exception, match=r'MCP server "web" returned an error for echo: .*\(HTTP 503 for tools/call\)'):
        await h.call("mcp__web__echo", {"text": "once"})
    assert server.calls("tools/call") == 1
    # Other tools still work on the same connection.
    assert (await h.call("mcp__web__slow", {"steps": 1, "delay_ms": 1}))["content"][0]["text"] == "done after 1 steps"
    await h.shutdown()


async def test_abort_sends_cancellation_to_the_server(
    tmp_path: Path, agent_dir: Path, harness: Any, mcp_http_server: Any
) -> None:
    server = mcp_http_server()
    write_config(agent_dir, {"web": {"url": server.url}})
    h = await started(harness, tmp_path)
    controller = AbortController()
    with pytest.raises(Exception, match="aborted"):
        await h.call(
            "mcp__web__slow",
            {"steps": 50, "delay_ms": 100},
            signal=controller.signal,
            on_update=lambda _: controller.abort(),
        )
    await h.call("mcp__web__echo", {"text": "sync point"})
    assert server.calls("notifications/cancelled") == 1
    assert server.calls("tools/call") == 2
    await h.shutdown()


async def test_network_errors_are_retried_twice(tmp_path: Path, agent_dir: Path, harness: Any) -> None:
    import socket

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    write_config(agent_dir, {"down": {"url": f"http://127.0.0.1:{port}/mcp"}})
    h = await started(harness, tmp_path)
    assert server_tools(h) == []
    log = (agent_dir / "mcp.log").read_text()
    assert "[down] network error for initialize; retry 1 in 0.01 s" in log
    assert "[down] network error for initialize; retry 2 in 0.01 s" in log
    assert "retry 3" not in log
    await h.shutdown()
