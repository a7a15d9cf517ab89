"""The entry tree: branching, second roots, the forest view, labels (sessions.md 5.3, 10.2)."""

from __future__ import annotations

from pathlib import Path

import pytest
from _session_helpers import assistant, user, write_lines

from pi_harness.coding.session_store import EntryNotFoundError, SessionManager


def _linear(manager: SessionManager, n: int) -> list[str]:
    return [manager.append_message(user(f"m{i}")) for i in range(n)]  # type: ignore[arg-type]


def test_branching_moves_only_the_leaf(tmp_path: Path) -> None:
    manager = SessionManager.create(str(tmp_path), tmp_path / "s")
    a, b, c = _linear(manager, 3)
    path = manager.get_session_file()
    assert path is not None
    size = path.stat().st_size
    manager.branch(a)
    assert manager.get_leaf_id() == a
    assert path.stat().st_size == size  # navigation is not persisted
    d = manager.append_message(assistant("alt"))  # type: ignore[arg-type]
    assert manager.get_entry(d)["parentId"] == a  # type: ignore[index]
    assert [e["id"] for e in manager.get_branch()] == [a, d]
    assert [e["id"] for e in manager.get_branch(c)] == [a, b, c]
    assert [e["id"] for e in manager.get_children(a)] == [b, d]
    # After reopening, the leaf is the last entry in file order, not the navigated position.
    manager.branch(c)
    assert SessionManager.open(path).get_leaf_id() == d


def test_unknown_entries_raise_pi_error_text(tmp_path: Path) -> None:
    manager = SessionManager.in_memory(str(tmp_path))
    with pytest.raises(EntryNotFoundError, match=r"^Entry nope not found$"):
        manager.branch("nope")
    with pytest.raises(EntryNotFoundError, match=r"^Entry nope not found$"):
        manager.append_label("nope", "x")
    with pytest.raises(EntryNotFoundError, match=r"^Entry nope not found$"):
        manager.branch_with_summary("nope", "s")
    with pytest.raises(EntryNotFoundError, match=r"^Entry nope not found$"):
        manager.create_branched_session("nope")


def test_reset_leaf_starts_a_second_root(tmp_path: Path) -> None:
    manager = SessionManager.in_memory(str(tmp_path))
    (first,) = _linear(manager, 1)
    manager.reset_leaf()
    assert manager.build_session_context().messages == []
    second = manager.append_message(user("edited first message"))  # type: ignore[arg-type]
    assert manager.get_entry(second)["parentId"] is None  # type: ignore[index]
    roots = manager.get_tree()
    assert [node.entry["id"] for node in roots] == [first, second]


def test_branch_with_summary_before_the_first_entry(tmp_path: Path) -> None:
    manager = SessionManager.in_memory(str(tmp_path))
    _linear(manager, 2)
    summary_id = manager.branch_with_summary(None, "what happened")
    entry = manager.get_entry(summary_id)
    assert entry is not None and entry["parentId"] is None and entry["fromId"] == "root"  # type: ignore[typeddict-item]
    assert [m["role"] for m in manager.build_session_context().messages] == ["branchSummary"]


def test_tree_is_a_forest_with_children_by_timestamp_and_labels(tmp_path: Path) -> None:
    t = "2025-01-01T00:00:0{}.000Z"
    records = [
        {"type": "session", "version": 3, "id": "s", "timestamp": t.format(0), "cwd": "/p"},
        {"type": "message", "id": "root0001", "parentId": None, "timestamp": t.format(1), "message": user("root")},
        # a child written later in the file but with an earlier timestamp sorts first
        {
            "type": "message",
            "id": "late0001",
            "parentId": "root0001",
            "timestamp": t.format(5),
            "message": user("late"),
        },
        {
            "type": "message",
            "id": "early001",
            "parentId": "root0001",
            "timestamp": t.format(2),
            "message": user("early"),
        },
        {
            "type": "message",
            "id": "orphan01",
            "parentId": "missing1",
            "timestamp": t.format(3),
            "message": user("orphan"),
        },
        {
            "type": "message",
            "id": "selfref1",
            "parentId": "selfref1",
            "timestamp": t.format(4),
            "message": user("self"),
        },
        {
            "type": "label",
            "id": "label001",
            "parentId": "early001",
            "timestamp": t.format(6),
            "targetId": "late0001",
            "label": "first",
        },
        {
            "type": "label",
            "id": "label002",
            "parentId": "label001",
            "timestamp": t.format(7),
            "targetId": "late0001",
            "label": "renamed",
        },
        {
            "type": "label",
            "id": "label003",
            "parentId": "label002",
            "timestamp": t.format(8),
            "targetId": "root0001",
            "label": "gone",
        },
        {"type": "label", "id": "label004", "parentId": "label003", "timestamp": t.format(9), "targetId": "root0001"},
    ]
    manager = SessionManager.open(write_lines(tmp_path / "t.jsonl", records))
    roots = manager.get_tree()
    assert [n.entry["id"] for n in roots] == ["root0001", "orphan01", "selfref1"]
    assert [n.entry["id"] for n in roots[0].children] == ["early001", "late0001"]
    late = roots[0].children[1]
    assert late.label == "renamed" and late.label_timestamp == t.format(7)
    assert roots[0].label is None  # cleared by an empty label
    assert manager.get_label("late0001") == "renamed"
    assert [e["id"] for e in manager.get_branch("orphan01")] == ["orphan01"]
    assert [e["id"] for e in manager.get_branch("selfref1")] == ["selfref1"]


def test_labels_are_tree_entries_and_can_be_cleared(tmp_path: Path) -> None:
    manager = SessionManager.in_memory(str(tmp_path))
    (a,) = _linear(manager, 1)
    label_id = manager.append_label(a, "bookmark")
    assert manager.get_leaf_id() == label_id
    assert manager.get_label(a) == "bookmark"
    manager.append_label(a, "")
    assert manager.get_label(a) is None
    # Labels never reach the model.
    assert [m["role"] for m in manager.build_session_context().messages] == ["user"]


def test_session_name_latest_wins_and_blank_clears(tmp_path: Path) -> None:
    manager = SessionManager.in_memory(str(tmp_path))
    assert manager.get_session_name() is None
    manager.append_session_info("first")
    manager.append_session_info("second")
    assert manager.get_session_name() == "second"
    manager.append_session_info("   ")
    assert manager.get_session_name() is None


def test_deep_linear_session_needs_no_recursion(tmp_path: Path) -> None:
    manager = SessionManager.in_memory(str(tmp_path))
    for i in range(5000):
        manager.append_custom("x", i)
    assert len(manager.get_branch()) == 5000
    tree = manager.get_tree()
    depth, node = 1, tree[0]
    while node.children:
        node, depth = node.children[0], depth + 1
    assert depth == 5000
