"""The examples the way users load them: ``pi -e examples/extensions/<name>`` against the fake server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from _examples_support import EXAMPLES, example_path

from pi_harness.coding.extensions.events import EVENT_NAMES
from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep, ToolCallStep

ALL_EXAMPLES = sorted(
    path.name.removesuffix(".py")
    for path in EXAMPLES.iterdir()
    if (path.suffix == ".py" or (path / "__init__.py").exists()) and not path.name.startswith("_")
)
# Examples left out of the load-together run: notify needs the agent_settled event (not an
# extension event yet); it is tested on its own once the event exists.
NOT_LOADED_TOGETHER = set() if "agent_settled" in EVENT_NAMES else {"notify"}


def pi_command() -> list[str]:
    installed = Path(sys.executable).with_name("pi")
    return [str(installed)] if installed.exists() else [sys.executable, "-m", "pi_harness"]


@dataclass
class Pi:
    server: FakeLLMServer
    cwd: Path
    env: dict[str, str]

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*pi_command(), *args],
            input="",
            capture_output=True,
            text=True,
            cwd=self.cwd,
            env=self.env,
            timeout=60,
            check=False,
        )

    def tool_messages(self, request: int) -> list[str]:
        return [str(m["content"]) for m in self.server.requests[request].json["messages"] if m["role"] == "tool"]


@pytest.fixture
def pi(agent_dir: Path, tmp_path: Path) -> Iterator[Pi]:
    with FakeLLMServer() as server:
        provider = {
            "baseUrl": server.base_url("openai-completions"),
            "api": "openai-completions",
            "apiKey": "test-key",
            "models": [{"id": "fake-model"}],
        }
        (agent_dir / "models.json").write_text(json.dumps({"providers": {"fake": provider}}))
        (agent_dir / "settings.json").write_text(json.dumps({"defaultProvider": "fake", "defaultModel": "fake-model"}))
        cwd = tmp_path / "project"
        cwd.mkdir()
        yield Pi(server, cwd, {**os.environ, "PI_OFFLINE": "1"})


def test_every_example_file_is_documented_in_the_readme() -> None:
    readme = (EXAMPLES / "README.md").read_text()
    assert len(ALL_EXAMPLES) >= 41
    assert readme.count("\n### ") == 79  # one entry per example of Pi 1.4.0
    for name in ALL_EXAMPLES:
        path = example_path(name)
        assert path.exists(), path
        shown = f"examples/extensions/{name}" + ("" if path.is_dir() else ".py")
        assert f"-e {shown}" in readme, name


def test_all_examples_load_together(pi: Pi) -> None:
    pi.server.push(ScriptedResponse(steps=[TextStep("All loaded.")]))
    loaded = [name for name in ALL_EXAMPLES if name not in NOT_LOADED_TOGETHER]
    args = [arg for name in loaded for arg in ("-e", str(example_path(name)))]
    pi.env["PI_GONDOLIN_RUNTIME"] = "no-such-runtime"  # no container for this run
    result = pi.run(*args, "--no-sandbox", "-p", "hello")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "All loaded.\n"
    tools = [t["function"]["name"] for t in pi.server.requests[0].json["tools"]]
    assert "subagent" in tools and tools.count("bash") == 1


def test_permission_gate_blocks_in_print_mode(pi: Pi) -> None:
    (pi.cwd / "build").mkdir()
    pi.server.push(
        ScriptedResponse(steps=[ToolCallStep("bash", {"command": "rm -rf build"}, id="c1")]),
        ScriptedResponse(steps=[TextStep("I was not allowed to delete it.")]),
    )
    result = pi.run("-e", str(example_path("permission_gate")), "-p", "delete the build folder")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "I was not allowed to delete it.\n"
    assert (pi.cwd / "build").is_dir()
    assert pi.tool_messages(1) == ["Dangerous command blocked (no UI for confirmation)"]


def test_protected_paths_in_print_mode(pi: Pi) -> None:
    pi.server.push(
        ScriptedResponse(steps=[ToolCallStep("write", {"path": ".env", "content": "TOKEN=x\n"}, id="c1")]),
        ScriptedResponse(steps=[TextStep("Blocked.")]),
    )
    result = pi.run("-e", str(example_path("protected_paths")), "-p", "store the token")
    assert result.returncode == 0, result.stderr
    assert not (pi.cwd / ".env").exists()
    assert pi.tool_messages(1) == ['Path ".env" is protected']


def test_plan_flag_in_json_mode(pi: Pi) -> None:
    pi.server.push(
        ScriptedResponse(steps=[ToolCallStep("bash", {"command": "mkdir out"}, id="c1")]),
        ScriptedResponse(steps=[TextStep("Plan:\n1. Create the output folder\n")]),
    )
    result = pi.run("-e", str(example_path("plan_mode")), "--plan", "--mode", "json", "-p", "make a plan")
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.splitlines()]
    ends = [r for r in records if r["type"] == "tool_execution_end"]
    assert ends[0]["isError"] is True
    assert ends[0]["result"]["content"][0]["text"] == (
        "Plan mode: command blocked (not allowlisted). Use /plan to disable plan mode first.\nCommand: mkdir out"
    )
    assert not (pi.cwd / "out").exists()
    first = pi.server.requests[0].json
    assert [t["function"]["name"] for t in first["tools"]] == ["read", "bash", "grep", "find", "ls"]
    assert "[PLAN MODE ACTIVE]" in json.dumps(first["messages"])
    assert records[-1] == {"type": "agent_settled", "aborted": False}


def test_preset_flag_and_inline_bash_with_the_pi_command(pi: Pi, agent_dir: Path) -> None:
    presets = {"review": {"tools": ["read", "grep"], "instructions": "Review only; change nothing."}}
    (agent_dir / "presets.json").write_text(json.dumps(presets))
    pi.server.push(ScriptedResponse(steps=[TextStep("Looks fine.")]))
    args = ["-e", str(example_path("preset")), "-e", str(example_path("inline_bash")), "--preset", "review"]
    result = pi.run(*args, "-p", "review !{echo main}")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "Looks fine.\n"
    request = pi.server.requests[0].json
    assert [t["function"]["name"] for t in request["tools"]] == ["read", "grep"]
    assert "Review only; change nothing." in request["messages"][0]["content"]
    assert request["messages"][-1]["content"] in ("review main", [{"type": "text", "text": "review main"}])
