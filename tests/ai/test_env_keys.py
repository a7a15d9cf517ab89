"""API keys from the environment."""

from __future__ import annotations

from pathlib import Path

import pytest

from pi_harness.ai.env_keys import AUTHENTICATED, env_var_names, get_env_api_key


@pytest.mark.parametrize(
    ("provider", "var"),
    [
        ("openai", "OPENAI_API_KEY"),
        ("anthropic", "ANTHROPIC_API_KEY"),
        ("google", "GEMINI_API_KEY"),
        ("groq", "GROQ_API_KEY"),
        ("cerebras", "CEREBRAS_API_KEY"),
        ("xai", "XAI_API_KEY"),
        ("openrouter", "OPENROUTER_API_KEY"),
        ("vercel-ai-gateway", "AI_GATEWAY_API_KEY"),
        ("zai", "ZAI_API_KEY"),
        ("mistral", "MISTRAL_API_KEY"),
        ("minimax", "MINIMAX_API_KEY"),
        ("minimax-cn", "MINIMAX_CN_API_KEY"),
        ("huggingface", "HF_TOKEN"),
        ("opencode", "OPENCODE_API_KEY"),
        ("opencode-go", "OPENCODE_API_KEY"),
        ("kimi-coding", "KIMI_API_KEY"),
        ("azure", "AZURE_OPENAI_API_KEY"),
    ],
)
def test_provider_key_from_its_variable(monkeypatch: pytest.MonkeyPatch, provider: str, var: str) -> None:
    assert get_env_api_key(provider) is None
    monkeypatch.setenv(var, "sk-test")
    assert get_env_api_key(provider) == "sk-test"
    assert var in env_var_names(provider)


def test_empty_variable_counts_as_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "")
    assert get_env_api_key("openai") is None


def test_anthropic_oauth_token_takes_precedence(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api")
    assert get_env_api_key("anthropic") == "sk-ant-api"
    monkeypatch.setenv("ANTHROPIC_OAUTH_TOKEN", "sk-ant-oat")
    assert get_env_api_key("anthropic") == "sk-ant-oat"


def test_github_copilot_reads_only_its_own_token(monkeypatch: pytest.MonkeyPatch) -> None:
    # Pi 1.4 no longer falls back to the generic GitHub CLI tokens.
    monkeypatch.setenv("GITHUB_TOKEN", "c")
    monkeypatch.setenv("GH_TOKEN", "b")
    assert get_env_api_key("github-copilot") is None
    monkeypatch.setenv("COPILOT_GITHUB_TOKEN", "a")
    assert get_env_api_key("github-copilot") == "a"


@pytest.mark.parametrize("provider", ["openai-codex", "google-gemini-cli", "google-antigravity"])
def test_oauth_only_providers_never_read_the_environment(monkeypatch: pytest.MonkeyPatch, provider: str) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk")
    monkeypatch.setenv("GEMINI_API_KEY", "g")
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "proj")
    assert get_env_api_key(provider) is None


def test_unknown_provider_has_no_key() -> None:
    assert get_env_api_key("my-local-server") is None
    assert env_var_names("my-local-server") == ()


@pytest.mark.parametrize(
    "variables",
    [
        {"AWS_PROFILE": "dev"},
        {"AWS_ACCESS_KEY_ID": "AKIA", "AWS_SECRET_ACCESS_KEY": "secret"},
        {"AWS_BEARER_TOKEN_BEDROCK": "tok"},
        {"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": "/creds"},
        {"AWS_CONTAINER_CREDENTIALS_FULL_URI": "http://169.254.170.2/creds"},
        {"AWS_WEB_IDENTITY_TOKEN_FILE": "/var/run/token"},
    ],
)
def test_bedrock_credentials_give_the_sentinel(monkeypatch: pytest.MonkeyPatch, variables: dict[str, str]) -> None:
    assert get_env_api_key("amazon-bedrock") is None
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    assert get_env_api_key("amazon-bedrock") == AUTHENTICATED == "<authenticated>"


def test_bedrock_access_key_alone_is_not_enough(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIA")
    assert get_env_api_key("amazon-bedrock") is None


def test_vertex_api_key_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GOOGLE_CLOUD_API_KEY", "vertex-key")
    assert get_env_api_key("google-vertex") == "vertex-key"


def test_vertex_adc_needs_credentials_project_and_location(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    creds = tmp_path / "adc.json"
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(creds))
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "proj")
    monkeypatch.setenv("GOOGLE_CLOUD_LOCATION", "us-central1")
    # file missing: no sentinel, and the negative answer is not cached
    assert get_env_api_key("google-vertex") is None
    creds.write_text("{}")
    assert get_env_api_key("google-vertex") == AUTHENTICATED
    monkeypatch.delenv("GOOGLE_CLOUD_LOCATION")
    assert get_env_api_key("google-vertex") is None


def test_vertex_adc_default_file_location_and_gcloud_project(
    monkeypatch: pytest.MonkeyPatch, isolated_home: Path
) -> None:
    monkeypatch.setenv("GCLOUD_PROJECT", "proj")
    monkeypatch.setenv("GOOGLE_CLOUD_LOCATION", "europe-west4")
    assert get_env_api_key("google-vertex") is None
    default = isolated_home / ".config" / "gcloud" / "application_default_credentials.json"
    default.parent.mkdir(parents=True)
    default.write_text("{}")
    assert get_env_api_key("google-vertex") == AUTHENTICATED
