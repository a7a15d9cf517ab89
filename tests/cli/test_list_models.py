from __future__ import annotations

import json
from pathlib import Path

import pytest
from _cli_helpers import RunPi

from pi_harness.cli.bootstrap import describe_no_model
from pi_harness.cli.list_models import format_token_count, fuzzy_filter, fuzzy_matches

MODELS = {
    "providers": {
        "local": {
            "baseUrl": "http://127.0.0.1:9/v1",
            "api": "openai-completions",
            "apiKey": "local-key",
            "models": [
                {"id": "qwen3-coder", "reasoning": True, "input": ["text", "image"], "contextWindow": 262144},
                {"id": "tiny", "contextWindow": 8192, "maxTokens": 1000},
            ],
        }
    }
}


@pytest.fixture(autouse=True)
def no_local_servers(agent_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The listing probes local model servers: keep the ports of this machine out of the tables."""
    (agent_dir / "settings.json").write_text(json.dumps({"localModels": {"autodiscover": False}}))
    for name in ("LLAMA_BASE_URL", "LLAMA_API_KEY"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def custom_models(agent_dir: Path) -> Path:
    path = agent_dir / "models.json"
    path.write_text(json.dumps(MODELS))
    return path


def test_table_of_a_custom_provider(run_pi: RunPi, custom_models: Path) -> None:
    result = run_pi("--list-models")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "provider  model        context  max-out  thinking  images",
        "local     qwen3-coder  262.1K   16.4K    yes       yes   ",
        "local     tiny         8.2K     1K       no        no    ",
    ]


def test_fuzzy_search(run_pi: RunPi, custom_models: Path) -> None:
    result = run_pi("--list-models", "qcoder")
    assert result.returncode == 0
    assert [line.split()[1] for line in result.stdout.splitlines()] == ["model", "qwen3-coder"]

    result = run_pi("--list-models", "zzz")
    assert result.returncode == 0
    assert result.stdout == 'No models matching "zzz"\n'


def test_no_models_without_credentials(run_pi: RunPi) -> None:
    # As Pi 1.4.0: an empty listing is an answer (standard output, exit code 0), not a failure.
    result = run_pi("--list-models")
    assert (result.returncode, result.stdout, result.stderr) == (0, describe_no_model() + "\n", "")
    # word for word what a prompt says without a model (which does fail)
    prompt = run_pi("-p", "hi", env={"PI_OFFLINE": "1"})
    assert (prompt.returncode, prompt.stderr) == (1, result.stdout)
    # a search does not change that: there is nothing to search
    searched = run_pi("--list-models", "gpt")
    assert (searched.returncode, searched.stdout) == (0, result.stdout)


def test_environment_keys_make_catalogue_models_available(run_pi: RunPi) -> None:
    result = run_pi("--list-models", "gpt", env={"OPENAI_API_KEY": "k"})
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert lines[0].startswith("provider")
    assert len(lines) > 2
    assert all(line.startswith("openai ") for line in lines[1:])


def test_broken_models_json_is_a_warning(run_pi: RunPi, agent_dir: Path) -> None:
    (agent_dir / "models.json").write_text("{nope")
    result = run_pi("--list-models", env={"OPENAI_API_KEY": "k"})  # the built-in models remain
    assert result.returncode == 0
    assert result.stderr.startswith("Warning: Failed to parse models.json:")


@pytest.mark.parametrize(
    ("count", "text"),
    [(999, "999"), (1000, "1K"), (128000, "128K"), (262144, "262.1K"), (1_000_000, "1M"), (1_048_576, "1.0M")],
)
def test_token_counts(count: int, text: str) -> None:
    assert format_token_count(count) == text


def test_fuzzy_matching() -> None:
    assert fuzzy_matches("cs4", "anthropic claude-sonnet-4")
    assert fuzzy_matches("GPT", "openai gpt-5")
    assert not fuzzy_matches("5gpt", "openai gpt-4o")
    assert fuzzy_matches("4gpt", "openai gpt-4o")  # letters/digits swap
    items = ["openai gpt-5", "anthropic claude-sonnet-4", "google gemini-2.5-pro"]
    assert fuzzy_filter(items, "an son", lambda s: s) == ["anthropic claude-sonnet-4"]
    assert fuzzy_filter(items, "  ", lambda s: s) == items


def test_every_catalogue_provider_is_listed_with_its_credential(
    run_pi: RunPi, agent_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With each provider's documented credential set, ``--list-models`` shows all of Pi's
    providers under Pi's ids, each with all of its models."""
    from pi_harness.ai.env_keys import ENV_API_KEYS, PROVIDER_SETTINGS
    from pi_harness.ai.models import get_models, get_providers

    env = {names[-1]: "k" for names in ENV_API_KEYS.values()}
    env.update({name: "x" for names in PROVIDER_SETTINGS.values() for name in names})
    env["AWS_PROFILE"] = "test"
    (agent_dir / "auth.json").write_text(
        json.dumps({"openai-codex": {"type": "oauth", "access": "a", "refresh": "r", "expires": 32503680000000}})
    )
    result = run_pi("--list-models", env=env)
    assert result.returncode == 0, result.stderr
    listed: dict[str, int] = {}
    for line in result.stdout.splitlines()[1:]:
        provider = line.split()[0]
        listed[provider] = listed.get(provider, 0) + 1
    assert listed == {p: len(get_models(p)) for p in get_providers()}
    # Byte for byte what Pi 1.4.0 prints in the same setup (its order is JavaScript's localeCompare).
    golden = Path(__file__).parent.parent / "fixtures" / "pi_list_models_all.txt"
    assert result.stdout == golden.read_text(encoding="utf-8")


def test_cloudflare_needs_its_account_id(run_pi: RunPi) -> None:
    base = {"CLOUDFLARE_API_KEY": "k", "CLOUDFLARE_GATEWAY_ID": ""}
    result = run_pi("--list-models", "cloudflare", env={**base, "CLOUDFLARE_ACCOUNT_ID": ""})
    assert "cloudflare-workers-ai" not in result.stdout
    result = run_pi("--list-models", "cloudflare", env={**base, "CLOUDFLARE_ACCOUNT_ID": "a"})
    providers = {line.split()[0] for line in result.stdout.splitlines()[1:]}
    assert providers == {"cloudflare-workers-ai"}


def test_an_unknown_models_json_field_is_a_warning(run_pi: RunPi, agent_dir: Path) -> None:
    local = {**MODELS["providers"]["local"], "baseUrll": "typo"}
    (agent_dir / "models.json").write_text(json.dumps({"providers": {"local": local}}))
    result = run_pi("--list-models")
    assert result.returncode == 0
    assert result.stderr.splitlines() == [
        f"Warning: models.json: unknown field providers.local.baseUrll ignored ({agent_dir / 'models.json'})"
    ]
    assert "qwen3-coder" in result.stdout
