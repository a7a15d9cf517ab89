"""What the session announces as Pi 1.4.0 does: ``entry_appended`` only for an extension's custom
entries (and the ``context_edit`` of a recovery), ``model_change`` written even for the same
model, and the command-line model and thinking level for every session a runtime makes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _agent_session_helpers import API, Recorder, make_session

from pi_harness.coding.agent_session.session_errors import NOT_SAVED_YET
from pi_harness.coding.extensions.api import ExtensionAPI
from pi_harness.coding.sdk import create_agent_session
from pi_harness.coding.session_store import SessionManager
from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep


async def test_entry_appended_only_for_an_extensions_custom_entries(server: FakeLLMServer, project: Path) -> None:
    def noter(pi: ExtensionAPI) -> None:
        @pi.on("agent_end")
        def note(event: Any, ctx: Any) -> None:
            pi.append_entry("note", {"seen": True})
            first_user = next(e["id"] for e in ctx.session_manager.get_entries() if e["type"] == "message")
            pi.set_label(first_user, "start")  # a label entry: not announced

    server.push(ScriptedResponse(steps=[TextStep("hi")]))
    result = await make_session(server, project, extension_factories=[noter])
    session = result.session
    recorder = Recorder(session)
    await session.prompt("hello")
    assert session.model is not None
    await session.set_model(session.model)  # the same model: still recorded, as Pi does
    session.set_session_name("named")
    await session.listeners.drain()

    appended = recorder.of("entry_appended")
    assert [(e["entry"]["type"], e["entry"].get("customType")) for e in appended] == [("custom", "note")]
    assert appended[0]["entry"]["data"] == {"seen": True}
    kinds = [e["type"] for e in session.session_manager.get_entries()]
    assert kinds.count("model_change") == 2
    assert recorder.of("model_changed")  # in-process only; json and rpc mode do not write it
    await result.runtime.shutdown()


async def test_clone_and_new_sessions_start_with_the_given_thinking_level(server: FakeLLMServer, project: Path) -> None:
    thinker = server.model(API, reasoning=True)
    server.push(ScriptedResponse(steps=[TextStep("hi")]))
    result = await make_session(server, project, model=thinker, thinking_level="high", persistent=True)
    runtime = result.runtime
    with pytest.raises(ValueError, match=NOT_SAVED_YET.split(".")[0]):
        await runtime.clone()  # nothing written yet
    await runtime.session.prompt("hello")
    runtime.session.set_thinking_level("low")

    assert await runtime.clone() == {"cancelled": False}
    assert runtime.session.thinking_level == "high"  # the option again, not the old session's "low"
    assert await runtime.new_session() == {"cancelled": False}
    assert runtime.session.thinking_level == "high"
    await runtime.shutdown()


async def test_clone_without_options_restores_what_the_session_records(server: FakeLLMServer, project: Path) -> None:
    thinker = server.model(API, reasoning=True)
    server.push(ScriptedResponse(steps=[TextStep("hi")]))
    result = await make_session(server, project, model=thinker, persistent=True)
    runtime = result.runtime
    await runtime.session.prompt("hello")
    runtime.session.set_thinking_level("low")
    await runtime.clone()
    assert runtime.session.thinking_level == "low"
    cloned = [e["type"] for e in runtime.session.session_manager.get_entries()]
    assert cloned.count("thinking_level_change") == 2  # copied, nothing appended by the clone
    await runtime.shutdown()


async def test_resuming_with_another_model_does_not_rewrite_the_recorded_one(
    server: FakeLLMServer, project: Path, tmp_path: Path
) -> None:
    first, second = server.model(API, model_id="first"), server.model(API, model_id="second")
    server.push(ScriptedResponse(steps=[TextStep("one")]))
    sessions = tmp_path / "sessions"
    created = await make_session(
        server, project, model=first, session_manager=SessionManager.create(str(project), str(sessions))
    )
    await created.session.prompt("hello")
    path = created.session.session_manager.get_session_file()
    await created.runtime.shutdown()
    assert path is not None

    resumed = await create_agent_session(
        cwd=str(project), model=second, api_keys={"fake": "k"}, session_manager=SessionManager.open(path)
    )
    assert resumed.session.model is not None and resumed.session.model["id"] == "second"
    models = [e["modelId"] for e in resumed.session.session_manager.get_entries() if e["type"] == "model_change"]
    assert models == ["first"]  # as in Pi: a --model for one run is not recorded on resume
    await resumed.runtime.shutdown()
