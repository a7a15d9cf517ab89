"""``enableInstallTelemetry``: the provider attribution headers Pi sends to OpenRouter, NVIDIA NIM
and OpenCode, on while the setting is (its default), off when it is not, read per request."""

from __future__ import annotations

from pathlib import Path

import pytest
from _agent_session_helpers import API

from pi_harness.ai.types import Model
from pi_harness.coding.config.settings import SettingsManager
from pi_harness.coding.sdk import create_agent_session
from pi_harness.coding.session_store import SessionManager
from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep

OPENROUTER = {
    "x-openrouter-title": "pi-harness",
    "x-openrouter-categories": "cli-agent",
}


def as_provider(server: FakeLLMServer, provider: str) -> Model:
    model = dict(server.model(API))
    model["provider"] = provider
    return model  # type: ignore[return-value]


async def ask(server: FakeLLMServer, tmp_path: Path, provider: str, settings: SettingsManager) -> dict[str, str]:
    server.push(ScriptedResponse(steps=[TextStep("ok")]))
    result = await create_agent_session(
        cwd=str(tmp_path),
        model=as_provider(server, provider),
        api_keys={provider: "k"},
        session_manager=SessionManager.in_memory(str(tmp_path)),
        settings_manager=settings,
    )
    await result.session.prompt("hi")
    await result.runtime.shutdown()
    return server.requests[-1].headers


@pytest.fixture(autouse=True)
def no_telemetry_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PI_TELEMETRY", raising=False)


async def test_openrouter_gets_the_attribution_headers_by_default(server: FakeLLMServer, tmp_path: Path) -> None:
    headers = await ask(server, tmp_path, "openrouter", SettingsManager.in_memory())
    assert {k: headers.get(k) for k in OPENROUTER} == OPENROUTER


async def test_turning_install_telemetry_off_stops_them_from_the_next_request(
    server: FakeLLMServer, tmp_path: Path
) -> None:
    server.push(ScriptedResponse(steps=[TextStep("one")]), ScriptedResponse(steps=[TextStep("two")]))
    settings = SettingsManager.in_memory()
    result = await create_agent_session(
        cwd=str(tmp_path),
        model=as_provider(server, "openrouter"),
        api_keys={"openrouter": "k"},
        session_manager=SessionManager.in_memory(str(tmp_path)),
        settings_manager=settings,
    )
    await result.session.prompt("hi")
    settings.set("enableInstallTelemetry", False)
    await result.session.prompt("again")
    await result.runtime.shutdown()
    first, second = server.requests
    assert first.headers.get("x-openrouter-title") == "pi-harness"
    assert not any(k in second.headers for k in OPENROUTER)


async def test_the_environment_variable_decides_over_the_setting(
    server: FakeLLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PI_TELEMETRY", "yes")
    headers = await ask(server, tmp_path, "openrouter", SettingsManager.in_memory({"enableInstallTelemetry": False}))
    assert headers.get("x-openrouter-title") == "pi-harness"


@pytest.mark.parametrize(
    ("provider", "expected"),
    [("nvidia", {"x-billing-invoke-origin": "pi-harness"}), ("opencode", {"x-opencode-client": "pi-harness"}), ("fake", {})],
)
async def test_other_providers(server: FakeLLMServer, tmp_path: Path, provider: str, expected: dict[str, str]) -> None:
    headers = await ask(server, tmp_path, provider, SettingsManager.in_memory())
    names = ("x-billing-invoke-origin", "x-opencode-client", *OPENROUTER)
    assert {k: headers[k] for k in names if k in headers} == expected


async def test_a_configured_header_wins(server: FakeLLMServer, tmp_path: Path) -> None:
    model = as_provider(server, "openrouter")
    model["headers"] = {"x-openrouter-title": "mine"}
    server.push(ScriptedResponse(steps=[TextStep("ok")]))
    result = await create_agent_session(
        cwd=str(tmp_path),
        model=model,
        api_keys={"openrouter": "k"},
        session_manager=SessionManager.in_memory(str(tmp_path)),
        settings_manager=SettingsManager.in_memory(),
    )
    await result.session.prompt("hi")
    await result.runtime.shutdown()
    assert server.requests[-1].headers["x-openrouter-title"] == "mine"
    assert server.requests[-1].headers["x-openrouter-categories"] == "cli-agent"
    assert "http-referer" not in server.requests[-1].headers
