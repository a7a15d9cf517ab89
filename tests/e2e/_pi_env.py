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
from typing import Any

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

    def popen(self, *args: str, cwd: Path | None = None, stdin: int = subprocess.PIPE) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [pi_executable(), *args],
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd or self.cwd,
            env=self.env,
        )

    def configure(self, **options: Any) -> None:
        """Rewrite models.json and settings.json (see ``write_fake_provider``)."""
        write_fake_provider(self.agent_dir, self.server, **options)

    def sessions(self) -> list[Path]:
        return sorted((self.agent_dir / "sessions").rglob("*.jsonl"))


def write_fake_provider(
    agent_dir: Path,
    server: FakeLLMServer,
    *,
    model_id: str = "fake-model",
    extra: Sequence[str | dict[str, Any]] = (),
    settings: dict[str, Any] | None = None,
) -> None:
    """models.json with the ``fake`` provider (``extra``: more model ids or model objects) and a
    settings.json selecting ``model_id`` (``settings`` adds or overrides keys)."""
    models = [
        {
            "id": model_id,
            "name": "Fake Model",
            "input": ["text", "image"],
            "contextWindow": 128000,
            "maxTokens": 4096,
            "cost": {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0},
        }
    ]
    models += [{"id": m} if isinstance(m, str) else m for m in extra]
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
                **(settings or {}),
            }
        )
    )
