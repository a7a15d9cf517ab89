"""The fake provider over a chosen wire protocol, and JSON-mode runs read back as records."""

from __future__ import annotations

import json
from typing import Any

from _pi_env import PiEnv

APIS = ["openai-completions", "anthropic-messages"]


def use_api(pi_env: PiEnv, api: str, settings: dict[str, Any] | None = None) -> None:
    """models.json: the ``fake`` provider speaking ``api``; settings.json selecting it."""
    pi_env.configure(settings=settings)  # settings.json (and an openai-completions models.json)
    model = {
        "id": "fake-model",
        "name": "Fake Model",
        "input": ["text"],
        "contextWindow": 128000,
        "maxTokens": 4096,
        "cost": {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0},
    }
    provider = {"baseUrl": pi_env.server.base_url(api), "api": api, "apiKey": "test-key", "models": [model]}
    (pi_env.agent_dir / "models.json").write_text(json.dumps({"providers": {"fake": provider}}))


def records(stdout: str | bytes) -> list[dict[str, Any]]:
    """JSON-mode stdout as records (split on LF only, as the protocol asks)."""
    data = stdout.encode() if isinstance(stdout, str) else stdout
    return [json.loads(line) for line in data.split(b"\n") if line.strip()]


def of_type(found: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [r for r in found if r.get("type") == kind]


def assistant_ends(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The assistant messages of the ``message_end`` records, in order."""
    return [r["message"] for r in of_type(found, "message_end") if r.get("message", {}).get("role") == "assistant"]
