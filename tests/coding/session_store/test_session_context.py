"""Rebuilding the model context from the active path."""

from __future__ import annotations

from pathlib import Path

import pytest
from _session_helpers import assistant, roles, tool_result, user

from pi_harness.coding.session_store import (
    SessionManager,
    SystemState,
    build_session_context,
    replay_system_messages,
    system_message_patch,
)
from pi_harness.coding.session_store.ids import iso_to_ms


def test_empty_session_context(tmp_path: Path) -> None:
    context = SessionManager.in_memory(str(tmp_path)).build_session_context()
    assert context.messages == [] and context.thinking_level == "off" and context.model is None
    assert build_session_context([]).messages == []


def test_thinking_level_and_model_follow_the_path(tmp_path: Path) -> None:
    manager = SessionManager.in_memory(str(tmp_path))
    manager.append_model_change("openai", "gpt-5")
    manager.append_thinking_level_change("high")
    start = manager.append_message(user("q"))  # type: ignore[arg-type]
    manager.append_message(assistant("a", provider="anthropic", model="claude"))  # type: ignore[arg-type]
    context = manager.build_session_context()
    assert context.thinking_level == "high"
    assert context.model == {"provider": "anthropic", "modelId": "claude"}  # a later assistant wins
    manager.append_model_change("google", "gemini")
    manager.append_thinking_level_change("low")
    assert manager.build_session_context().model == {"provider": "google", "modelId": "gemini"}
    manager.branch(start)
    assert manager.build_session_context().model == {"provider": "openai", "modelId": "gpt-5"}
    assert manager.build_session_context().thinking_level == "high"


def test_entry_conversion(tmp_path: Path) -> None:
    manager = SessionManager.in_memory(str(tmp_path))
    manager.append_custom("state", {"x": 1})
    custom_id = manager.append_custom_message("ext", [{"type": "text", "text": "note"}], False, {"hidden": 1})
    manager.append_usage("cache_warm", "p", "m", {"input": 1})  # type: ignore[typeddict-item]
    manager.append_session_info("name")
    manager.append_message(
        {
            "role": "bashExecution",
            "command": "ls",
            "output": "a",
            "exitCode": 0,
            "cancelled": False,
            "truncated": False,
            "timestamp": 5,
        }
    )
    manager.append_branch_summary("x", "")  # empty summaries contribute nothing
    manager.append_branch_summary("x", "summary")
    messages = manager.build_session_context().messages
    assert roles(messages) == ["custom", "bashExecution", "branchSummary"]
    custom = messages[0]
    entry = manager.get_entry(custom_id)
    assert entry is not None
    assert custom == {
        "role": "custom",
        "customType": "ext",
        "content": [{"type": "text", "text": "note"}],
        "display": False,
        "details": {"hidden": 1},
        "timestamp": iso_to_ms(entry["timestamp"]),
    }
    assert messages[2] == {
        "role": "branchSummary",
        "summary": "summary",
        "fromId": "x",
        "timestamp": messages[2]["timestamp"],
    }


def test_null_content_is_normalised(tmp_path: Path) -> None:
    manager = SessionManager.in_memory(str(tmp_path))
    manager.append_message({"role": "user", "content": None, "timestamp": 1})  # type: ignore[typeddict-item]
    manager.append_message({**assistant("x"), "content": None})  # type: ignore[arg-type]
    first, second = manager.build_session_context().messages
    assert first["content"] == "" and second["content"] == []


def _compacted_session(tmp_path: Path) -> tuple[SessionManager, list[str]]:
    manager = SessionManager.in_memory(str(tmp_path))
    ids = [
        manager.append_message(user("old question")),  # type: ignore[arg-type]
        manager.append_message(assistant("old answer")),  # type: ignore[arg-type]
        manager.append_message(user("kept question")),  # type: ignore[arg-type]
        manager.append_message(assistant("", calls=[("c1", "read", {"path": "a.py"})])),  # type: ignore[arg-type]
        manager.append_message(tool_result("c1", "file body")),  # type: ignore[arg-type]
    ]
    ids.append(manager.append_compaction("## Goal\nsummary", ids[2], 5000))
    ids.append(manager.append_message(assistant("after compaction")))  # type: ignore[arg-type]
    return manager, ids


def test_compaction_keeps_from_first_kept_entry(tmp_path: Path) -> None:
    manager, ids = _compacted_session(tmp_path)
    projection = manager.build_session_projection()
    assert roles(projection.messages) == ["compactionSummary", "user", "assistant", "toolResult", "assistant"]
    summary = projection.messages[0]
    assert summary["summary"] == "## Goal\nsummary" and summary["tokensBefore"] == 5000  # type: ignore[typeddict-item]
    assert projection.compaction is not None and projection.compaction["id"] == ids[5]
    assert [e["id"] for e in projection.entries] == [ids[5], ids[2], ids[3], ids[4], ids[6]]


def test_only_the_latest_compaction_counts(tmp_path: Path) -> None:
    manager, ids = _compacted_session(tmp_path)
    later = manager.append_message(user("newest"))  # type: ignore[arg-type]
    manager.append_compaction("second summary", ids[6], 100)
    messages = manager.build_session_context().messages
    assert roles(messages) == ["compactionSummary", "assistant", "user"]
    assert messages[0]["summary"] == "second summary"  # type: ignore[typeddict-item]
    assert messages[2]["content"][0]["text"] == "newest"  # type: ignore[index]
    assert later


def test_compaction_with_first_kept_off_the_path_keeps_nothing_before_it(tmp_path: Path) -> None:
    manager, _ = _compacted_session(tmp_path)
    manager.append_compaction("s", "unknown1", 1)
    assert roles(manager.build_session_context().messages) == ["compactionSummary"]


def test_context_edits_omit_and_replace(tmp_path: Path) -> None:
    manager = SessionManager.in_memory(str(tmp_path))
    question = manager.append_message(user("original question"))  # type: ignore[arg-type]
    answer = manager.append_message(assistant("wrong answer"))  # type: ignore[arg-type]
    custom = manager.append_custom_message("ext", "custom text", True)
    before_edits = manager.get_leaf_id()
    manager.append_context_edit(question, {"content": "first rewrite"})
    manager.append_context_edit(question, {"content": "second rewrite"})  # the latest edit wins
    manager.append_context_edit(answer, {"content": "better answer"})
    manager.append_context_edit(custom, None)
    messages = manager.build_session_context().messages
    assert roles(messages) == ["user", "assistant"]
    assert messages[0]["content"] == "second rewrite"
    assert messages[1]["content"] == [{"type": "text", "text": "better answer"}]  # normalised for assistants
    assert messages[1]["provider"] == "anthropic"  # metadata kept  # type: ignore[typeddict-item]
    stored = manager.get_entry(answer)
    assert stored is not None and stored["message"]["content"][0]["text"] == "wrong answer"  # type: ignore[index,typeddict-item]
    # Edits are branch-local: before them the original content is visible again.
    assert before_edits is not None
    manager.branch(before_edits)
    assert roles(manager.build_session_context().messages) == ["user", "assistant", "custom"]
    assert manager.build_session_context().messages[0]["content"][0]["text"] == "original question"  # type: ignore[index]


def test_context_edit_applies_after_compaction(tmp_path: Path) -> None:
    manager, ids = _compacted_session(tmp_path)
    manager.append_context_edit(ids[3], None)
    manager.append_context_edit(ids[4], None)
    assert roles(manager.build_session_context().messages) == ["compactionSummary", "user", "assistant"]


def test_context_edit_targets_are_validated(tmp_path: Path) -> None:
    manager = SessionManager.in_memory(str(tmp_path))
    side = manager.append_message(user("side"))  # type: ignore[arg-type]
    manager.reset_leaf()
    main = manager.append_message(user("main"))  # type: ignore[arg-type]
    info = manager.append_session_info("n")
    with pytest.raises(ValueError, match="not on the active branch"):
        manager.append_context_edit(side, None)
    with pytest.raises(ValueError, match="cannot be edited"):
        manager.append_context_edit(info, None)
    with pytest.raises(ValueError, match="not found"):
        manager.append_context_edit("missing0", None)
    manager.append_context_edit(main, None)


def test_omit_failed_attempt_hides_the_response_and_its_tool_results(tmp_path: Path) -> None:
    manager = SessionManager.in_memory(str(tmp_path))
    manager.append_message(user("do it"))  # type: ignore[arg-type]
    failed = manager.append_message(
        assistant(
            "",
            calls=[("c1", "bash", {"command": "x"}), ("c2", "read", {"path": "p"})],
            stop="error",
            errorMessage="boom",
        )
    )  # type: ignore[arg-type]
    manager.append_message(tool_result("c1", "r1"))  # type: ignore[arg-type]
    manager.append_message(tool_result("c2", "r2"))  # type: ignore[arg-type]
    edits = manager.omit_failed_attempt()
    assert len(edits) == 3
    assert manager.get_entry(edits[0])["targetId"] == failed  # type: ignore[index,typeddict-item]
    assert roles(manager.build_session_context().messages) == ["user"]
    assert len([e for e in manager.get_entries() if e["type"] == "message"]) == 4  # originals stay


def test_system_messages_patch_and_replay(tmp_path: Path) -> None:
    read = {"name": "read", "description": "Read a file", "parameters": {"type": "object"}}
    bash = {"name": "bash", "description": "Run", "parameters": {"type": "object"}}
    first = system_message_patch(None, {"preamble": "P", "cwd": "C"}, [read], timestamp=5)  # type: ignore[list-item]
    assert first == {
        "role": "system",
        "content": "",
        "sections": {"preamble": "P", "cwd": "C"},
        "toolsAdded": [read],
        "timestamp": 5,
    }
    assert first is not None and list(first) == ["role", "content", "sections", "timestamp", "toolsAdded"]
    assert system_message_patch(None, {"preamble": "P"}, [])["timestamp"] > 0  # type: ignore[index]
    state = replay_system_messages([first])
    assert state.sections == {"preamble": "P", "cwd": "C"} and list(state.tools) == ["read"]
    assert system_message_patch(state, {"preamble": "P", "cwd": "C"}, [read]) is None  # type: ignore[list-item]

    patch = system_message_patch(state, {"preamble": "P2", "skills": "S"}, [bash], timestamp=9)  # type: ignore[list-item]
    assert patch == {
        "role": "system",
        "content": "",
        "timestamp": 9,
        "sections": {"preamble": "P2", "skills": "S", "cwd": None},
        "toolsAdded": [bash],
        "toolsRemoved": [{"name": "read"}],
    }
    manager = SessionManager.in_memory(str(tmp_path))
    manager.append_message(first)  # type: ignore[arg-type]
    manager.append_message(user("q"))  # type: ignore[arg-type]
    branch_point = manager.get_leaf_id()
    manager.append_message(patch)  # type: ignore[arg-type]
    state = manager.get_system_state()
    assert state.sections == {"preamble": "P2", "skills": "S"} and state.render() == "P2\n\nS"
    assert [t["name"] for t in state.tool_list()] == ["bash"]
    # Navigating back restores the tool loadout of that branch.
    assert branch_point is not None
    manager.branch(branch_point)
    assert list(manager.get_system_state().tools) == ["read"]
    # System messages are part of the context (convert_to_llm drops them from LLM messages).
    assert roles(manager.build_session_context().messages) == ["system", "user"]
    # Removal given as a tool object is accepted too.
    replayed = SystemState()
    replayed.apply(first)
    replayed.apply({"role": "system", "content": "", "timestamp": 1, "toolsRemoved": [read]})  # type: ignore[list-item]
    assert replayed.tools == {}


def test_sections_render_in_the_order_they_were_first_set() -> None:
    """Pi's replay: a changed section keeps its place, a new one comes last, content comes first."""
    state = replay_system_messages(
        [
            {"role": "system", "content": "", "sections": {"preamble": "P", "cwd": "<cwd>\nC\n</cwd>"}, "timestamp": 1},
            {"role": "system", "content": "", "sections": {"skills": "<skills>\nS\n</skills>"}, "timestamp": 2},
            {"role": "system", "content": "", "sections": {"preamble": "P2"}, "timestamp": 3},
            {"role": "system", "content": "Extra.", "timestamp": 4},
        ]
    )
    assert state.render() == "Extra.\n\nP2\n\n<cwd>\nC\n</cwd>\n\n<skills>\nS\n</skills>"
    assert state.timestamp == 1
    assert state.current_message(7) == {
        "role": "system",
        "content": "Extra.",
        "sections": {"preamble": "P2", "cwd": "<cwd>\nC\n</cwd>", "skills": "<skills>\nS\n</skills>"},
        "timestamp": 7,
    }
    assert SystemState().current_message(7) is None
