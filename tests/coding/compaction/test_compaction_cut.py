"""Cut points and compaction plans on crafted histories."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from _compaction_helpers import append_all, assistant, tool_result, user, words
from hypothesis import given, settings
from hypothesis import strategies as st

from pi_harness.coding.compaction import CompactionSettings, find_cut_point, prepare_compaction
from pi_harness.coding.session_store import SessionManager


def _entries(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {"type": "message", "id": f"e{i:07d}", "parentId": None, "timestamp": "", "message": m}
        for i, m in enumerate(messages)
    ]


def _spec_example() -> list[dict[str, Any]]:
    # idx: 0 usr, 1 ass, 2 tool, 3 usr, 4 ass, 5 tool, 6 tool, 7 ass, 8 tool; 100 tokens each
    t = words(100)
    return [
        user(t),
        assistant(t[:-3], calls=(("c1", "x", {}),)),
        tool_result("c1", t),
        user(t),
        assistant(t[:-3], calls=(("c2", "x", {}),)),
        tool_result("c2", t),
        tool_result("c3", t),
        assistant(t[:-3], calls=(("c4", "x", {}),)),
        tool_result("c4", t),
    ]


def test_spec_example_splits_the_turn_at_the_assistant() -> None:
    entries = _entries(_spec_example())
    cut = find_cut_point(entries, 0, len(entries), 500)  # type: ignore[arg-type]
    assert (cut.first_kept_entry_index, cut.turn_start_index, cut.is_split_turn) == (4, 3, True)


def test_budget_reached_at_a_tool_result_cuts_at_the_next_assistant() -> None:
    entries = _entries(_spec_example())
    cut = find_cut_point(entries, 0, len(entries), 400)  # type: ignore[arg-type]
    assert (cut.first_kept_entry_index, cut.turn_start_index, cut.is_split_turn) == (7, 3, True)


def test_budget_never_reached_keeps_everything() -> None:
    entries = _entries(_spec_example())
    cut = find_cut_point(entries, 0, len(entries), 10**6)  # type: ignore[arg-type]
    assert (cut.first_kept_entry_index, cut.is_split_turn) == (0, False)


def test_no_valid_cut_points() -> None:
    entries = _entries([tool_result("a", "x"), tool_result("b", "y")])
    cut = find_cut_point(entries, 0, 2, 1)  # type: ignore[arg-type]
    assert (cut.first_kept_entry_index, cut.turn_start_index, cut.is_split_turn) == (0, -1, False)


def test_cut_at_a_user_message_is_a_turn_boundary_and_keeps_preceding_metadata() -> None:
    t = words(100)
    entries = _entries([user(t), assistant(t), user(t), assistant(t)])
    entries.insert(
        2, {"type": "model_change", "id": "mc", "parentId": None, "timestamp": "", "provider": "p", "modelId": "m"}
    )
    entries.insert(
        3, {"type": "thinking_level_change", "id": "tl", "parentId": None, "timestamp": "", "thinkingLevel": "low"}
    )
    cut = find_cut_point(entries, 0, len(entries), 200)  # type: ignore[arg-type]
    assert cut.first_kept_entry_index == 2  # extended back over the metadata
    assert not cut.is_split_turn


def test_extension_stops_at_a_compaction_entry() -> None:
    t = words(100)
    entries = _entries([user(t), assistant(t), user(t), assistant(t)])
    entries.insert(
        2,
        {
            "type": "compaction",
            "id": "cc",
            "parentId": None,
            "timestamp": "",
            "summary": "s",
            "firstKeptEntryId": "x",
            "tokensBefore": 1,
        },
    )
    entries.insert(3, {"type": "custom", "id": "cu", "parentId": None, "timestamp": "", "customType": "x"})
    cut = find_cut_point(entries, 0, len(entries), 200)  # type: ignore[arg-type]
    assert cut.first_kept_entry_index == 3


@st.composite
def histories(draw: st.DrawFn) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    call = 0
    for _ in range(draw(st.integers(1, 6))):
        messages.append(user(words(draw(st.integers(1, 300)))))
        for _ in range(draw(st.integers(0, 4))):
            ids = [f"c{call + i}" for i in range(draw(st.integers(1, 3)))]
            call += len(ids)
            messages.append(assistant(words(draw(st.integers(0, 50))), calls=tuple((i, "bash", {}) for i in ids)))
            messages.extend(tool_result(i, words(draw(st.integers(1, 400)))) for i in ids)
        messages.append(assistant(words(draw(st.integers(1, 100)))))
    return messages


@settings(max_examples=200, deadline=None)
@given(history=histories(), keep=st.integers(1, 3000))
def test_tool_results_always_stay_with_their_call(history: list[dict[str, Any]], keep: int) -> None:
    entries = _entries(history)
    cut = find_cut_point(entries, 0, len(entries), keep)  # type: ignore[arg-type]
    kept = [e["message"] for e in entries[cut.first_kept_entry_index :]]
    assert kept[0]["role"] != "toolResult"
    calls = {b["id"] for m in kept if m["role"] == "assistant" for b in m["content"] if b["type"] == "toolCall"}
    assert all(m["toolCallId"] in calls for m in kept if m["role"] == "toolResult")
    if cut.is_split_turn:
        assert entries[cut.turn_start_index]["message"]["role"] == "user"
        assert cut.turn_start_index < cut.first_kept_entry_index or kept[0]["role"] == "user"


def _session(tmp_path: Path, messages: list[dict[str, Any]]) -> tuple[SessionManager, list[str]]:
    manager = SessionManager.in_memory(str(tmp_path))
    return manager, append_all(manager, messages)


def test_prepare_split_turn_plan(tmp_path: Path) -> None:
    manager, ids = _session(tmp_path, _spec_example())
    plan = prepare_compaction(manager.get_branch(), CompactionSettings(keep_recent_tokens=500))
    assert plan is not None
    assert plan.first_kept_entry_id == ids[4] and plan.is_split_turn
    assert [m["role"] for m in plan.messages_to_summarize] == ["user", "assistant", "toolResult"]
    assert [m["role"] for m in plan.turn_prefix_messages] == ["user"]
    assert plan.previous_summary is None
    # usage of the last assistant (reported as 0 here) plus the estimate of the tool result after it
    assert plan.tokens_before == 100


def test_prepare_tracks_files_and_follows_the_previous_compaction(tmp_path: Path) -> None:
    t = words(100)
    manager, ids = _session(
        tmp_path,
        [
            user(t),
            assistant("", calls=(("r1", "read", {"path": "src/a.py"}), ("w1", "write", {"path": "out.txt"}))),
            tool_result("r1", t, "read"),
            tool_result("w1", "ok", "write"),
            user(t),
            assistant(t),
        ],
    )
    manager.append_compaction("first summary", ids[4], 1000, {"readFiles": ["old.md"], "modifiedFiles": ["x.py"]})
    more = append_all(
        manager,
        [
            user(t),
            assistant("", calls=(("e1", "edit", {"path": "src/a.py"}),)),
            tool_result("e1", t, "edit"),
            user(t),
            assistant(t),
        ],
    )
    plan = prepare_compaction(manager.get_branch(), CompactionSettings(keep_recent_tokens=150))
    assert plan is not None
    assert plan.previous_summary == "first summary"
    assert plan.first_kept_entry_id == more[3]
    # the span starts at the previous compaction's first kept entry (its kept messages get summarised now)
    assert [m["role"] for m in plan.messages_to_summarize] == ["user", "assistant", "user", "assistant", "toolResult"]
    assert plan.messages_to_summarize[0] == manager.get_entry(ids[4])["message"]  # type: ignore[index]
    read_files, modified_files = plan.file_ops.file_lists()
    assert read_files == ["old.md"] and modified_files == ["src/a.py", "x.py"]


def test_prepare_returns_nothing_when_compacted_or_small(tmp_path: Path) -> None:
    manager, ids = _session(tmp_path, [user("hi"), assistant("hello")])
    assert prepare_compaction(manager.get_branch()) is None  # everything fits in keepRecentTokens
    manager.append_compaction("s", ids[0], 10)
    assert prepare_compaction(manager.get_branch(), CompactionSettings(keep_recent_tokens=1)) is None
    assert prepare_compaction([]) is None


def test_prepare_ignores_hook_made_file_lists(tmp_path: Path) -> None:
    t = words(100)
    manager, ids = _session(tmp_path, [user(t), assistant(t), user(t), assistant(t)])
    manager.append_compaction("ext", ids[2], 10, {"readFiles": ["secret"]}, True)
    append_all(manager, [user(t), assistant(t), user(t), assistant(t)])
    plan = prepare_compaction(manager.get_branch(), CompactionSettings(keep_recent_tokens=150))
    assert plan is not None and plan.file_ops.file_lists() == ([], [])


def test_system_messages_are_never_summarised() -> None:
    manager = SessionManager.in_memory("/p")
    manager.append_message({"role": "system", "content": "prompt", "sections": {"preamble": "prompt"}, "timestamp": 0})  # type: ignore[arg-type,typeddict-item]
    append_all(manager, [user(words(50, "a")), assistant(words(50, "b"))])
    plan = prepare_compaction(manager.get_branch(), CompactionSettings(keep_recent_tokens=10_000))
    assert plan is None  # everything is kept; the system message alone is not worth a summary
    append_all(manager, [user(words(300, "c")), assistant(words(300, "d"))])
    plan = prepare_compaction(manager.get_branch(), CompactionSettings(keep_recent_tokens=200))
    assert plan is not None
    assert [m["role"] for m in plan.messages_to_summarize] == ["user", "assistant"]


def _with_hidden_attempt(tmp_path: Path, prompt: str) -> tuple[SessionManager, list[str]]:
    """Two finished turns, then a prompt whose response failed and was hidden by recovery."""
    t = words(100)
    manager, ids = _session(tmp_path, [user(t), assistant(t), user(prompt), assistant("", stop="error")])
    manager.omit_failed_attempt(ids[-1])
    return manager, ids


def test_a_hidden_attempt_moves_the_cut_and_splits_the_prompt_turn(tmp_path: Path) -> None:
    # As Pi's: the prompt that overflowed is over the keep budget by itself; the cut lands on the
    # hidden attempt, so the prompt is the turn prefix (summarised), not kept verbatim.
    manager, ids = _with_hidden_attempt(tmp_path, words(60))
    plan = prepare_compaction(manager.get_branch(), CompactionSettings(keep_recent_tokens=10))
    assert plan is not None
    assert plan.first_kept_entry_id == ids[3] and plan.is_split_turn
    assert [m["role"] for m in plan.messages_to_summarize] == ["user", "assistant"]
    assert [m["role"] for m in plan.turn_prefix_messages] == ["user"]


def test_a_prompt_under_the_budget_stays_and_the_hidden_attempt_is_not_summarised(tmp_path: Path) -> None:
    manager, ids = _with_hidden_attempt(tmp_path, "short")
    plan = prepare_compaction(manager.get_branch(), CompactionSettings(keep_recent_tokens=50))
    assert plan is not None
    # The budget is reached at the earlier answer: the cut stays there, the prompt is kept.
    assert plan.first_kept_entry_id == ids[1] and plan.is_split_turn
    assert plan.messages_to_summarize == [] and [m["role"] for m in plan.turn_prefix_messages] == ["user"]


def test_a_first_prompt_with_a_hidden_attempt_leaves_nothing_to_compact(tmp_path: Path) -> None:
    manager, ids = _session(tmp_path, [user("Write a long essay"), assistant("cut", stop="length")])
    manager.omit_failed_attempt(ids[-1])
    assert prepare_compaction(manager.get_branch(), CompactionSettings()) is None
