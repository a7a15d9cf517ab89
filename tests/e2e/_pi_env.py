"""End-to-end helpers: the installed ``pi`` command against the fake LLM server.

Every test gets a temporary agent dir whose models.json defines a ``fake`` provider pointing at a
``FakeLLMServer`` (OpenAI Chat Completions), selected as the default model in settings.json.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pi_harness.testing.fake_llm import FakeLLMServer


def pi_executable() -> str:
    candidate = Path(sys.executable).with_name("pi")
    return str(candidate) if candidate.exists() else "pi"


@dataclass
class PiEnv:
    server: FakeLLMServer
    agent_dir: Path
    cwd: Path
    env: dict[str, str]

    def run(
        self, *args: str, input: str | None = None, timeout: float = 60, cwd: Path | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [pi_executable(), *args],
            input=input if input is not None else "",
            capture_output=True,
            text=True,
            cwd=cwd or self.cwd,
            env=self.env,
            timeout=timeout,
            check=False,
        )

    def popen(self, *args: str, cwd: Path | None = None) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [pi_executable(), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd or self.cwd,
            env=self.env,
        )

    def sessions(self) -> list[Path]:
        return sorted((self.agent_dir / "sessions").rglob("*.jsonl"))


def write_fake_provider(
    agent_dir: Path, server: FakeLLMServer, *, model_id: str = "fake-model", extra: Sequence[str] = ()
) -> None:
    models = [
        {
            "id": model_id,
            "name": "Fake Model",
            "contextWindow": 128000,
            "maxTokens": 4096,
            "cost": {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0},
        }
    ]
    models += [{"id": m} for m in extra]
    (agent_dir / "models.json").write_text(
        json.dumps(
            {
                "providers": {
                    "fake": {
                        "baseUrl": server.base_url("openai-completions"),
                        "api": "openai-completions",
                        "apiKey": "test-key",
                        "models": models,
                    }
                }
            }
        )
    )
    (agent_dir / "settings.json").write_text(
        json.dumps(
            {
                "defaultProvider": "fake",
                "defaultModel": model_id,
                "retry": {"baseDelayMs": 10},
            }
        )
    )
