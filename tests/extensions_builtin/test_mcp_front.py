"""builtin:mcp's factory (``mcp/front.py``): a session with nothing to connect does not start the
client, and behaves as the started client would with an empty configuration."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pi_harness.coding.extensions import ExtensionAPI
from pi_harness.extensions_builtin.mcp import McpOptions, create_mcp_extension, load_mcp_config
from pi_harness.extensions_builtin.mcp.front import _Front


async def eventually(predicate: Any, attempts: int = 400) -> bool:
    for _ in range(attempts):
        if predicate():
            return True
        await asyncio.sleep(0.025)
    return False


async def test_an_idle_session_connects_servers_registered_later(
    tmp_path: Path, agent_dir: Path, harness: Any, stdio_entry: Any
) -> None:
    apis: list[ExtensionAPI] = []

    def factory(pi: ExtensionAPI) -> None:
        apis.append(pi)
        create_mcp_extension()(pi)

    h = await harness(factory, tmp_path)
    await h.start()
    sections = {"mcp_servers": "left over"}
    await h.runner.emit("before_agent_start", {"sections": sections, "prompt": "hi"})
    assert sections == {}  # what the started client does without servers
    apis[0].register_mcp_server("late", {**stdio_entry(), "exposure": "direct"})
    assert await eventually(lambda: "mcp__late__echo" in h.tools())
    await h.shutdown()


@pytest.mark.parametrize("trusted", [False, True])
async def test_the_idle_configuration_is_what_loading_finds(tmp_path: Path, agent_dir: Path, trusted: bool) -> None:
    """The configuration an idle session's client starts on equals ``load_mcp_config`` with no file."""
    started: list[Any] = []

    class Pi:
        def __init__(self) -> None:
            self.subscribed: list[str] = []

        def get_mcp_servers(self) -> list[dict[str, object]]:
            return []

        def on(self, event: str, handler: object) -> None:
            self.subscribed.append(event)

    class Ctx:
        cwd = str(tmp_path)

    pi = Pi()
    front = _Front(pi, McpOptions(agent_dir=agent_dir, project_trusted=trusted))  # type: ignore[arg-type]
    await front.on_session_start({}, Ctx())  # type: ignore[arg-type]
    assert front.idle is not None and front.client is None
    from pi_harness.extensions_builtin.mcp import extension

    original = extension._McpState.start
    extension._McpState.start = lambda self, config, ctx, registered: started.append((config, registered))  # type: ignore[method-assign]
    try:
        front._client()
    finally:
        extension._McpState.start = original  # type: ignore[method-assign]
    assert started == [(load_mcp_config(agent_dir, tmp_path, project_trusted=trusted), [])]
    # Tool calls wait for servers only once there is a client to wait on.
    assert pi.subscribed == ["tool_call"]


@pytest.mark.parametrize("where", ["global", "untrusted project", "registered"])
async def test_anything_to_connect_starts_the_client_at_session_start(
    tmp_path: Path, agent_dir: Path, harness: Any, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    fronts: list[_Front] = []
    original_init = _Front.__init__

    def recording_init(self: _Front, *args: Any) -> None:
        original_init(self, *args)
        fronts.append(self)

    monkeypatch.setattr(_Front, "__init__", recording_init)
    if where == "global":
        (agent_dir / "mcp.json").write_text(json.dumps({"mcpServers": {}}))
    elif where == "untrusted project":
        (tmp_path / ".pi").mkdir()
        (tmp_path / ".pi" / "mcp.json").write_text(json.dumps({"mcpServers": {}}))

    def factory(pi: ExtensionAPI) -> None:
        create_mcp_extension(McpOptions(agent_dir=agent_dir))(pi)
        if where == "registered":
            pi.register_mcp_server("broken", {"command": "x", "timeout": -1})

    h = await harness(factory, tmp_path)
    await h.start()
    (front,) = fronts
    assert front.idle is None and front.client is not None and front.client.manager is not None
    await h.shutdown()


def test_loading_the_factory_does_not_load_the_client() -> None:
    code = (
        "import sys; from pi_harness.extensions_builtin import builtin_extensions; builtin_extensions(); "
        "import json; print(json.dumps(sorted(sys.modules)))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ), check=True
    )
    loaded = json.loads(result.stdout)
    assert "pi_harness.extensions_builtin.mcp.extension" not in loaded
    assert "pi_harness.extensions_builtin.mcp.manager" not in loaded
