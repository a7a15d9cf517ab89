"""``warnings.anthropicExtraUsage``: the warning about paid extra usage when an Anthropic model runs
on Claude subscription credentials (a signed-in ``auth.json`` entry or a ``sk-ant-oat`` token)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from pi_harness.cli.modes.interactive.extra_usage import EXTRA_USAGE_WARNING, uses_subscription_auth
from pi_harness.coding.config.auth import AuthStorage
from pi_harness.coding.model_runtime import ModelRuntime
from pi_harness.testing.fake_llm import FakeLLMServer

from .harness import run_pi

ANTHROPIC_MODEL = "anthropic/claude-haiku-4-5"
WARNING_START = EXTRA_USAGE_WARNING[:60]


def store_subscription_sign_in(agent_dir: Path) -> None:
    expires = int(time.time() * 1000) + 3_600_000
    entry = {"type": "oauth", "access": "sk-ant-oat01-test", "refresh": "refresh-token", "expires": expires}
    (agent_dir / "auth.json").write_text(json.dumps({"anthropic": entry}))


def set_warning(agent_dir: Path, enabled: bool) -> None:
    settings = json.loads((agent_dir / "settings.json").read_text())
    (agent_dir / "settings.json").write_text(json.dumps({**settings, "warnings": {"anthropicExtraUsage": enabled}}))


def test_subscription_credentials_are_a_sign_in_or_a_subscription_token(monkeypatch: pytest.MonkeyPatch) -> None:
    signed_in = AuthStorage.in_memory({"anthropic": {"type": "oauth", "access": "x", "refresh": "y", "expires": 0}})
    assert uses_subscription_auth(ModelRuntime(signed_in))
    assert not uses_subscription_auth(ModelRuntime(AuthStorage.in_memory({})))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-paid")
    assert not uses_subscription_auth(ModelRuntime(AuthStorage.in_memory({})))
    monkeypatch.setenv("ANTHROPIC_OAUTH_TOKEN", "sk-ant-oat01-plan")
    assert uses_subscription_auth(ModelRuntime(AuthStorage.in_memory({})))
    stored_key = AuthStorage.in_memory({"anthropic": {"type": "api_key", "key": "sk-ant-oat01-pasted"}})
    monkeypatch.delenv("ANTHROPIC_OAUTH_TOKEN")
    assert uses_subscription_auth(ModelRuntime(stored_key))


async def test_startup_on_a_signed_in_anthropic_model_warns_once(
    server: FakeLLMServer, project: Path, agent_dir: Path
) -> None:
    store_subscription_sign_in(agent_dir)
    async with run_pi(["--model", ANTHROPIC_MODEL]) as pi:
        await pi.started()
        await pi.wait_for(lambda: pi.scrollback_has(WARNING_START), "the extra-usage warning")
        await pi.submit("/model fake/fake-model")
        await pi.wait_for(lambda: pi.scrollback_has("Model: fake/fake-model"), "the switch away")
        await pi.submit(f"/model {ANTHROPIC_MODEL}")
        await pi.wait_for(lambda: pi.scrollback_has(f"Model: {ANTHROPIC_MODEL}"), "the switch back")
        assert pi.scrollback().count("Anthropic is signed in with a Claude subscription") == 1


async def test_switching_to_anthropic_on_a_subscription_token_warns(
    server: FakeLLMServer, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_OAUTH_TOKEN", "sk-ant-oat01-test")
    async with run_pi() as pi:
        await pi.started()
        assert not pi.mode.controller.extra_usage.shown  # the fake model is not Anthropic's
        await pi.submit(f"/model {ANTHROPIC_MODEL}")
        await pi.wait_for(lambda: pi.scrollback_has(WARNING_START), "the extra-usage warning")


async def test_the_setting_turns_the_warning_off(server: FakeLLMServer, project: Path, agent_dir: Path) -> None:
    store_subscription_sign_in(agent_dir)
    set_warning(agent_dir, False)
    async with run_pi() as pi:
        await pi.started()
        await pi.submit(f"/model {ANTHROPIC_MODEL}")
        await pi.wait_for(lambda: pi.scrollback_has(f"Model: {ANTHROPIC_MODEL}"), "the switch")
        await pi.submit("/session")  # a later command: the check of the switch has run by now
        await pi.wait_for(lambda: pi.scrollback_has("Session"), "the session info")
        assert not pi.mode.controller.extra_usage.shown
        assert not pi.scrollback_has(WARNING_START)
