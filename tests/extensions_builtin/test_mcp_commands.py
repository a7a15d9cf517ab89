"""``pi mcp add`` / ``pi mcp remove`` (the installed ``pi``), compared with what Pi 1.4.0 printed and
wrote for the same command lines (``fixtures/pi14_mcp_add_golden.json``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pi_harness.extensions_builtin.mcp.edit import update_server

GOLDEN = json.loads((Path(__file__).parent / "fixtures" / "pi14_mcp_add_golden.json").read_text())


def pi(*args: str, cwd: Path, agent: Path) -> subprocess.CompletedProcess[str]:
    executable = Path(sys.executable).with_name("pi")
    env = {**os.environ, "PI_CODING_AGENT_DIR": str(agent), "PI_OFFLINE": "1"}
    return subprocess.run(
        [str(executable), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60, check=False
    )


def test_add_and_remove_write_and_say_what_pi_does(tmp_path: Path) -> None:
    agent, project = tmp_path / "agent", tmp_path / "project"
    agent.mkdir()
    project.mkdir()
    for run in GOLDEN["runs"]:
        done = pi("mcp", *run["args"], cwd=project, agent=agent)
        seen = (done.returncode, done.stdout.replace(str(agent), "<agent>"), done.stderr.replace(str(agent), "<agent>"))
        assert seen == (run["exitCode"], run["stdout"], run["stderr"]), run["args"]
    assert (agent / "mcp.json").read_text() == GOLDEN["mcpJson"]


def test_local_add_notes_an_untrusted_project_and_remove_points_at_the_other_file(tmp_path: Path) -> None:
    agent, project = tmp_path / "agent", tmp_path / "project"
    agent.mkdir()
    project.mkdir()
    added = pi("mcp", "add", "-l", "loc", "--", "x", cwd=project, agent=agent)
    path = project / ".pi" / "mcp.json"
    assert added.returncode == 0
    assert added.stdout.splitlines()[1] == (
        f"The project is not trusted, so {path} is ignored until you start pi in the project and trust it."
    )
    assert json.loads(path.read_text()) == {"mcpServers": {"loc": {"command": "x"}}}
    wrong = pi("mcp", "remove", "loc", cwd=project, agent=agent)
    assert wrong.returncode == 1
    assert wrong.stderr == (
        f'No global MCP server named "loc" in {agent / "mcp.json"}. It is defined in {path}; use --local.\n'
    )
    assert pi("mcp", "remove", "--local", "loc", cwd=project, agent=agent).returncode == 0
    assert json.loads(path.read_text()) == {"mcpServers": {}}


def test_edits_keep_other_content_and_indentation(tmp_path: Path) -> None:
    agent = tmp_path / "agent"
    agent.mkdir()
    path = agent / "mcp.json"
    path.write_text('{\n\t"autoEnableCodemode": false,\n\t"mcpServers": {"a": {"command": "x", "enabled": false}}\n}')
    assert pi("mcp", "add", "b", "--", "y", cwd=tmp_path, agent=agent).returncode == 0
    text = path.read_text()
    assert text.startswith('{\n\t"autoEnableCodemode": false,\n\t"mcpServers": {\n\t\t"a": {')
    assert json.loads(text)["mcpServers"] == {"a": {"command": "x", "enabled": False}, "b": {"command": "y"}}
    update_server(path, "a", {"enabled": True, "exposure": "direct"})
    assert json.loads(path.read_text())["mcpServers"]["a"] == {"command": "x", "exposure": "direct"}
    overrides = tmp_path / "project.json"
    update_server(overrides, "a", {"enabled": True}, override=True)  # an override keeps the default
    assert json.loads(overrides.read_text()) == {"mcpServers": {"a": {"enabled": True}}}
    path.write_text("[1]")
    broken = pi("mcp", "add", "c", "--", "z", cwd=tmp_path, agent=agent)
    assert broken.returncode == 1 and broken.stderr.startswith(f"Could not update {path}: ")
    assert path.read_text() == "[1]"


@pytest.mark.parametrize("args", [[], ["--help"], ["help"]])
def test_help(tmp_path: Path, args: list[str]) -> None:
    done = pi("mcp", *args, cwd=tmp_path, agent=tmp_path)
    assert done.returncode == 0 and done.stdout.startswith("Usage:\n  pi mcp add <server>")
