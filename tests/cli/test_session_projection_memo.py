"""The memoised session projection (``SessionManager.build_session_projection``) made ``pi``'s
startup on long sessions fast; it must always equal a projection built from scratch."""

from __future__ import annotations

import random
from typing import Any

import pytest

from pi_harness.coding.session_store import SessionManager
from pi_harness.coding.session_store.context import SessionProjection, build_session_projection


def fresh(manager: SessionManager) -> SessionProjection:
    return build_session_projection(manager.get_branch())


def assert_same(manager: SessionManager) -> None:
    memo, expected = manager.build_session_projection(), fresh(manager)
    assert memo.messages == expected.messages
    assert [e["id"] for e in memo.entries] == [e["id"] for e in expected.entries]
    assert [e["id"] for e in memo.path] == [e["id"] for e in expected.path]
    assert memo.thinking_level == expected.thinking_level
    assert memo.model == expected.model
    assert memo.compaction == expected.compaction
    assert memo.system.sections == expected.system.sections and memo.system.tools == expected.system.tools


def message_ids(manager: SessionManager, role: str) -> list[str]:
    return [
        e["id"]
        for e in manager.get_branch()
        if e["type"] == "message" and e["message"]["role"] == role  # type: ignore[typeddict-item]
    ]


def random_step(manager: SessionManager, rng: random.Random, step: int) -> None:
    choice = rng.randrange(12)
    entries = manager.get_entries()
    if choice <= 2:
        manager.append_message({"role": "user", "content": f"question {step}", "timestamp": step})
    elif choice == 3:
        manager.append_message(
            {
                "role": "assistant",
                "content": [{"type": "text", "text": f"answer {step}"}],
                "provider": rng.choice(["a", "b"]),
                "model": f"m{step % 3}",
                "stopReason": "stop",
                "timestamp": step,
            }  # type: ignore[typeddict-item]
        )
    elif choice == 4:
        manager.append_message(
            {
                "role": "system",
                "content": "",
                "sections": {f"s{step % 4}": f"text {step}"},
                "toolsAdded": [{"name": f"tool{step % 3}", "description": "d", "parameters": {}}],
                "timestamp": step,
            }  # type: ignore[typeddict-item]
        )
    elif choice == 5:
        manager.append_thinking_level_change(rng.choice(["low", "high"]))
    elif choice == 6:
        manager.append_model_change("p", f"model-{step}")
    elif choice == 7 and entries:
        manager.append_label(rng.choice(entries)["id"], f"label {step}")
    elif choice == 8:
        users = message_ids(manager, "user")
        if users:
            replacement: Any = None if rng.random() < 0.5 else {"content": f"edited {step}"}
            manager.append_context_edit(rng.choice(users), replacement)
    elif choice == 9:
        branch = manager.get_branch()
        if len(branch) > 2:
            manager.append_compaction(f"summary {step}", rng.choice(branch[:-1])["id"], 100)
    elif choice == 10 and entries:
        manager.branch(rng.choice(entries)["id"])
    else:
        manager.append_custom_message("note", f"custom {step}", True)


@pytest.mark.parametrize("seed", range(8))
def test_memo_matches_a_fresh_projection_after_any_operation(seed: int) -> None:
    rng = random.Random(seed)
    manager = SessionManager.in_memory("/tmp")
    for step in range(150):
        random_step(manager, rng, step)
        if rng.random() < 0.6:
            assert_same(manager)
    assert_same(manager)


def test_callers_cannot_corrupt_the_memo() -> None:
    manager = SessionManager.in_memory("/tmp")
    manager.append_message({"role": "user", "content": "hi", "timestamp": 1})
    first = manager.build_session_projection()
    first.messages.clear()
    first.path.clear()
    first.system.sections["x"] = "y"
    assert_same(manager)


def test_reloading_other_entries_is_noticed(tmp_path: Any) -> None:
    manager = SessionManager.create(str(tmp_path), tmp_path)
    manager.append_message({"role": "user", "content": "in the first file", "timestamp": 1})
    manager.append_message(
        {"role": "assistant", "content": [], "stopReason": "stop", "timestamp": 2}  # type: ignore[typeddict-item]
    )
    first = manager.get_session_file()
    assert manager.build_session_projection().messages
    manager.new_session()
    manager.append_message({"role": "user", "content": "second", "timestamp": 3})
    manager.append_message(
        {"role": "assistant", "content": [], "stopReason": "stop", "timestamp": 4}  # type: ignore[typeddict-item]
    )
    assert_same(manager)
    assert first is not None
    manager.set_session_file(first)
    assert_same(manager)
    assert manager.build_session_projection().messages[0]["content"] == "in the first file"
