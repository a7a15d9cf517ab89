"""The model runtime builds one provider's models when only that provider is asked for, and those
are the models the whole table has: ``models.json`` (base URL, headers, overrides, custom models),
extension providers and directly added models applied alike."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from pi_harness.ai.types import Model
from pi_harness.coding.config.auth import AuthStorage
from pi_harness.coding.model_runtime import ModelRuntime

MODELS_JSON = {
    "providers": {
        "anthropic": {
            "baseUrl": "https://proxy.example/anthropic",
            "headers": {"x-team": "blue"},
            "modelOverrides": {"claude-sonnet-4-5": {"name": "Sonnet (team)", "contextWindow": 123456}},
        },
        "openai": {
            "baseUrl": "https://api.openai.com/v1",
            "apiKey": "sk-test",
            "models": [{"id": "house-model", "name": "House", "api": "openai-completions"}],
        },
        "local-box": {
            "baseUrl": "http://127.0.0.1:1/v1",
            "api": "openai-completions",
            "apiKey": "k",
            "models": [{"id": "tiny", "name": "Tiny"}],
        },
    }
}


def _runtime(agent_dir: Path) -> ModelRuntime:
    (agent_dir / "models.json").write_text(json.dumps(MODELS_JSON))
    runtime = ModelRuntime(AuthStorage.in_memory(), agent_dir / "models.json")
    runtime.register_provider(
        "ext",
        {
            "baseUrl": "http://ext.invalid",
            "apiKey": "e",
            "api": "openai-completions",
            "models": [{"id": "ext-1", "name": "Ext"}],
        },
    )
    runtime.add_model({**runtime.get_all()[0], "id": "added-one", "provider": "anthropic"})
    return runtime


def test_one_provider_at_a_time_gives_the_models_of_the_whole_table(tmp_path: Path) -> None:
    whole = _runtime(tmp_path).get_all()
    assert {m["provider"] for m in whole} >= {"anthropic", "openai", "local-box", "ext"}
    by_provider: dict[str, list[Model]] = {}
    for model in whole:
        by_provider.setdefault(model["provider"], []).append(model)
    for provider, models in by_provider.items():
        fresh = _runtime(tmp_path)  # nothing built yet: these lookups build one provider only
        assert [fresh.find(provider, m["id"]) for m in models] == models
    sonnet = next(m for m in whole if m["provider"] == "anthropic" and m["id"] == "claude-sonnet-4-5")
    assert (sonnet["name"], sonnet["contextWindow"], sonnet["baseUrl"]) == (
        "Sonnet (team)",
        123456,
        "https://proxy.example/anthropic",
    )
    assert sonnet["headers"]["x-team"] == "blue"


def test_credentials_of_one_provider_without_the_whole_table(tmp_path: Path) -> None:
    runtime = _runtime(tmp_path)
    assert runtime.errors == []
    assert runtime.has_credentials("openai") and runtime.has_credentials("local-box")
    assert not runtime.has_credentials("anthropic")
    assert runtime.find("no-such-provider", "x") is None
    assert [m["provider"] for m in runtime.get_available()].count("openai") >= 1


def test_a_lookup_parses_only_its_own_provider_of_the_catalogue(tmp_path: Path) -> None:
    code = (
        "from pathlib import Path\n"
        "from pi_harness.ai import models\n"
        "from pi_harness.coding.model_runtime import ModelRuntime\n"
        "from pi_harness.coding.config.auth import AuthStorage\n"
        "runtime = ModelRuntime(AuthStorage.in_memory(), None)\n"
        "assert runtime.find('anthropic', 'claude-sonnet-4-5') is not None\n"
        "runtime.has_credentials('anthropic')\n"
        "print(sorted(models._parsed))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "['anthropic']"
