"""The world of the early-request tests: an agent dir and a project whose models.json points at
the loopback fake LLM server, and real ``pi`` processes run in it."""

from __future__ import annotations

import json
import marshal
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from _cli_helpers import PI

from pi_harness.testing.fake_llm import FakeLLMServer, RecordedRequest, ScriptedResponse, TextStep

KEY = "literal-key-in-models-json"


def last_user_text(request: RecordedRequest) -> str:
    messages = request.json.get("messages")
    assert isinstance(messages, list)
    last = messages[-1]
    assert isinstance(last, dict)
    content = last.get("content")
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content)


def echo(request: RecordedRequest) -> ScriptedResponse:
    system = request.json["messages"][0]  # type: ignore[index]
    marker = "TAMPERED" if "TAMPERED" in json.dumps(system) else "answer"
    return ScriptedResponse(steps=[TextStep(f"{marker} to {last_user_text(request)}")])


@dataclass
class World:
    server: FakeLLMServer
    agent: Path
    project: Path
    env: dict[str, str]

    def pi(self, *args: str, stdin: int | None = subprocess.DEVNULL, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(PI), *args],
            cwd=self.project,
            env={**self.env, **env},
            stdin=stdin,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    def records(self) -> list[Path]:
        return sorted((self.agent / "cache" / "early-requests").glob("*.rec"))

    def record(self) -> dict[str, object]:
        [path] = self.records()
        value = marshal.loads(path.read_bytes())
        assert isinstance(value, dict)
        return value

    def write_record(self, value: dict[str, object]) -> None:
        [path] = self.records()
        path.write_bytes(marshal.dumps(value))

    def run_until_recorded(self, *args: str) -> None:
        """The first run records; the next one may record again (the first created the session
        directory, which the record had seen missing); from then on the record holds."""
        for _ in range(2):
            assert self.pi(*args).returncode == 0
        self.server.clear()


def make_world(root: Path, server: FakeLLMServer, api_key: str = KEY) -> World:
    home = root / "home"
    agent = home / ".pi" / "agent"
    project = root / "project"
    agent.mkdir(parents=True)
    project.mkdir()
    provider = {
        "baseUrl": server.base_url("openai-completions"),
        "api": "openai-completions",
        "apiKey": api_key,
        "models": [{"id": "fake-model", "name": "Fake", "contextWindow": 200000, "maxTokens": 8192}],
    }
    (agent / "models.json").write_text(json.dumps({"providers": {"fake": provider}}))
    (agent / "settings.json").write_text(json.dumps({"defaultProvider": "fake", "defaultModel": "fake-model"}))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PI_", "OPENAI_", "ANTHROPIC_"))}
    env.update(HOME=str(home), PI_CODING_AGENT_DIR=str(agent), PI_OFFLINE="1", NO_PROXY="127.0.0.1,localhost")
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        env.pop(name, None)
    return World(server, agent, project, env)
