"""The opt-in lane against a real llama-server (``scripts/test-real-model`` starts them).

Skipped unless ``PI_REAL_MODEL_URL`` names a running server (its root, e.g.
``http://127.0.0.1:18080``). ``PI_REAL_MODEL_TINY_URL`` names a second one started with a tiny
``--ctx-size`` for the overflow test. ``PI_REAL_MODEL_KIND`` (``raw`` or ``proxy``) says which
server the lane points at, for the report.
"""

from __future__ import annotations

import os
from typing import Any, cast

import pytest

from pi_harness.ai.types import Model

# Read when the lane's tests are collected: every test then runs in a scrubbed environment
# (tests/conftest.py removes PI_* variables).
_ENV = {
    name: os.environ.get(name, "")
    for name in ("PI_REAL_MODEL_URL", "PI_REAL_MODEL_TINY_URL", "PI_REAL_MODEL_ID", "PI_REAL_MODEL_KIND")
}
MODEL_ID = _ENV["PI_REAL_MODEL_ID"] or "qwen2.5-coder-1.5b-instruct"


def _url(name: str) -> str:
    value = _ENV[name].strip().rstrip("/")
    if not value:
        pytest.skip(f"{name} is not set (run scripts/test-real-model)")
    return value[: -len("/v1")] if value.endswith("/v1") else value


@pytest.fixture
def server_url() -> str:
    return _url("PI_REAL_MODEL_URL")


@pytest.fixture
def tiny_url() -> str:
    return _url("PI_REAL_MODEL_TINY_URL")


def model_for(url: str, **overrides: Any) -> Model:
    descriptor: dict[str, Any] = {
        "id": MODEL_ID,
        "name": MODEL_ID,
        "api": "openai-completions",
        "provider": "llama.cpp",
        "baseUrl": f"{url}/v1",
        "reasoning": False,
        "input": ["text"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 8192,
        "maxTokens": 256,
        "compat": {"supportsStore": False, "supportsDeveloperRole": False, "maxTokensField": "max_tokens"},
    }
    descriptor.update(overrides)
    return cast(Model, descriptor)


@pytest.fixture
def model(server_url: str) -> Model:
    return model_for(server_url)
