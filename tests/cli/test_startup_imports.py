"""What ``pi -p`` has imported when its first request leaves: only what that request needs.

The installed ``pi`` runs against the fake LLM server with ``PI_DEBUG_MODULES_AT_REQUEST`` set,
which makes the HTTP layer write the names in ``sys.modules`` to a file just before the first
request is sent. A module listed below showing up there means someone added an eager import to
the print path (each costs startup time and memory on every run); import it where it is used.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path

import pytest
from _cli_helpers import RunPi

from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep

# Not needed to send a print-mode request with no extensions, packages or MCP servers configured.
NOT_BEFORE_FIRST_REQUEST = (
    # the HTTP stack of proxies and the other requests (light_http carries provider streams)
    "httpx2",
    "httpcore2",
    "anyio",
    "importlib.metadata",
    "email",
    "urllib.request",
    "http.client",
    # the other modes and the terminal
    "pi_harness.tui",
    "pi_harness.cli.modes.interactive",
    "pi_harness.cli.modes.rpc",
    "prompt_toolkit",
    "rich",
    # what only some sessions use
    "pi_harness.coding.packages.manager",
    "pi_harness.coding.bug_report",
    "mcp",
    "decimal",
    # the MCP client, when no mcp.json exists and no extension registers a server (mcp/front.py)
    "pi_harness.extensions_builtin.mcp.extension",
    "pi_harness.extensions_builtin.mcp.manager",
    "pi_harness.extensions_builtin.tool_search.ranking",  # imported by the first search
    "pi_harness.coding.packages.sources",  # parses -e npm:/git: arguments (none here)
)

# Not needed either when the provider speaks plain HTTP (a local model server, the fake server):
# OpenSSL's libcrypto and libssl are MiBs of resident memory (``cli/lazy_ssl.py``).
NOT_BEFORE_PLAIN_HTTP_REQUEST = ("ssl", "_ssl", "hashlib", "_hashlib", "hmac", "secrets")


class CountingServer(FakeLLMServer):
    """The fake server, counting the TCP connections it accepts."""

    accepted = 0

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.accepted += 1
        await super()._handle(reader, writer)


def _modules_at_first_request(run_pi: RunPi, tmp_path: Path, *args: str) -> set[str]:
    dump = tmp_path / "modules.txt"
    server = CountingServer([ScriptedResponse(steps=[TextStep("hello there")])])
    with server:
        provider = {
            "baseUrl": server.base_url("openai-completions"),
            "api": "openai-completions",
            "apiKey": "test-key",
            "models": [{"id": "fake-model", "name": "Fake", "contextWindow": 200000, "maxTokens": 8192}],
        }
        agent_dir = Path(os.environ["PI_CODING_AGENT_DIR"])
        agent_dir.mkdir(parents=True, exist_ok=True)
        (agent_dir / "models.json").write_text(json.dumps({"providers": {"fake": provider}}))
        env = {"PI_DEBUG_MODULES_AT_REQUEST": str(dump), "PI_OFFLINE": "1", "NO_PROXY": "127.0.0.1"}
        for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
            env[name] = ""
        result = run_pi("--model", "fake/fake-model", *args, env=env)
        assert result.returncode == 0, result.stderr
        assert "hello there" in result.stdout
        assert len(server.requests) == 1
        # The connection opened while startup finished is the one the request used.
        assert server.accepted == 1
    return set(dump.read_text(encoding="utf-8").split())


def _loaded(modules: set[str], name: str) -> bool:
    return name in modules or any(module.startswith(name + ".") for module in modules)


@pytest.mark.parametrize("mode", [["-p", "hi"], ["--mode", "json", "hi"]], ids=["print", "json"])
def test_the_first_request_leaves_before_heavy_modules_are_imported(
    run_pi: RunPi, tmp_path: Path, mode: list[str]
) -> None:
    modules = _modules_at_first_request(run_pi, tmp_path, *mode)
    assert "pi_harness.ai.light_http" in modules  # the dump really is the request path's
    assert [name for name in NOT_BEFORE_FIRST_REQUEST if _loaded(modules, name)] == []
    assert [name for name in NOT_BEFORE_PLAIN_HTTP_REQUEST if _loaded(modules, name)] == []


def test_a_proxy_in_the_environment_takes_the_httpx2_path(run_pi: RunPi) -> None:
    """The guard above is about the direct path; with a proxy variable the request goes through
    ``httpx2`` (here a proxy that is bypassed for the loopback server by ``NO_PROXY``)."""
    with FakeLLMServer([ScriptedResponse(steps=[TextStep("proxied path")])]) as server:
        provider = {
            "baseUrl": server.base_url("openai-completions"),
            "api": "openai-completions",
            "apiKey": "test-key",
            "models": [{"id": "fake-model", "name": "Fake", "contextWindow": 200000, "maxTokens": 8192}],
        }
        agent_dir = Path(os.environ["PI_CODING_AGENT_DIR"])
        agent_dir.mkdir(parents=True, exist_ok=True)
        (agent_dir / "models.json").write_text(json.dumps({"providers": {"fake": provider}}))
        env = {
            "PI_OFFLINE": "1",
            "HTTP_PROXY": "http://127.0.0.1:9",  # nothing listens there: NO_PROXY must apply
            "NO_PROXY": "127.0.0.1",
        }
        result = run_pi("--model", "fake/fake-model", "-p", "hi", env=env)
    assert result.returncode == 0, result.stderr
    assert "proxied path" in result.stdout


def test_an_https_provider_loads_no_httpx2_either(run_pi: RunPi, tmp_path: Path) -> None:
    """The certificate store is loaded (in the background) without ``httpx2``; nothing listens at
    the address, so the run fails, but only after the request was about to leave."""
    dump = tmp_path / "modules.txt"
    provider = {
        "baseUrl": "https://127.0.0.1:9/v1",
        "api": "openai-completions",
        "apiKey": "test-key",
        "models": [{"id": "tls-model", "name": "TLS", "contextWindow": 200000, "maxTokens": 8192}],
    }
    agent_dir = Path(os.environ["PI_CODING_AGENT_DIR"])
    agent_dir.mkdir(parents=True, exist_ok=True)
    (agent_dir / "models.json").write_text(json.dumps({"providers": {"tls": provider}}))
    (agent_dir / "settings.json").write_text(json.dumps({"retry": {"enabled": False}}))
    env = {"PI_DEBUG_MODULES_AT_REQUEST": str(dump), "PI_OFFLINE": "1"}
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        env[name] = ""
    result = run_pi("--model", "tls/tls-model", "-p", "hi", env=env)
    assert result.returncode == 1
    assert "Connection error:" in result.stderr + result.stdout
    modules = set(dump.read_text(encoding="utf-8").split())
    assert [name for name in NOT_BEFORE_FIRST_REQUEST if _loaded(modules, name)] == []
