"""A provider-level ``api`` in models.json applies to the provider's custom models only: the
built-in models keep their catalogued API, as Pi 1.4.0 does (checked with pi14 on the fake)."""

from __future__ import annotations

import json
from pathlib import Path

from pi_harness.coding.model_runtime import ModelRuntime


def test_builtin_models_keep_their_api_while_custom_ones_take_the_providers(agent_dir: Path) -> None:
    providers = {
        "openai": {
            "baseUrl": "http://127.0.0.1:9/v1",
            "api": "openai-completions",
            "models": [{"id": "my-local-model"}],
        }
    }
    (agent_dir / "models.json").write_text(json.dumps({"providers": providers}))
    runtime = ModelRuntime.create(agent_dir)
    builtin = runtime.find("openai", "gpt-4o")
    custom = runtime.find("openai", "my-local-model")
    assert builtin is not None and custom is not None, runtime.errors
    assert builtin["api"] == "openai-responses"
    assert builtin["baseUrl"] == "http://127.0.0.1:9/v1"  # the base URL still applies
    assert custom["api"] == "openai-completions"


def test_without_custom_models_the_api_changes_nothing(agent_dir: Path) -> None:
    providers = {"anthropic": {"baseUrl": "http://127.0.0.1:9", "api": "openai-completions"}}
    (agent_dir / "models.json").write_text(json.dumps({"providers": providers}))
    model = ModelRuntime.create(agent_dir).find("anthropic", "claude-sonnet-4-5")
    assert model is not None and model["api"] == "anthropic-messages"
