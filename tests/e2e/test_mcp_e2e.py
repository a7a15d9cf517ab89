"""The installed ``pi`` with an mcp.json: what the first request declares, and ``-builtin:mcp``.

The server is the SDK fixture server of ``tests/extensions_builtin/fixtures`` (Python, spawned for
real). The tool names and the resource tools are those the reference Pi declares for the same kind of
configuration (``tests/extensions_builtin/fixtures/pi14_mcp_golden.json``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from _pi_env import PiEnv

from pi_harness.testing.fake_llm import ScriptedResponse, TextStep

FIXTURE_SERVER = Path(__file__).resolve().parents[1] / "extensions_builtin" / "fixtures" / "mcp_stdio_server.py"
RESOURCE_TOOLS = ["list_mcp_resources", "list_mcp_resource_templates", "read_mcp_resource"]


def declared(pi_env: PiEnv) -> list[str]:
    body = pi_env.server.requests[-1].body
    assert isinstance(body, dict)
    return [tool["function"]["name"] for tool in body.get("tools", [])]


def write_mcp(pi_env: PiEnv, servers: dict[str, object]) -> None:
    (pi_env.agent_dir / "mcp.json").write_text(json.dumps({"mcpServers": servers}))
    pi_env.server.push(ScriptedResponse(steps=[TextStep("ok")]))


def fixture_server(**extra: object) -> dict[str, object]:
    return {"command": sys.executable, "args": [str(FIXTURE_SERVER)], **extra}


def test_direct_tools_are_declared_with_pi_names(pi_env: PiEnv) -> None:
    write_mcp(pi_env, {"my-fx": fixture_server(exposure="direct", toolExposure={"fail": "hidden", "s*": "deferred"})})
    result = pi_env.run("-p", "hi")
    assert result.returncode == 0, result.stderr
    names = declared(pi_env)
    assert [n for n in names if n.startswith("mcp__")] == ["mcp__my_fx__echo", "mcp__my_fx__picture"]
    assert [n for n in names if "mcp_resource" in n] == RESOURCE_TOOLS


def test_codemode_default_declares_no_mcp_tool(pi_env: PiEnv) -> None:
    write_mcp(pi_env, {"fx": fixture_server()})
    result = pi_env.run("-p", "hi")
    assert result.returncode == 0, result.stderr
    assert not any(n.startswith("mcp__") or "mcp_resource" in n for n in declared(pi_env))


@pytest.mark.parametrize("entry", ["-builtin:mcp", "!builtin:mcp"])
def test_disabling_the_builtin_disables_mcp(pi_env: PiEnv, entry: str, tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    write_mcp(
        pi_env,
        {"fx": {**fixture_server(exposure="direct"), "args": [str(FIXTURE_SERVER), "--pid-file", str(pid_file)]}},
    )
    pi_env.configure(settings={"extensions": [entry]})
    result = pi_env.run("-p", "hi")
    assert result.returncode == 0, result.stderr
    assert not any(n.startswith("mcp__") for n in declared(pi_env))
    assert not pid_file.exists()  # the server was never started


# ``--tools`` / ``--exclude-tools`` with MCP tools: the declarations the reference Pi sends for the
# same flags and server (checked side by side with /work/pi-ref/pi14).
ALLOWLIST_CASES = [
    # An allowlist without mcp__ entries keeps MCP tools registered but never declares direct ones.
    (["--tools", "read"], "direct", ["read"]),
    (["--tools", "read,mcp__fx__echo"], "direct", ["read", "mcp__fx__echo"]),
    (["--tools", "read,mcp__fx__e*"], "direct", ["read", "mcp__fx__echo"]),
    (["--tools", "r*"], "direct", ["read", "read_mcp_resource"]),  # the pattern matches a resource tool
    (["--tools", "read,tool_search"], "deferred", ["read", "tool_search"]),
    (["--no-tools"], "direct", []),
    (["--no-tools", "--tools", "+read,+mcp__fx__echo"], "direct", ["read", "mcp__fx__echo"]),
    (["--tools", "+mcp__fx__echo"], "deferred", ["read", "bash", "edit", "write", "tool_search"]),
    (
        ["--exclude-tools", "mcp__fx__p*,bash,*_templates"],
        "direct",
        ["read", "edit", "write", "mcp__fx__echo", "mcp__fx__fail", "mcp__fx__slow", *RESOURCE_TOOLS[::2]],
    ),
]


@pytest.mark.parametrize(("flags", "exposure", "expected"), ALLOWLIST_CASES)
def test_tool_allowlist_with_mcp_tools(pi_env: PiEnv, flags: list[str], exposure: str, expected: list[str]) -> None:
    write_mcp(pi_env, {"fx": fixture_server(exposure=exposure)})
    result = pi_env.run(*flags, "-p", "hi")
    assert result.returncode == 0, result.stderr
    assert declared(pi_env) == expected
    assert "Unknown tool" not in result.stderr
