"""Virtual models in the model runtime: registration rules, availability, routing checks, and a
session's router state on the branch (a real session on the fake server)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pi_harness.coding.config.auth import AuthStorage
from pi_harness.coding.config.settings import SettingsManager
from pi_harness.coding.model_runtime import ModelRuntime
from pi_harness.coding.sdk import create_agent_session
from pi_harness.coding.session_store import SessionManager
from pi_harness.coding.virtual_models import VIRTUAL_MODEL_API, VirtualModelError
from pi_harness.testing.fake_llm import FakeLLMServer, HTTPErrorSpec, ScriptedResponse, TextStep


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as running:
        yield running


def _runtime(server: FakeLLMServer | None = None) -> ModelRuntime:
    runtime = ModelRuntime(AuthStorage.in_memory())
    if server is not None:
        for model_id in ("small", "big"):
            runtime.add_model(server.model("openai-completions", model_id))
        runtime.set_runtime_api_key("fake", "test-key")
    return runtime


def _to(provider: str, model_id: str, level: str = "medium", **extra: Any) -> Any:
    return lambda request: {"model": {"provider": provider, "id": model_id}, "thinkingLevel": level, **extra}


def test_a_virtual_model_is_listed_with_its_declared_limits() -> None:
    runtime = _runtime()
    runtime.register_virtual_model(
        {"provider": "router", "id": "auto", "name": "Auto", "thinkingLevels": ["low", "high"], "contextWindow": 5000,
         "route": _to("x", "y")}
    )  # fmt: skip
    model = runtime.find("router", "auto")
    assert model is not None and model["api"] == VIRTUAL_MODEL_API
    assert (model["contextWindow"], model["maxTokens"], model["reasoning"], model["input"]) == (
        5000, 0, True, ["text", "image"]
    )  # fmt: skip
    assert model.get("thinkingLevelMap", {})["low"] == "low" and model.get("thinkingLevelMap", {})["medium"] is None
    # A provider id that only lists virtual models needs no credentials.
    assert runtime.has_credentials("router")
    assert any(m["provider"] == "router" for m in runtime.get_available())
    assert runtime.get_physical_model("router", "auto") is None
    runtime.unregister_virtual_model("router", "auto")
    assert runtime.find("router", "auto") is None and not runtime.has_credentials("router")


def test_registration_errors() -> None:
    runtime = _runtime()
    with pytest.raises(VirtualModelError, match="must not be empty"):
        runtime.register_virtual_model({"provider": " ", "id": "auto", "route": _to("a", "b")})
    physical = runtime.get_all()[0]
    with pytest.raises(VirtualModelError, match="conflicts with a physical model"):
        runtime.register_virtual_model({"provider": physical["provider"], "id": physical["id"], "route": _to("a", "b")})
    with pytest.raises(VirtualModelError, match="route must be a function"):
        runtime.register_virtual_model({"provider": "router", "id": "auto"})


async def test_routing_checks_the_target(server: FakeLLMServer) -> None:
    runtime = _runtime(server)
    runtime.register_virtual_model({"provider": "router", "id": "auto", "route": _to("fake", "big", "xhigh")})
    runtime.register_virtual_model({"provider": "router", "id": "loop", "route": _to("router", "auto")})
    runtime.register_virtual_model({"provider": "router", "id": "keyless", "route": _to("openai", "gpt-4o")})
    auto = runtime.find("router", "auto")
    assert auto is not None
    routed = await runtime.resolve_model(auto, [], reason="user", thinking_level="off")
    # Clamped to the target, which has no reasoning.
    assert (routed.model["id"], routed.thinking_level) == ("big", "off")
    for model_id, reason in (("loop", "which is not a physical model"), ("keyless", "which has no credentials")):
        model = runtime.find("router", model_id)
        assert model is not None
        with pytest.raises(VirtualModelError, match=reason):
            await runtime.resolve_model(model, [], reason="user", thinking_level="off")


async def test_router_state_is_kept_on_the_branch(server: FakeLLMServer, tmp_path: Path) -> None:
    seen: list[tuple[str, object, str | None]] = []

    async def route(request: Any) -> Any:
        previous = request.get("previous")
        seen.append((request["reason"], request.get("state"), previous["model"]["id"] if previous else None))
        state = request.get("state")
        # A new object only on the first request; returning the same object keeps it.
        return {"model": {"provider": "fake", "id": "small"}, "thinkingLevel": "off", "state": state or {"phase": 1}}

    runtime = _runtime(server)
    runtime.register_virtual_model({"provider": "router", "id": "auto", "route": route})
    server.push(ScriptedResponse(steps=[TextStep("one")]), ScriptedResponse(steps=[TextStep("two")]))
    created = await create_agent_session(
        cwd=str(tmp_path),
        model="router/auto",
        model_runtime=runtime,
        settings_manager=SettingsManager.in_memory({}),
        session_manager=SessionManager.in_memory(str(tmp_path)),
    )
    session = created.session
    await session.prompt("first")
    await session.prompt("second")
    assert seen == [("user", None, None), ("user", {"phase": 1}, "small")]
    states = [e for e in session.session_manager.get_entries() if e["type"] == "custom"]
    assert [e["data"] for e in states] == [{"provider": "router", "modelId": "auto", "state": {"phase": 1}}]
    assert [r.json["model"] for r in server.requests] == ["small", "small"]
    assert session.model is not None and session.model["id"] == "auto"  # the selection stays virtual
    await session.dispose()


async def test_a_retry_is_routed_with_the_failed_request(server: FakeLLMServer, tmp_path: Path) -> None:
    seen: list[tuple[str, str | None, str | None]] = []

    def route(request: Any) -> Any:
        failed = request.get("failed")
        message = failed["message"] if failed else {}
        seen.append((request["reason"], failed["model"]["id"] if failed else None, message.get("stopReason")))
        # A retry moves to the other model.
        return {"model": {"provider": "fake", "id": "big" if failed else "small"}, "thinkingLevel": "off"}

    runtime = _runtime(server)
    runtime.register_virtual_model({"provider": "router", "id": "auto", "route": route})
    server.push(
        ScriptedResponse(http_error=HTTPErrorSpec(503, "overloaded", type="server_error")),
        ScriptedResponse(steps=[TextStep("ok")]),
    )
    created = await create_agent_session(
        cwd=str(tmp_path),
        model="router/auto",
        model_runtime=runtime,
        settings_manager=SettingsManager.in_memory({"retry": {"baseDelayMs": 1, "maxAgentDelayMs": 5}}),
        session_manager=SessionManager.in_memory(str(tmp_path)),
    )
    session = created.session
    await session.prompt("hi")
    assert seen == [("user", None, None), ("retry", "small", "error")]
    assert [r.json["model"] for r in server.requests] == ["small", "big"]
    await session.dispose()
