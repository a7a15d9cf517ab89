"""Tree navigation, fork, clone, new/switch/import through the runtime (sessions.md 11)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from _agent_session_helpers import make_session, request_texts

from pi_harness.coding.agent_session import SessionError
from pi_harness.coding.extensions.api import ExtensionAPI
from pi_harness.coding.session_store import SessionManager
from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep


def user_entry_ids(manager: SessionManager) -> list[str]:
    return [e["id"] for e in manager.get_branch() if e["type"] == "message" and e["message"]["role"] == "user"]


async def test_navigate_tree_with_a_branch_summary(server: FakeLLMServer, project: Path) -> None:
    events: list[tuple[str, Any]] = []

    def watcher(pi: ExtensionAPI) -> None:
        @pi.on("session_before_tree")
        def before(event: Any, ctx: Any) -> Any:
            events.append(
                ("before", event.preparation["userWantsSummary"], len(event.preparation["entriesToSummarize"]))
            )
            return None

        @pi.on("session_tree")
        def after(event: Any, ctx: Any) -> None:
            events.append(("tree", event.new_leaf_id, event.get("fromExtension")))

    server.push(
        ScriptedResponse(steps=[TextStep("answer one")]),
        ScriptedResponse(steps=[TextStep("answer two")]),
        ScriptedResponse(steps=[TextStep("Went down the second path.")]),
        ScriptedResponse(steps=[TextStep("answer three")]),
    )
    result = await make_session(server, project, extension_factories=[watcher])
    session = result.session
    await session.prompt("one")
    await session.prompt("two")
    manager = session.session_manager
    first_user, second_user = user_entry_ids(manager)

    outcome = await session.navigate_tree(second_user, summarize=True, label="retry-point")

    assert outcome["cancelled"] is False and outcome["editorText"] == "two"
    summary_entry = outcome["summaryEntry"]
    assert summary_entry["type"] == "branch_summary"
    assert "Went down the second path." in summary_entry["summary"]
    assert manager.get_label(summary_entry["id"]) == "retry-point"
    assert events[0] == ("before", True, 1) and events[1][0] == "tree" and events[1][2] is False
    # The summary request was one user message holding the serialised branch.
    summary_request = request_texts(server.requests[2])
    assert summary_request[1].startswith("user:<conversation>") and "answer two" in summary_request[1]
    roles = [m["role"] for m in session.get_messages()]
    assert roles == ["system", "user", "assistant", "branchSummary"]

    await session.prompt("three")
    texts = request_texts(server.requests[3])
    assert "user:two" not in texts and texts[-1] == "user:three"
    assert any("Went down the second path." in t for t in texts)
    # Every branch's user messages, in file order: "two" stays on the branch left behind.
    assert session.get_fork_messages() == [
        {"entryId": first_user, "text": "one"},
        {"entryId": second_user, "text": "two"},
        {"entryId": user_entry_ids(manager)[-1], "text": "three"},
    ]
    await result.runtime.shutdown()


async def test_navigation_is_refused_while_streaming_and_cancellable_by_extensions(
    server: FakeLLMServer, project: Path
) -> None:
    def veto(pi: ExtensionAPI) -> None:
        @pi.on("session_before_tree")
        def before(event: Any, ctx: Any) -> Any:
            return {"cancel": True}

    server.push(
        ScriptedResponse(steps=[TextStep("x")]), ScriptedResponse(steps=[TextStep("slow " * 5)], chunk_delay_ms=30)
    )
    result = await make_session(server, project, extension_factories=[veto])
    session = result.session
    await session.prompt("one")
    target = user_entry_ids(session.session_manager)[0]
    leaf = session.session_manager.get_leaf_id()
    assert await session.navigate_tree(target) == {"cancelled": True}
    assert session.session_manager.get_leaf_id() == leaf
    await session.start_prompt("two")
    with pytest.raises(SessionError, match="while the agent is processing"):
        await session.navigate_tree(target)
    await session.wait_for_idle()
    await result.runtime.shutdown()


async def test_fork_and_clone_write_new_files(server: FakeLLMServer, project: Path) -> None:
    seen: list[Any] = []

    def fork_watch(pi: ExtensionAPI) -> None:
        @pi.on("session_before_fork")
        def before(event: Any, ctx: Any) -> Any:
            seen.append(("before_fork", event.entry_id))
            return None

        @pi.on("session_fork")
        def forked(event: Any, ctx: Any) -> None:
            seen.append(("fork", event.previous_session_file))

    server.push(ScriptedResponse(steps=[TextStep("answer one")]), ScriptedResponse(steps=[TextStep("answer two")]))
    result = await make_session(server, project, persistent=True, extension_factories=[fork_watch])
    runtime = result.runtime
    session = result.session
    await session.bind_extensions(mode="rpc")
    await session.prompt("one")
    await session.prompt("two")
    original = session.session_manager.get_session_file()
    assert original is not None
    second_user = user_entry_ids(session.session_manager)[1]

    forked = await runtime.fork(second_user)
    assert forked == {"text": "two", "cancelled": False}
    fork_file = runtime.session.session_manager.get_session_file()
    assert fork_file is not None and fork_file != original and fork_file.exists()
    header = runtime.session.session_manager.get_header()
    assert header["parentSession"] == str(original)
    assert [m["role"] for m in runtime.session.get_messages()] == ["system", "user", "assistant"]
    assert seen == [("before_fork", second_user), ("fork", str(original))]
    assert result.session.is_disposed

    before_clone = runtime.session
    assert await runtime.clone() == {"cancelled": False}
    clone_file = runtime.session.session_manager.get_session_file()
    assert clone_file not in (original, fork_file)
    assert runtime.session is not before_clone
    assert [m["role"] for m in runtime.session.get_messages()] == ["system", "user", "assistant"]
    assert runtime.session.session_manager.get_header()["parentSession"] == str(fork_file)

    with pytest.raises(ValueError, match="Invalid entry ID for forking"):
        await runtime.fork("nope")
    await runtime.shutdown()


async def test_new_switch_and_import(server: FakeLLMServer, project: Path, tmp_path: Path) -> None:
    server.push(ScriptedResponse(steps=[TextStep("first")]))
    result = await make_session(server, project, persistent=True)
    runtime = result.runtime
    await result.session.prompt("hello")
    first_file = result.session.session_manager.get_session_file()
    assert first_file is not None

    assert await runtime.new_session(parent_session=str(first_file)) == {"cancelled": False}
    fresh = runtime.session
    assert fresh.get_messages() == [] and fresh.session_manager.get_header()["parentSession"] == str(first_file)
    assert fresh.model is not None and fresh.model["id"] == "fake-model"

    assert await runtime.switch_session(str(first_file)) == {"cancelled": False}
    assert runtime.session.get_last_assistant_text() == "first"

    outside = tmp_path / "other" / "session.jsonl"
    outside.parent.mkdir()
    outside.write_text(first_file.read_text())
    assert await runtime.import_from_jsonl(str(outside)) == {"cancelled": False}
    imported = runtime.session.session_manager
    assert imported.get_header()["parentSession"] == str(outside)
    assert imported.get_session_file() is not None and imported.get_session_file().exists()
    assert runtime.session.get_last_assistant_text() == "first"
    await runtime.shutdown()


async def test_new_session_can_be_cancelled(server: FakeLLMServer, project: Path) -> None:
    def veto(pi: ExtensionAPI) -> None:
        @pi.on("session_before_switch")
        def before(event: Any, ctx: Any) -> Any:
            return {"cancel": event.reason == "new"}

    result = await make_session(server, project, extension_factories=[veto])
    assert await result.runtime.new_session() == {"cancelled": True}
    assert result.runtime.session is result.session and not result.session.is_disposed
    await result.runtime.shutdown()


async def test_entries_and_tree_views(server: FakeLLMServer, project: Path) -> None:
    server.push(ScriptedResponse(steps=[TextStep("a")]))
    result = await make_session(server, project)
    session = result.session
    await session.prompt("q")
    everything = session.get_entries()
    assert everything["leafId"] == session.session_manager.get_leaf_id()
    ids = [e["id"] for e in everything["entries"]]
    later = session.get_entries(since=ids[1])
    assert [e["id"] for e in later["entries"]] == ids[2:]
    with pytest.raises(ValueError, match="Entry not found: nope"):  # Pi's text for get_entries
        session.get_entries(since="nope")
    tree = session.get_tree()
    assert len(tree) == 1 and tree[0]["entry"]["id"] == ids[0]
    depth, node = 0, tree[0]
    while node["children"]:
        node, depth = node["children"][0], depth + 1
    assert depth == len(ids) - 1
    session.set_session_name("  My work ")
    assert session.get_state()["sessionName"] == "My work"
    with pytest.raises(ValueError, match=r"^Session name cannot be empty$"):
        session.set_session_name("   ")
    await result.runtime.shutdown()
