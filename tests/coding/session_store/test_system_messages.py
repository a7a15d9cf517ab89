"""System messages in the store: Pi's shape, the upgrade of earlier pi-harness files, and the
system checkpoint of compaction entries."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from _session_helpers import assistant, roles, user

from pi_harness.coding.session_store import SessionManager, replay_system_messages, system_message_patch
from pi_harness.coding.session_store.legacy_system import upgrade_system_entry

READ = {"name": "read", "description": "Read a file", "parameters": {"type": "object"}}
BASH = {"name": "bash", "description": "Run", "parameters": {"type": "object"}}
HEADER = {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-10-22T09:15:00.000Z", "cwd": "/p"}


def entry(entry_id: str, parent: str | None, message: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {
        "type": "message",
        "id": entry_id,
        "parentId": parent,
        "timestamp": "2026-10-22T09:15:10.500Z",
        "message": message,
        **fields,
    }


# What pi-harness wrote before it wrote Pi's shape: the rendering in ``content``, bare sections.
LEGACY_FIRST = {
    "role": "system",
    "content": "P\n\n<cwd>\nCurrent date: 2026-10-22\nCurrent working directory: /p\n</cwd>",
    "sections": {"preamble": "P", "cwd": "Current date: 2026-10-22\nCurrent working directory: /p"},
    "toolsAdded": [READ, BASH],
    "timestamp": 0,
}
LEGACY_PATCH = {
    "role": "system",
    "content": "",
    "timestamp": 1792660520000,
    "sections": {"tools": "- read: Read"},
    "toolsRemoved": ["bash"],
}


def write_session(path: Path, *records: dict[str, Any]) -> None:
    path.write_text("".join(json.dumps(record) + "\n" for record in (HEADER, *records)))


def test_a_legacy_message_gets_pi_shape() -> None:
    record = entry("a1", None, json.loads(json.dumps(LEGACY_FIRST)))
    assert upgrade_system_entry(record)
    message = record["message"]
    assert message["content"] == ""
    assert message["sections"] == {
        "preamble": "P",
        "cwd": "<cwd>\nCurrent date: 2026-10-22\nCurrent working directory: /p\n</cwd>",
    }
    assert message["timestamp"] == 1792660510500  # the entry's time: the old first message had none
    patch = entry("a2", "a1", json.loads(json.dumps(LEGACY_PATCH)))
    assert upgrade_system_entry(patch)
    assert patch["message"]["sections"] == {"tools": "<tools>\n- read: Read\n</tools>"}
    assert patch["message"]["toolsRemoved"] == [{"name": "bash"}]
    # Pi's shape, and other roles, are left alone.
    assert not upgrade_system_entry(record) and not upgrade_system_entry(patch)
    assert not upgrade_system_entry(entry("u1", None, {"role": "user", "content": "x", "timestamp": 1}))
    appended = entry("a3", "a2", {"role": "system", "content": "Also be brief.", "timestamp": 5})
    assert not upgrade_system_entry(appended) and appended["message"]["content"] == "Also be brief."


def test_a_legacy_file_is_rewritten_and_sends_its_prompt_once(tmp_path: Path) -> None:
    path = tmp_path / "old.jsonl"
    write_session(
        path,
        entry("a1", None, LEGACY_FIRST),
        entry("a2", "a1", user("q")),
        entry("a3", "a2", LEGACY_PATCH),
    )
    manager = SessionManager.open(path)
    state = manager.get_system_state()
    # Once: the sections, without the old rendering in front of them.
    assert state.render() == (
        "P\n\n<cwd>\nCurrent date: 2026-10-22\nCurrent working directory: /p\n</cwd>\n\n<tools>\n- read: Read\n</tools>"
    )
    assert list(state.tools) == ["read"]
    on_disk = [json.loads(line) for line in path.read_text().splitlines()]
    assert on_disk[1]["message"]["content"] == "" and on_disk[3]["message"]["toolsRemoved"] == [{"name": "bash"}]
    # Opened again: nothing left to upgrade, the file is not touched.
    before = path.read_bytes()
    SessionManager.open(path)
    assert path.read_bytes() == before


def test_first_message_has_pi_shape_and_no_empty_tool_list() -> None:
    message = system_message_patch(None, {"preamble": "P", "cwd": "<cwd>\n/p\n</cwd>"}, [])
    assert message is not None and "toolsAdded" not in message and "toolsRemoved" not in message
    assert list(message) == ["role", "content", "sections", "timestamp"] and message["content"] == ""


def test_compaction_carries_the_system_checkpoint(tmp_path: Path) -> None:
    manager = SessionManager.in_memory(str(tmp_path))
    first = system_message_patch(None, {"preamble": "P", "cwd": "<cwd>\n/p\n</cwd>"}, [READ], timestamp=3)  # type: ignore[list-item]
    manager.append_message(first)  # type: ignore[arg-type]
    kept = manager.append_message(user("q"))  # type: ignore[arg-type]
    manager.append_message(assistant("a"))  # type: ignore[arg-type]
    manager.append_message(system_message_patch(manager.get_system_state(), {"preamble": "P2"}, [READ]))  # type: ignore[arg-type,list-item]
    compaction_id = manager.append_compaction("summary", kept, 100, from_hook=False)
    compaction = manager.get_entry(compaction_id)
    assert compaction is not None
    assert list(compaction)[-2:] == ["fromHook", "systemMessage"]
    checkpoint = compaction["systemMessage"]  # type: ignore[typeddict-item]
    assert checkpoint == {
        "role": "system",
        "content": "",
        "sections": {"preamble": "P2"},
        "toolsAdded": [READ],
        "timestamp": checkpoint["timestamp"],
    }
    assert checkpoint["timestamp"] > 3
    # The compacted context: the checkpoint, the summary, the kept entries without their system messages.
    assert roles(manager.build_session_context().messages) == ["system", "compactionSummary", "user", "assistant"]
    assert manager.build_session_context().messages[0] is checkpoint
    # A patch after the compaction applies on top of the checkpoint.
    manager.append_message(system_message_patch(manager.get_system_state(), {"preamble": "P3"}, [BASH]))  # type: ignore[arg-type,list-item]
    state = manager.get_system_state()
    assert state.sections == {"preamble": "P3"} and list(state.tools) == ["bash"]


def test_a_compaction_without_checkpoint_replays_the_whole_path(tmp_path: Path) -> None:
    """Compactions of older files have no ``systemMessage``: the path's system messages still count."""
    path = tmp_path / "older.jsonl"
    first: Any = system_message_patch(None, {"preamble": "P"}, [READ], timestamp=3)  # type: ignore[list-item]
    compaction = {
        "type": "compaction",
        "id": "c1",
        "parentId": "a3",
        "timestamp": "2026-10-22T10:00:00.000Z",
        "summary": "s",
        "firstKeptEntryId": "a2",
        "tokensBefore": 10,
    }
    write_session(
        path, entry("a1", None, first), entry("a2", "a1", user("q")), entry("a3", "a2", assistant("a")), compaction
    )
    manager = SessionManager.open(path)
    assert manager.get_system_state().sections == {"preamble": "P"}
    assert roles(manager.build_session_context().messages) == ["compactionSummary", "user", "assistant"]


def test_a_changed_declaration_is_removed_then_added() -> None:
    first = system_message_patch(None, {"preamble": "P"}, [READ, BASH], timestamp=1)  # type: ignore[list-item]
    assert first is not None
    state = replay_system_messages([first])
    changed = {**READ, "description": "Read any file"}
    patch = system_message_patch(state, {"preamble": "P"}, [changed, BASH])  # type: ignore[list-item]
    assert patch is not None
    assert patch["toolsRemoved"] == [{"name": "read"}] and patch["toolsAdded"] == [changed]
    assert list(patch) == ["role", "content", "timestamp", "toolsAdded", "toolsRemoved"]
    state.apply(patch)
    assert state.tools == {"read": changed, "bash": BASH}
