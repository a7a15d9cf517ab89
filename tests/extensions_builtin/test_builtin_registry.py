"""The registry the CLI hands to the runner: names, defaults, host-configured factories."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pi_harness.coding.extensions.runner import ExtensionRunner
from pi_harness.coding.model_runtime import ModelRuntime
from pi_harness.extensions_builtin import BUILTIN_EXTENSIONS, DEFAULT_ENABLED, builtin_extensions
from pi_harness.testing.fake_llm import FakeLLMServer


def test_names_and_defaults() -> None:
    names = {"builtin:mcp", "builtin:llama.cpp", "builtin:tool-search", "builtin:codemode"}
    assert set(BUILTIN_EXTENSIONS) == names
    assert set(DEFAULT_ENABLED) == names


async def test_host_configured_builtins_load_by_name(tmp_path: Path, stdio_entry: Any) -> None:
    project = tmp_path / "project"
    (project / ".pi").mkdir(parents=True)
    (project / ".pi" / "mcp.json").write_text(json.dumps({"mcpServers": {"proj": stdio_entry()}}))
    runtime = ModelRuntime()

    def apply(action: tuple[str, str, Any, str]) -> None:
        runtime.register_provider(action[1], action[2], action[3])

    with FakeLLMServer(models=["tiny"]) as server:
        factories = builtin_extensions(
            project_trusted=True,
            local_models_settings={"autodiscover": False, "servers": [{"name": "lan", "baseUrl": server.url}]},
        )
        runner = ExtensionRunner(builtin_factories=factories)
        assert await runner.load_paths(["builtin:mcp", "builtin:llama.cpp"]) == []

        class Host:
            cwd = str(project)

        runner.bind(Host(), apply_provider=apply)  # type: ignore[arg-type]
        await runner.emit("session_start", {})
        await runner.emit_before_agent_start({"prompt": "", "systemPrompt": ""})
        assert "mcp__proj__echo" in {d.name for d, _ in runner.tool_definitions()}
        assert runtime.find("lan", "tiny") is not None
        await runner.emit("session_shutdown", {})
