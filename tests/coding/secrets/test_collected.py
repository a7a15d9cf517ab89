"""The secrets of a live session are collected again only when one of their sources changed."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pi_harness.coding.config.auth import AuthStorage
from pi_harness.coding.config.settings import SettingsManager
from pi_harness.coding.config.values import resolve_config_value
from pi_harness.coding.model_runtime import ModelRuntime
from pi_harness.coding.secrets import NamedSecret, masker_for
from pi_harness.coding.secrets.collected import CollectedSecrets


def test_unchanged_sources_give_the_same_collection(tmp_path: Path) -> None:
    (tmp_path / "auth.json").write_text(json.dumps({"corp": {"type": "api_key", "key": "stored-key-0001"}}))
    runtime = ModelRuntime.create(tmp_path, AuthStorage(tmp_path))
    collected = CollectedSecrets(runtime, {"CORP_TOKEN": "env-token-0001"})
    first = collected()
    assert {s.value for s in first} == {"stored-key-0001", "env-token-0001"}
    assert collected() is first  # nothing collected again


def test_an_auth_json_rewrite_of_the_same_size_is_seen_at_once(tmp_path: Path) -> None:
    path = tmp_path / "auth.json"
    path.write_text(json.dumps({"corp": {"type": "api_key", "key": "stored-key-0001"}}))
    runtime = ModelRuntime.create(tmp_path, AuthStorage(tmp_path))
    collected = CollectedSecrets(runtime, {})
    assert {s.value for s in collected()} == {"stored-key-0001"}
    stat = path.stat()
    path.write_text(json.dumps({"corp": {"type": "api_key", "key": "stored-key-0002"}}))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # even with the old timestamp
    assert {s.value for s in collected()} == {"stored-key-0002"}


def test_environment_store_keys_and_command_outputs_are_seen(tmp_path: Path) -> None:
    auth = AuthStorage.in_memory()
    runtime = ModelRuntime.create(tmp_path, auth)
    env: dict[str, str] = {}
    collected = CollectedSecrets(runtime, env, (NamedSecret("fixed", "fixed-secret-1"),))
    assert {s.value for s in collected()} == {"fixed-secret-1"}
    env["NEW_API_KEY"] = "from-the-environment"
    assert "from-the-environment" in {s.value for s in collected()}
    auth.set_api_key("corp", "kept-in-memory-1")
    assert "kept-in-memory-1" in {s.value for s in collected()}
    runtime.set_runtime_api_key("other", "given-with-a-flag")
    assert "given-with-a-flag" in {s.value for s in collected()}
    printed = f"printed-by-{tmp_path.name}"  # outputs are kept per process: a command of its own
    runtime.set_runtime_api_key("cmd", f"!printf {printed}")
    # A command's value counts once this process has run it.
    assert printed not in {s.value for s in collected()}
    assert resolve_config_value(f"!printf {printed}") == printed
    assert printed in {s.value for s in collected()}


def test_a_session_masker_sees_a_variable_set_after_its_first_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runtime = ModelRuntime.create(tmp_path, AuthStorage.in_memory())
    masker = masker_for(SettingsManager.in_memory(), runtime)
    assert masker.text("value-set-later-1") == "value-set-later-1"
    monkeypatch.setenv("LATER_API_KEY", "value-set-later-1")
    assert masker.text("value-set-later-1") == "[redacted:LATER_API_KEY]"
    monkeypatch.delenv("LATER_API_KEY")
    assert masker.text("value-set-later-1") == "value-set-later-1"
