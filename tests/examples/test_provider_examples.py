"""Custom providers: jev-router's virtual model, routing a real session between three models of
the fake server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from _examples_support import FAKE_API, load_example, sdk_session, tool_results

from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep, ToolCallStep


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as running:
        yield running


async def test_jev_router_plans_then_switches_to_the_cheap_model_after_the_first_edit(
    server: FakeLLMServer, tmp_path: Path
) -> None:
    server.push(
        ScriptedResponse(steps=[ToolCallStep("read", {"path": "missing.txt"}, id="c1")]),
        ScriptedResponse(steps=[ToolCallStep("write", {"path": "notes.txt", "content": "plan\n"}, id="c2")]),
        ScriptedResponse(steps=[TextStep("Written.")]),
        ScriptedResponse(steps=[TextStep("Still here.")]),
    )
    factory = load_example("jev_router").create_extension("fake", sol="sol", terra="terra", luna="luna")
    result = await sdk_session(server, tmp_path, extension_factories=[factory])
    session, runtime = result.session, result.session.model_runtime
    for model_id in ("sol", "terra", "luna"):
        runtime.add_model(server.model(FAKE_API, model_id=model_id))
    auto = runtime.find("jev", "auto")
    assert auto is not None and auto["name"] == "Auto (Jev)" and auto["contextWindow"] == 272_000
    await session.set_model(auto)

    await session.prompt("write the plan to notes.txt")
    await session.prompt("anything else?")

    assert [request.json["model"] for request in server.requests] == ["terra", "terra", "luna", "luna"]
    assert tool_results(session)[1][:2] == ("write", False)
    states = [
        e["data"]["state"]
        for e in session.session_manager.get_entries()
        if e.get("customType") == "pi.virtual-model-state"
    ]
    assert states == [{"phase": "planning", "model": "terra"}, {"phase": "implementation", "model": "luna"}]
    await result.runtime.shutdown()


def test_jev_router_helpers() -> None:
    jev = load_example("jev_router")
    messages = [
        {"role": "user", "content": "do it"},
        {"role": "toolResult", "toolName": "edit", "isError": True},
    ]
    assert not jev.edited_since_last_prompt(messages)
    assert jev.edited_since_last_prompt([*messages, {"role": "toolResult", "toolName": "write", "isError": False}])
    assert jev.last_user_text([{"role": "user", "content": [{"type": "text", "text": "a"}]}]) == "a"
