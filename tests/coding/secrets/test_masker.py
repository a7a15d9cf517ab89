"""Which values are secrets and how they are masked (``pi_harness.coding.secrets``)."""

from __future__ import annotations

import json
from pathlib import Path

from pi_harness.coding.config.auth import AuthStorage
from pi_harness.coding.config.values import resolve_config_value
from pi_harness.coding.model_runtime import ModelRuntime
from pi_harness.coding.secrets import NamedSecret, SecretMasker, collect_secrets, is_secret_env_name

OPENAI = "sk-proj-0123456789abcdef"


def test_secret_environment_names() -> None:
    for name in ("OPENAI_API_KEY", "GH_TOKEN", "AWS_SECRET_ACCESS_KEY", "DB_PASSWORD", "MY_APIKEY", "HF_TOKEN"):
        assert is_secret_env_name(name), name
    for name in ("TOKENIZERS_PARALLELISM", "KEYBOARD", "AWS_WEB_IDENTITY_TOKEN_FILE", "PATH", "HOME"):
        assert not is_secret_env_name(name), name


def test_environment_secrets_are_named_by_their_variable_and_short_values_are_ignored() -> None:
    env = {"OPENAI_API_KEY": OPENAI, "SHORT_TOKEN": "abc1234", "EDITOR_THEME": "solarized-dark-long"}
    assert collect_secrets(None, env) == (NamedSecret("OPENAI_API_KEY", OPENAI),)


def test_configured_credentials_and_their_names(tmp_path: Path) -> None:
    (tmp_path / "auth.json").write_text(
        json.dumps(
            {
                "anthropic": {
                    "type": "oauth",
                    "access": "oauth-access-token-1",
                    "refresh": "oauth-refresh-2",
                    "expires": 1,
                },
                "google": {"type": "api_key", "key": "$MY_GOOGLE_KEY"},
            }
        )
    )
    (tmp_path / "models.json").write_text(
        json.dumps(
            {
                "providers": {
                    "corp": {
                        "baseUrl": "http://127.0.0.1:9/v1",
                        "api": "openai-completions",
                        "apiKey": "!printf corp-key-from-command",
                        "headers": {"X-Corp-Auth": "corp-header-value"},
                        "models": [{"id": "m", "headers": {"X-Model-Auth": "model-header-value"}}],
                    }
                }
            }
        )
    )
    runtime = ModelRuntime.create(tmp_path, AuthStorage(tmp_path))
    runtime.set_runtime_api_key("openai", "runtime-key-12345")
    env = {"MY_GOOGLE_KEY": "google-key-from-env"}
    named = {s.value: s.name for s in collect_secrets(runtime, env)}
    assert named == {
        "oauth-access-token-1": "anthropic",
        "oauth-refresh-2": "anthropic",
        "google-key-from-env": "google",
        "corp-header-value": "corp",
        "model-header-value": "corp",
        "runtime-key-12345": "openai",
    }
    # A ``!command`` value counts once this process has run the command (never run to find out).
    assert resolve_config_value("!printf corp-key-from-command") == "corp-key-from-command"
    assert {s.value: s.name for s in collect_secrets(runtime, env)}["corp-key-from-command"] == "corp"


def test_masking_text_json_and_multiline_values() -> None:
    pem = "-----BEGIN KEY-----\nMIIBVwIBADANBgkqhkiG9w0BAQEFAASC\n-----END KEY-----"
    masker = SecretMasker.of([NamedSecret("OPENAI_API_KEY", OPENAI), NamedSecret("DEPLOY_PRIVATE_KEY", pem)])
    assert masker.text(f"key={OPENAI}!") == "key=[redacted:OPENAI_API_KEY]!"
    assert masker.text(json.dumps({"k": pem})) == '{"k": "[redacted:DEPLOY_PRIVATE_KEY]"}'
    assert masker.text(pem.replace("\n", "\r\n")) == "[redacted:DEPLOY_PRIVATE_KEY]"
    assert masker.text(f"{OPENAI[:10]}\n{OPENAI[10:]}") == f"{OPENAI[:10]}\n{OPENAI[10:]}"  # split: not found


def test_longer_secrets_are_masked_whole() -> None:
    masker = SecretMasker.of([NamedSecret("A_TOKEN", "abcdefgh"), NamedSecret("B_TOKEN", "abcdefgh-longer")])
    assert masker.text("abcdefgh-longer abcdefgh") == "[redacted:B_TOKEN] [redacted:A_TOKEN]"


def test_structures_are_copied_only_where_changed_and_image_data_is_kept() -> None:
    masker = SecretMasker.of([NamedSecret("OPENAI_API_KEY", OPENAI)])
    untouched = {"content": [{"type": "text", "text": "nothing here"}], "details": {"n": 1}}
    assert masker.value(untouched) is untouched
    image = {"type": "image", "data": f"AAAA{OPENAI}", "mimeType": "image/png"}
    result = {"content": [{"type": "text", "text": OPENAI}, image], "details": {"log": [OPENAI]}}
    masked = masker.value(result)
    assert masked["content"][0]["text"] == "[redacted:OPENAI_API_KEY]"
    assert masked["content"][1] is image
    assert masked["details"] == {"log": ["[redacted:OPENAI_API_KEY]"]}
    assert result["content"][0]["text"] == OPENAI  # the original is not changed


def test_a_disabled_masker_passes_everything() -> None:
    on = [True]
    masker = SecretMasker(lambda: [NamedSecret("OPENAI_API_KEY", OPENAI)], enabled=lambda: on[0])
    assert masker.text(OPENAI) == "[redacted:OPENAI_API_KEY]"
    on[0] = False
    assert masker.text(OPENAI) == OPENAI
    assert masker.snapshot().text(OPENAI) == OPENAI


def test_restore_turns_unambiguous_markers_back_into_values() -> None:
    masker = SecretMasker.of(
        [
            NamedSecret("OPENAI_API_KEY", OPENAI),
            NamedSecret("anthropic", "oauth-access-token-1"),
            NamedSecret("anthropic", "oauth-refresh-2"),
        ]
    )
    text = "a=[redacted:OPENAI_API_KEY] b=[redacted:anthropic] c=[redacted:unknown]"
    assert masker.restore(text) == f"a={OPENAI} b=[redacted:anthropic] c=[redacted:unknown]"
    assert masker.text(masker.restore("[redacted:OPENAI_API_KEY]")) == "[redacted:OPENAI_API_KEY]"
