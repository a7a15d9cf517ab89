from __future__ import annotations

import json
from pathlib import Path

import pytest

from pi_harness.coding.config.auth import AuthStorage
from pi_harness.coding.config.models_json import ModelsJsonError, load_models_file, load_models_json
from pi_harness.coding.model_runtime import ModelRuntime


def write_models(agent_dir: Path, data: object) -> Path:
    path = agent_dir / "models.json"
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return path


def test_custom_provider_with_defaults(agent_dir: Path) -> None:
    write_models(
        agent_dir,
        {
            "providers": {
                "local": {
                    "baseUrl": "http://127.0.0.1:8080/v1",
                    "api": "openai-completions",
                    "apiKey": "dummy",
                    "models": [{"id": "qwen"}],
                }
            }
        },
    )
    runtime = ModelRuntime.create(agent_dir)
    model = runtime.find("local", "qwen")
    assert model == {
        "id": "qwen",
        "name": "qwen",
        "api": "openai-completions",
        "provider": "local",
        "baseUrl": "http://127.0.0.1:8080/v1",
        "reasoning": False,
        "input": ["text"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 128000,
        "maxTokens": 16384,
    }
    assert runtime.get_api_key("local") == "dummy"
    assert any(m["provider"] == "local" for m in runtime.get_available())
    assert runtime.find("anthropic", "claude-haiku-4-5") is not None  # built-ins kept


@pytest.mark.parametrize(
    ("providers", "message"),
    [
        (
            {"p": {"name": "x"}},
            'Provider p: must specify "baseUrl", "headers", "compat", "modelOverrides", or "models".',
        ),
        (
            {"p": {"apiKey": "x", "api": "openai-completions", "models": [{"id": "m"}]}},
            'Provider p: "baseUrl" is required when defining custom models.',
        ),
        (
            {"p": {"baseUrl": "http://x", "apiKey": "k", "models": [{"id": "m"}]}},
            'Provider p, model m: no "api" specified. Set at provider or model level.',
        ),
        (
            {"p": {"baseUrl": "http://x", "apiKey": "k", "api": "a", "models": [{"id": "m", "contextWindow": 0}]}},
            "Provider p, model m: invalid contextWindow",
        ),
        (
            {"p": {"baseUrl": "http://x", "apiKey": "k", "api": "a", "models": [{"id": "m", "maxTokens": -1}]}},
            "Provider p, model m: invalid maxTokens",
        ),
        ({"p": {"oauth": "radius"}}, 'Provider p: "baseUrl" is required when "oauth" is set.'),
    ],
)
def test_semantic_errors_skip_only_that_provider(agent_dir: Path, providers: dict[str, object], message: str) -> None:
    good = {"baseUrl": "http://ok", "apiKey": "k", "api": "openai-completions", "models": [{"id": "fine"}]}
    path = write_models(agent_dir, {"providers": {**providers, "good": good}})
    loaded = load_models_file(path)
    assert loaded.errors == [f'Provider "p": {message}']
    assert [c.name for c in loaded.configs] == ["good"]
    runtime = ModelRuntime.create(agent_dir)
    assert runtime.errors == [f'Provider "p": {message}']
    assert runtime.find("good", "fine") is not None  # the other providers still apply (Pi 1.4)
    assert runtime.find("anthropic", "claude-haiku-4-5") is not None


def test_custom_models_need_no_api_key_but_are_unavailable_without_one(agent_dir: Path) -> None:
    write_models(
        agent_dir, {"providers": {"p": {"baseUrl": "http://x", "api": "openai-completions", "models": [{"id": "m"}]}}}
    )
    runtime = ModelRuntime.create(agent_dir)
    assert runtime.errors == []
    assert runtime.find("p", "m") is not None
    assert not runtime.has_credentials("p")
    AuthStorage(agent_dir).set_api_key("p", "stored")
    assert runtime.has_credentials("p") and runtime.get_api_key("p") == "stored"


def test_schema_and_parse_errors(agent_dir: Path) -> None:
    path = write_models(agent_dir, {"providers": {"p": {"baseUrl": 5, "models": [{"name": "x"}]}}})
    with pytest.raises(ModelsJsonError) as info:
        load_models_json(path)
    assert str(info.value) == (
        "Invalid models.json schema:\n  - providers.p.baseUrl: must be string\n"
        f"  - providers.p.models.0.id: must have required properties id\n\nFile: {path}"
    )
    write_models(agent_dir, "{oops")
    with pytest.raises(ModelsJsonError, match=r"^Failed to parse models.json: .*\n\nFile: "):
        load_models_json(path)


def test_builtin_reroute_and_overrides(agent_dir: Path) -> None:
    write_models(
        agent_dir,
        {
            "providers": {
                "anthropic": {
                    "baseUrl": "http://proxy",
                    "headers": {"X-A": "1"},
                    "modelOverrides": {"claude-haiku-4-5": {"name": "Haiku!", "cost": {"input": 9}}},
                }
            }
        },
    )
    runtime = ModelRuntime.create(agent_dir)
    model = runtime.find("anthropic", "claude-haiku-4-5")
    assert model is not None
    assert model["baseUrl"] == "http://proxy" and model["headers"] == {"X-A": "1"}
    assert model["name"] == "Haiku!" and model["cost"]["input"] == 9 and model["cost"]["output"] == 5
    other = runtime.find("anthropic", "claude-sonnet-4-5") or runtime.get_all()[0]
    assert other["baseUrl"] in ("http://proxy", other["baseUrl"])


def test_custom_models_upsert_builtins(agent_dir: Path) -> None:
    write_models(
        agent_dir,
        {
            "providers": {
                "anthropic": {
                    "baseUrl": "http://x",
                    "apiKey": "k",
                    "api": "anthropic-messages",
                    "models": [{"id": "claude-haiku-4-5", "name": "Mine"}, {"id": "new-one"}],
                }
            }
        },
    )
    runtime = ModelRuntime.create(agent_dir)
    ids = [m["id"] for m in runtime.get_all() if m["provider"] == "anthropic"]
    assert ids.count("claude-haiku-4-5") == 1 and "new-one" in ids
    assert runtime.find("anthropic", "claude-haiku-4-5")["name"] == "Mine"  # type: ignore[index]


def test_key_resolution_order(agent_dir: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    marker = tmp_path / "runs"
    write_models(
        agent_dir,
        {
            "providers": {
                "openai": {"apiKey": f"!echo x >> {marker}; echo from-command", "baseUrl": "https://api.openai.com/v1"}
            }
        },
    )
    runtime = ModelRuntime.create(agent_dir)
    monkeypatch.setenv("OPENAI_API_KEY", "from-env")
    # Pi 1.4: models.json's apiKey wins over the environment ...
    assert runtime.get_api_key("openai") == "from-command"
    assert runtime.get_api_key("openai") == "from-command"
    assert marker.read_text().count("x") == 2  # run at request time, not cached
    # ... auth.json wins over both, and a runtime key over everything.
    AuthStorage(agent_dir).set_api_key("openai", "from-auth")
    assert runtime.get_api_key("openai") == "from-auth"
    runtime.set_runtime_api_key("openai", "from-cli")
    assert runtime.get_api_key("openai") == "from-cli"


def test_environment_is_used_when_models_json_has_no_key(agent_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_models(agent_dir, {"providers": {"openai": {"baseUrl": "http://proxy/v1"}}})
    monkeypatch.setenv("OPENAI_API_KEY", "from-env")
    runtime = ModelRuntime.create(agent_dir)
    assert runtime.get_api_key("openai") == "from-env"


def test_auth_header_and_header_values(agent_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HDR", "secret")
    write_models(
        agent_dir,
        {
            "providers": {
                "gw": {
                    "baseUrl": "http://gw",
                    "apiKey": "k1",
                    "api": "openai-completions",
                    "authHeader": True,
                    "headers": {"X-Token": "$HDR"},
                    "models": [{"id": "m"}],
                }
            }
        },
    )
    runtime = ModelRuntime.create(agent_dir)
    model = runtime.find("gw", "m")
    assert model is not None
    assert runtime.get_request_headers(model) == {"X-Token": "secret", "Authorization": "Bearer k1"}


def test_models_json_is_reread_on_refresh(agent_dir: Path) -> None:
    runtime = ModelRuntime.create(agent_dir)
    assert runtime.find("local", "a") is None
    write_models(
        agent_dir,
        {
            "providers": {
                "local": {"baseUrl": "http://x", "apiKey": "k", "api": "openai-completions", "models": [{"id": "a"}]}
            }
        },
    )
    runtime.refresh()
    assert runtime.find("local", "a") is not None
