from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from pi_harness.coding.config.auth import AuthStorage


def test_auth_json_is_created_0600_and_round_trips(agent_dir: Path) -> None:
    auth = AuthStorage(agent_dir)
    auth.set_api_key("anthropic", "sk-test")
    path = agent_dir / "auth.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text()) == {"anthropic": {"type": "api_key", "key": "sk-test"}}
    assert auth.get_api_key("anthropic") == "sk-test"
    auth.remove("anthropic")
    assert auth.get_api_key("anthropic") is None
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_key_values_resolve_env_and_commands(agent_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    auth = AuthStorage(agent_dir)
    monkeypatch.setenv("MY_KEY", "from-env")
    auth.set_api_key("a", "$MY_KEY")
    auth.set_api_key("b", "!printf 'from-cmd\\n'")
    auth.set_api_key("c", "!exit 3")
    assert auth.get_api_key("a") == "from-env"
    assert auth.get_api_key("b") == "from-cmd"
    assert auth.get_api_key("c") is None


def test_oauth_entries_expire(agent_dir: Path) -> None:
    auth = AuthStorage(agent_dir)
    auth.set("p", {"type": "oauth", "access": "tok", "refresh": "r", "expires": 1})
    assert auth.get_api_key("p") is None
    auth.set("p", {"type": "oauth", "access": "tok", "refresh": "r", "expires": 10**15})
    assert auth.get_api_key("p") == "tok"


def test_stale_lock_is_taken_over(agent_dir: Path) -> None:
    import os
    import time

    lock = agent_dir / "auth.json.lock"
    lock.mkdir()
    old = time.time() - 60
    os.utime(lock, (old, old))
    AuthStorage(agent_dir).set_api_key("x", "y")
    assert AuthStorage(agent_dir).get_api_key("x") == "y"
