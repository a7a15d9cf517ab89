from __future__ import annotations

import json
from pathlib import Path

import pytest
from _cli_helpers import RunPi

from pi_harness.cli.subcommands.auth import check_auth, resolve_credential
from pi_harness.coding.model_runtime import ModelRuntime

CUSTOM_PROVIDER = {
    "providers": {
        "local": {
            "baseUrl": "http://127.0.0.1:9/v1",
            "api": "openai-completions",
            "apiKey": "!printf secret-from-cmd",
            "models": [{"id": "my-model", "name": "My Model", "reasoning": True, "input": ["text", "image"]}],
        }
    }
}


def write_json(path: Path, data: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def test_auth_json_key_is_ready(run_pi: RunPi, agent_dir: Path) -> None:
    write_json(agent_dir / "auth.json", {"openai": {"type": "api_key", "key": "sk-stored"}})
    result = run_pi("auth", "check", "--provider", "openai")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "ready: openai (auth.json)\n"
    assert "sk-stored" not in result.stdout


def test_environment_key_is_ready(run_pi: RunPi) -> None:
    result = run_pi("auth", "check", "--provider", "openai", env={"OPENAI_API_KEY": "sk-env"})
    assert result.returncode == 0, result.stderr
    assert result.stdout == "ready: openai (environment (OPENAI_API_KEY))\n"


def test_models_json_command_key(run_pi: RunPi, agent_dir: Path) -> None:
    write_json(agent_dir / "models.json", CUSTOM_PROVIDER)
    result = run_pi("auth", "check", "--model", "local/my-model")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "ready: local/my-model (models.json)\n"

    result = run_pi("auth", "print-api-key", "--provider", "local")
    assert result.returncode == 0, result.stderr
    assert result.stdout == "secret-from-cmd\n"


def test_failing_command_key_is_not_ready(run_pi: RunPi, agent_dir: Path) -> None:
    broken = json.loads(json.dumps(CUSTOM_PROVIDER))
    broken["providers"]["local"]["apiKey"] = "!exit 3"
    write_json(agent_dir / "models.json", broken)
    result = run_pi("auth", "check", "--provider", "local")
    assert result.returncode == 1
    assert result.stdout.startswith("not_ready: No credentials for local.")


def test_missing_key_is_not_ready(run_pi: RunPi, agent_dir: Path) -> None:
    result = run_pi("auth", "check", "--provider", "openai")
    assert result.returncode == 1
    assert result.stdout.startswith("not_ready: No credentials for openai. To fix: set OPENAI_API_KEY")
    assert str(agent_dir / "auth.json") in result.stdout

    result = run_pi("auth", "print-api-key", "--provider", "openai")
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.startswith("not_ready: No credentials for openai.")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["check", "--provider", "nope"], 'invalid: Unknown provider "nope"'),
        (["check", "--model", "no-such-model-xyz"], 'invalid: Model "no-such-model-xyz" not found'),
    ],
)
def test_unknown_targets_are_invalid(run_pi: RunPi, args: list[str], message: str) -> None:
    result = run_pi("auth", *args)
    assert result.returncode == 2
    assert result.stderr.startswith(message)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["check", "--bogus"], 'Error: Unknown option --bogus for "auth".'),
        (["frobnicate"], 'Error: Unknown auth action "frobnicate"'),
        (["check", "--provider"], "Error: Missing value for --provider"),
        (["check", "extra"], "Error: Unexpected argument: extra"),
    ],
)
def test_bad_arguments_are_invalid(run_pi: RunPi, args: list[str], message: str) -> None:
    result = run_pi("auth", *args)
    assert result.returncode == 2
    assert result.stderr.startswith(message)


def test_usage(run_pi: RunPi) -> None:
    assert run_pi("auth").returncode == 2
    result = run_pi("auth", "--help")
    assert result.returncode == 0 and result.stdout.startswith("Usage: pi auth")


def test_broken_models_json_is_invalid(run_pi: RunPi, agent_dir: Path) -> None:
    (agent_dir / "models.json").write_text("{broken")
    result = run_pi("auth", "check", "--provider", "openai", "--json")
    assert result.returncode == 2
    data = json.loads(result.stdout)
    assert data["status"] == "invalid"
    assert data["error"].startswith("Failed to parse models.json:")


def test_json_output(run_pi: RunPi, agent_dir: Path) -> None:
    write_json(agent_dir / "models.json", CUSTOM_PROVIDER)
    result = run_pi("auth", "check", "--model", "my-model", "--json")
    assert result.returncode == 0
    data = json.loads(result.stdout)
    assert data == {
        "status": "ready",
        "provider": "local",
        "model": "my-model",
        "source": "models.json",
        "message": "Credentials for local from models.json",
    }

    result = run_pi("auth", "print-api-key", "--provider", "local", "--json")
    assert json.loads(result.stdout)["apiKey"] == "secret-from-cmd"

    result = run_pi("auth", "check", "--provider", "anthropic", "--json")
    assert result.returncode == 1
    data = json.loads(result.stdout)
    assert data["status"] == "not_ready"
    assert data["envVars"] == ["ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY"]


def test_bearer_token_from_oauth(run_pi: RunPi, agent_dir: Path) -> None:
    write_json(
        agent_dir / "auth.json",
        {
            "anthropic": {"type": "oauth", "access": "oauth-access", "refresh": "r", "expires": 10**15},
            "openai": {"type": "oauth", "access": "old", "refresh": "r", "expires": 1},
        },
    )
    result = run_pi("auth", "print-bearer-token", "--provider", "anthropic")
    assert result.returncode == 0
    assert result.stdout == "oauth-access\n"
    result = run_pi("auth", "check", "--provider", "openai")
    assert result.returncode == 1
    assert "OAuth token has expired" in result.stdout


def test_default_target_comes_from_settings(run_pi: RunPi, agent_dir: Path) -> None:
    write_json(agent_dir / "settings.json", {"defaultProvider": "openai", "defaultModel": "gpt-4o"})
    assert run_pi("auth", "check").returncode == 1
    result = run_pi("auth", "check", env={"OPENAI_API_KEY": "k"})
    assert result.returncode == 0
    assert result.stdout == "ready: openai/gpt-4o (environment (OPENAI_API_KEY))\n"


def test_without_any_target_any_credential_counts(run_pi: RunPi) -> None:
    assert run_pi("auth", "check").returncode == 1
    result = run_pi("auth", "check", env={"GEMINI_API_KEY": "g"})
    assert result.returncode == 0
    assert result.stdout == "ready: Credentials found for: google\n"
    assert run_pi("auth", "print-api-key", env={"GEMINI_API_KEY": "g"}).returncode == 2


def test_resolution_agrees_with_the_model_runtime(agent_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_json(agent_dir / "models.json", CUSTOM_PROVIDER)
    write_json(agent_dir / "auth.json", {"openai": {"type": "api_key", "key": "sk-stored"}})
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    monkeypatch.setenv("GEMINI_API_KEY", "g-env")
    runtime = ModelRuntime.create(agent_dir)
    for provider in ("openai", "google", "local", "anthropic"):
        assert resolve_credential(runtime, provider).value == runtime.get_api_key(provider)
    assert resolve_credential(runtime, "openai").source == "auth.json"  # auth.json beats the environment
    report = check_auth(runtime, provider="local", cwd=agent_dir)
    assert (report.status, report.credential) == ("ready", "secret-from-cmd")


def test_a_model_offered_by_several_providers_means_the_one_with_credentials(run_pi: RunPi) -> None:
    result = run_pi("auth", "check", "--model", "gpt-4o", env={"OPENAI_API_KEY": "k"})
    assert result.returncode == 0
    assert result.stdout == "ready: openai/gpt-4o (environment (OPENAI_API_KEY))\n"


def test_cloudflare_without_its_account_id_is_not_ready(run_pi: RunPi, agent_dir: Path) -> None:
    env = {"CLOUDFLARE_API_KEY": "cf", "CLOUDFLARE_ACCOUNT_ID": ""}
    result = run_pi("auth", "check", "--provider", "cloudflare-workers-ai", env=env)
    assert result.returncode == 1
    assert result.stdout == (
        "not_ready: No usable credentials for cloudflare-workers-ai: set CLOUDFLARE_ACCOUNT_ID "
        "(environment, or the env object of its auth.json entry).\n"
    )
    write_json(
        agent_dir / "auth.json", {"cloudflare-workers-ai": {"type": "api_key", "env": {"CLOUDFLARE_ACCOUNT_ID": "a"}}}
    )
    result = run_pi("auth", "check", "--provider", "cloudflare-workers-ai", env=env)
    assert result.returncode == 0, result.stdout
    assert result.stdout == "ready: cloudflare-workers-ai (environment (CLOUDFLARE_API_KEY))\n"
