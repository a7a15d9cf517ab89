"""Helpers for the damaged-session-file tests: session records, and ``pi`` against the fake LLM."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep

HEADER_ID = "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"


def header(cwd: Path) -> dict[str, object]:
    return {"type": "session", "version": 3, "id": HEADER_ID, "timestamp": "2026-01-01T00:00:00.000Z", "cwd": str(cwd)}


def message(entry_id: str, parent: str | None, role: str, text: object, second: int) -> dict[str, object]:
    stamp = f"2026-01-01T00:00:{second % 60:02d}.000Z"
    body: dict[str, object]
    if role == "user":
        body = {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1767225600000 + second}
    else:
        body = {
            "role": "assistant",
            "content": [{"type": "text", "text": text}],
            "api": "openai-completions",
            "provider": "fake",
            "model": "fake-model",
            "usage": {
                "input": 1,
                "output": 1,
                "cacheRead": 0,
                "cacheWrite": 0,
                "totalTokens": 2,
                "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
            },
            "stopReason": "stop",
            "timestamp": 1767225600000 + second,
        }
    return {"type": "message", "id": entry_id, "parentId": parent, "timestamp": stamp, "message": body}


def line(record: object) -> bytes:
    return json.dumps(record, ensure_ascii=False).encode("utf-8") + b"\n"


def pi_executable() -> str:
    candidate = Path(sys.executable).with_name("pi")
    return str(candidate) if candidate.exists() else "pi"


@dataclass
class Pi:
    server: FakeLLMServer
    agent_dir: Path
    cwd: Path

    def run(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        env = dict(os.environ)
        env["PI_OFFLINE"] = "1"
        return subprocess.run(
            [pi_executable(), *args],
            input="",
            capture_output=True,
            text=True,
            cwd=self.cwd,
            env=env,
            timeout=timeout,
            check=False,
        )

    def answer(self, *texts: str) -> None:
        self.server.push(*(ScriptedResponse(steps=[TextStep(t)]) for t in texts))

    def last_request_texts(self) -> list[str]:
        """The text of every message in the latest request, in order (one string per message)."""
        texts: list[str] = []
        for item in self.server.requests[-1].json["messages"]:
            content = item.get("content")
            if isinstance(content, list):
                texts.append(" ".join(str(p.get("text", "")) for p in content if isinstance(p, dict)))
            else:
                texts.append(str(content or ""))
        return texts


def configure(agent_dir: Path, server: FakeLLMServer) -> None:
    models = [
        {
            "id": "fake-model",
            "name": "Fake",
            "input": ["text"],
            "contextWindow": 128000,
            "maxTokens": 4096,
            "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        }
    ]
    provider = {
        "baseUrl": server.base_url("openai-completions"),
        "api": "openai-completions",
        "apiKey": "test-key",
        "models": models,
    }
    (agent_dir / "models.json").write_text(json.dumps({"providers": {"fake": provider}}))
    settings = {"defaultProvider": "fake", "defaultModel": "fake-model", "retry": {"enabled": False}}
    (agent_dir / "settings.json").write_text(json.dumps(settings))
