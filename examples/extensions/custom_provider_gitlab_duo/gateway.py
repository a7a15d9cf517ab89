"""GitLab's AI gateway: the models, the token exchange and the stream that wraps a backend API."""

from __future__ import annotations

import asyncio
import json
import os
import time
import urllib.error
import urllib.request
from typing import Any

from pi_harness.ai import AssistantMessageEventStream, create_assistant_message_event_stream, empty_usage
from pi_harness.ai.options import SimpleStreamOptions
from pi_harness.ai.registry import get_api_provider

PROVIDER = "gitlab-duo"
API = "gitlab-duo-api"
TOKEN_TTL_S = 25 * 60
BACKEND_APIS = {"anthropic": "anthropic-messages", "openai": "openai-responses"}


def gitlab_url() -> str:
    return os.environ.get("GITLAB_URL", "https://gitlab.com").rstrip("/")


def gateway_url() -> str:
    return os.environ.get("GITLAB_AI_GATEWAY_URL", "https://cloud.gitlab.com").rstrip("/")


def backend_url(backend: str) -> str:
    return (
        f"{gateway_url()}/ai/v1/proxy/anthropic" if backend == "anthropic" else f"{gateway_url()}/ai/v1/proxy/openai/v1"
    )


def _model(
    model_id: str, name: str, backend: str, cost: dict[str, float], window: int, max_tokens: int
) -> dict[str, Any]:
    return {
        "id": model_id,
        "name": name,
        "backend": backend,
        "reasoning": True,
        "input": ["text", "image"],
        "cost": cost,
        "contextWindow": window,
        "maxTokens": max_tokens,
    }


MODELS = [
    _model(
        "claude-sonnet-4-5-20250929",
        "Claude Sonnet 4.5 (GitLab Duo)",
        "anthropic",
        {"input": 3, "output": 15, "cacheRead": 0.3, "cacheWrite": 3.75},
        200_000,
        16_384,
    ),
    _model(
        "claude-haiku-4-5-20251001",
        "Claude Haiku 4.5 (GitLab Duo)",
        "anthropic",
        {"input": 1, "output": 5, "cacheRead": 0.1, "cacheWrite": 1.25},
        200_000,
        8_192,
    ),
    _model(
        "gpt-5.5-2026-04-23",
        "GPT-5.5 (GitLab Duo)",
        "openai",
        {"input": 5, "output": 30, "cacheRead": 0.5, "cacheWrite": 0},
        400_000,
        128_000,
    ),
]
BACKENDS = {model["id"]: str(model["backend"]) for model in MODELS}

# The gateway token of the GitLab token it was bought with: (GitLab token, gateway token, headers, until).
_cache: list[tuple[str, str, dict[str, str], float]] = []


def _exchange(gitlab_token: str) -> tuple[str, dict[str, str]]:
    """POST the GitLab token for a gateway token and the headers that go with it (blocking)."""
    for cached, token, headers, until in _cache:
        if cached == gitlab_token and until > time.monotonic():
            return token, headers
    request = urllib.request.Request(
        f"{gitlab_url()}/api/v4/ai/third_party_agents/direct_access",
        data=json.dumps({"feature_flags": {"DuoAgentPlatformNext": True}}).encode(),
        headers={"Authorization": f"Bearer {gitlab_token}", "Content-Type": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            data = json.loads(response.read())
    except urllib.error.HTTPError as error:
        detail = error.read().decode("utf-8", "replace")
        if error.code == 403:
            raise RuntimeError(f"GitLab Duo access denied: is Duo enabled for your account? {detail}") from error
        raise RuntimeError(f"Could not get a GitLab Duo token: {error.code} {detail}") from error
    token, headers = str(data["token"]), {str(k): str(v) for k, v in (data.get("headers") or {}).items()}
    _cache[:] = [(gitlab_token, token, headers, time.monotonic() + TOKEN_TTL_S)]
    return token, headers


def _failed(model: dict[str, Any], message: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": [],
        "api": model["api"],
        "provider": model["provider"],
        "model": model["id"],
        "usage": empty_usage(),
        "stopReason": "error",
        "errorMessage": message,
        "timestamp": int(time.time() * 1000),
    }


def stream_gitlab_duo(model: Any, context: Any, options: SimpleStreamOptions | None) -> AssistantMessageEventStream:
    opts = options or SimpleStreamOptions()
    outer = create_assistant_message_event_stream()

    async def run() -> None:
        try:
            if not opts.api_key:
                raise RuntimeError("No GitLab token: set GITLAB_TOKEN to a personal access token")
            backend = BACKENDS.get(model["id"])
            if backend is None:
                raise RuntimeError(f"Unknown GitLab Duo model: {model['id']}")
            token, headers = await asyncio.to_thread(_exchange, opts.api_key)
            routed = {**model, "baseUrl": backend_url(backend)}
            inner_options = SimpleStreamOptions(**{**opts.__dict__})
            inner_options.api_key = token
            inner_options.headers = {**(opts.headers or {}), **headers, "Authorization": f"Bearer {token}"}
            implementation = get_api_provider(BACKEND_APIS[backend])
            if implementation is None:
                raise RuntimeError(f"pi-harness has no {BACKEND_APIS[backend]} API")
            inner = implementation.stream_simple(routed, context, inner_options)
            async for event in inner:
                outer.push(event)
            outer.end()
        except Exception as error:
            message = _failed(model, str(error))
            outer.push({"type": "error", "reason": "error", "error": message})
            outer.end(message)

    task = asyncio.ensure_future(run())
    _running.add(task)
    task.add_done_callback(_running.discard)
    return outer


_running: set[asyncio.Future[None]] = set()  # keeps the request tasks alive until they end
