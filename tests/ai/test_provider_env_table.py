"""Every provider's credential variable matches Pi's docs/providers.md (kept as a fact fixture)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from pi_harness.ai.env_keys import ENV_API_KEYS, PROVIDER_SETTINGS, get_env_api_key, provider_settings
from pi_harness.ai.models import get_providers

FIXTURE = json.loads((Path(__file__).parent.parent / "fixtures" / "providers_env.json").read_text("utf-8"))
_ROW = re.compile(r"^\|\s*(?P<label>[^|]+?)\s*\|\s*`(?P<var>[A-Z0-9_]+)`\s*\|$")


def _documented() -> dict[str, str]:
    """provider id -> the variable Pi's table gives it, parsed from the fixture's table lines."""
    rows: dict[str, str] = {}
    for line in FIXTURE["table"][2:]:
        match = _ROW.match(line)
        assert match, f"not a table row: {line!r}"
        for provider in FIXTURE["providers_by_label"][match["label"]]:
            rows[provider] = match["var"]
    return rows


DOCUMENTED = _documented()


def test_the_fixture_table_has_every_row() -> None:
    assert len(FIXTURE["table"]) - 2 == len(FIXTURE["providers_by_label"]) == 33
    assert DOCUMENTED["xiaomi-token-plan-ams"] == "XIAOMI_TOKEN_PLAN_AMS_API_KEY"


@pytest.mark.parametrize("provider", sorted(DOCUMENTED))
def test_the_documented_variable_is_the_primary_key_variable(provider: str) -> None:
    names = ENV_API_KEYS[provider]
    also = FIXTURE["also_recognized"].get(provider, [])
    # Pi reads the extra names it documents (ANTHROPIC_OAUTH_TOKEN) before the table's variable.
    assert [n for n in names if n not in also] == [DOCUMENTED[provider]]


@pytest.mark.parametrize("provider", sorted(FIXTURE["provider_specific"]))
def test_provider_specific_credentials(provider: str) -> None:
    facts = FIXTURE["provider_specific"][provider]
    assert list(ENV_API_KEYS.get(provider, ())) == facts["key"]
    assert list(PROVIDER_SETTINGS.get(provider, ())) == facts.get("settings", [])


def test_every_catalogue_provider_has_a_documented_credential() -> None:
    known = set(DOCUMENTED) | set(FIXTURE["provider_specific"])
    # openai-codex signs in with OAuth only; it has no variable in Pi either.
    assert set(get_providers()) - known == {"openai-codex"}
    assert set(ENV_API_KEYS) <= known


@pytest.mark.parametrize("provider", sorted(DOCUMENTED))
def test_the_key_is_read_from_the_documented_variable(monkeypatch: pytest.MonkeyPatch, provider: str) -> None:
    for names in ENV_API_KEYS.values():
        for name in names:
            monkeypatch.delenv(name, raising=False)
    assert get_env_api_key(provider) is None
    monkeypatch.setenv(DOCUMENTED[provider], "k-" + provider)
    assert get_env_api_key(provider) == "k-" + provider


def test_xiaomi_token_plans_do_not_take_the_plain_xiaomi_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XIAOMI_API_KEY", "plain")
    for region in ("ams", "cn", "sgp"):
        monkeypatch.delenv(f"XIAOMI_TOKEN_PLAN_{region.upper()}_API_KEY", raising=False)
        assert get_env_api_key(f"xiaomi-token-plan-{region}") is None
    assert get_env_api_key("xiaomi") == "plain"


def test_cloudflare_settings_come_from_overrides_then_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CLOUDFLARE_ACCOUNT_ID", raising=False)
    monkeypatch.delenv("CLOUDFLARE_GATEWAY_ID", raising=False)
    assert provider_settings("cloudflare-workers-ai") is None
    assert provider_settings("openai") == {}
    monkeypatch.setenv("CLOUDFLARE_ACCOUNT_ID", "env-acc")
    assert provider_settings("cloudflare-workers-ai") == {"CLOUDFLARE_ACCOUNT_ID": "env-acc"}
    assert provider_settings("cloudflare-ai-gateway") is None
    got = provider_settings("cloudflare-ai-gateway", {"CLOUDFLARE_ACCOUNT_ID": "a", "CLOUDFLARE_GATEWAY_ID": "g"})
    assert got == {"CLOUDFLARE_ACCOUNT_ID": "a", "CLOUDFLARE_GATEWAY_ID": "g"}
