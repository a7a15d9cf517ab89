"""Which key resolutions may wait (and go to a worker thread), and which run on the event loop."""

from __future__ import annotations

import json
from pathlib import Path

from pi_harness.coding.config.auth import AuthStorage
from pi_harness.coding.model_runtime import ModelRuntime


def runtime_with(tmp_path: Path, api_key: str, auth: dict[str, object] | None = None) -> ModelRuntime:
    provider = {"baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions", "apiKey": api_key}
    provider["models"] = [{"id": "m"}]
    (tmp_path / "models.json").write_text(json.dumps({"providers": {"corp": provider}}))
    if auth is not None:
        (tmp_path / "auth.json").write_text(json.dumps(auth))
    return ModelRuntime.create(tmp_path, AuthStorage(tmp_path))


def test_literal_and_environment_keys_resolve_without_waiting(tmp_path: Path) -> None:
    for value in ("literal-key", "$CORP_KEY", "CORP_KEY"):
        assert not runtime_with(tmp_path, value).api_key_may_block("corp"), value
    assert not runtime_with(tmp_path, "x").api_key_may_block("openai")  # nothing configured


def test_command_values_and_expired_sign_ins_may_wait(tmp_path: Path) -> None:
    assert runtime_with(tmp_path, "!printf k").api_key_may_block("corp")
    stored_command = {"corp": {"type": "api_key", "key": "!printf stored"}}
    assert runtime_with(tmp_path, "literal", stored_command).api_key_may_block("corp")
    expired = {"corp": {"type": "oauth", "access": "a", "refresh": "r", "expires": 1}}
    assert runtime_with(tmp_path, "literal", expired).api_key_may_block("corp")


def test_a_stored_credential_decides_alone(tmp_path: Path) -> None:
    # models.json's command is not consulted once auth.json has the provider (Pi 1.4's order).
    fresh = {"corp": {"type": "oauth", "access": "a", "refresh": "r", "expires": 10**15}}
    assert not runtime_with(tmp_path, "!printf k", fresh).api_key_may_block("corp")
    stored = {"corp": {"type": "api_key", "key": "stored-literal"}}
    runtime = runtime_with(tmp_path, "!printf k", stored)
    assert not runtime.api_key_may_block("corp")
    assert runtime.get_api_key("corp") == "stored-literal"
    runtime.set_runtime_api_key("corp", "!never-run")  # a runtime key is used as given
    assert not runtime.api_key_may_block("corp")


def test_api_key_now_resolves_what_cannot_wait_and_leaves_the_rest(tmp_path: Path) -> None:
    assert runtime_with(tmp_path, "literal-key").api_key_now("corp") == (True, "literal-key")
    assert runtime_with(tmp_path, "!printf k").api_key_now("corp") == (False, None)
    fresh = {"corp": {"type": "oauth", "access": "token-1", "refresh": "r", "expires": 10**15}}
    assert runtime_with(tmp_path, "!printf k", fresh).api_key_now("corp") == (True, "token-1")
    expired = {"corp": {"type": "oauth", "access": "token-1", "refresh": "r", "expires": 1}}
    runtime = runtime_with(tmp_path, "literal", expired)
    assert runtime.api_key_now("corp") == (False, None)
    assert runtime.get_api_key("corp") is None  # no refresh grant for this provider: no key
