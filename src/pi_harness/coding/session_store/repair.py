"""Making a damaged entry list usable: a tree without cycles, unique ids, well-typed blocks.

A session file can be damaged by hand edits, merges, torn writes or other tools. Each repair
here is done in memory only (the file is left as it is) and is deterministic: reading the same
file again gives the same repaired tree, so entries appended after a repair (whose ``parentId``
may name a repaired id) attach to the same place on every later read.

* A duplicate id keeps its first entry; every later entry with the id gets ``<id>~<n>``, and
  references after it (``parentId``, ``targetId``, ``firstKeptEntryId``) name the latest entry
  of that id, because a record is always written after the entry it refers to.
* A self-parent becomes a root.
* A parent that is not in the file (its line was lost) is left as it is: the orphan is a root of
  the tree, as in Pi (guessing another parent could splice unrelated branches together).
* A parent cycle is cut at the member that comes first in the file, which becomes a root.
* A content block of the wrong type is rewritten to the closest well-typed block (a number as
  ``text`` becomes its string), keeping what it said.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Container, Mapping
from dataclasses import dataclass, field
from typing import cast

from pi_harness.ai.jsonutil import dumps
from pi_harness.coding.session_store.entries import SessionEntry

_REFERENCE_KEYS = ("targetId", "firstKeptEntryId")
_STRING_FIELDS: Mapping[str, tuple[str, ...]] = {
    "text": ("text",),
    "thinking": ("thinking",),
    "image": ("data", "mimeType"),
    "toolCall": ("id", "name"),
}
_CONTENT_ROLES = frozenset({"user", "assistant", "toolResult", "custom", "system"})
_STRING_ROLES = frozenset({"user", "custom", "system"})  # roles whose content may be a plain string
_reported: set[tuple[str, tuple[str, ...]]] = set()


def _print_notice(line: str) -> None:
    print(line, file=sys.stderr)


# Where the one-line repair notice goes; stderr by default, which every mode keeps free of its
# own output (print and json write stdout, rpc speaks on stdout, the TUI starts after loading).
RepairReporter = Callable[[str], None]
reporter: RepairReporter = _print_notice


@dataclass
class RepairResult:
    entries: list[SessionEntry]
    # One line per kind of repair (with a count), for a single notice to the user.
    diagnostics: list[str] = field(default_factory=list)


def _as_text(value: object) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if isinstance(value, bool | int | float):
        return str(value).lower() if isinstance(value, bool) else str(value)
    return dumps(value).decode("utf-8", "replace")


def _repair_block(block: object) -> tuple[object, bool]:
    """The block well-typed, and whether it had to change."""
    if not isinstance(block, dict):
        return {"type": "text", "text": _as_text(block)}, True
    kind = block.get("type")
    if not isinstance(kind, str):
        return {"type": "text", "text": _as_text(block.get("text", block))}, True
    fields = _STRING_FIELDS.get(kind, ())
    bad = [name for name in fields if name in block and not isinstance(block[name], str)]
    missing = [name for name in fields if name not in block]
    arguments_bad = kind == "toolCall" and not isinstance(block.get("arguments", {}), dict)
    if not bad and not missing and not arguments_bad:
        return block, False
    fixed = dict(block)
    for name in (*bad, *missing):
        fixed[name] = _as_text(block.get(name))
    if arguments_bad:
        fixed["arguments"] = {}
    return fixed, True


def _repair_content(content: object, string_ok: bool) -> tuple[object, bool]:
    if content is None or (isinstance(content, str) and string_ok):
        return content, False
    if isinstance(content, str):
        return [{"type": "text", "text": content}], True
    if not isinstance(content, list):
        text = _as_text(content)
        return (text if string_ok else [{"type": "text", "text": text}]), True
    changed = False
    blocks: list[object] = []
    for block in content:
        fixed, block_changed = _repair_block(block)
        changed = changed or block_changed
        blocks.append(fixed)
    return (blocks if changed else content), changed


def _well_typed(block: object) -> bool:
    """``_repair_block`` would leave the block as it is: the check alone, without building lists
    (it runs for every block of every message when a session is opened)."""
    if type(block) is not dict:
        return False
    kind = block.get("type")
    if kind == "text":
        return isinstance(block.get("text"), str)
    if kind == "toolCall":
        arguments = block.get("arguments", _NO_ARGUMENTS)
        return isinstance(block.get("id"), str) and isinstance(block.get("name"), str) and isinstance(arguments, dict)
    if kind == "thinking":
        return isinstance(block.get("thinking"), str)
    if kind == "image":
        return isinstance(block.get("data"), str) and isinstance(block.get("mimeType"), str)
    return isinstance(kind, str)


_NO_ARGUMENTS: dict[str, object] = {}


def _content_well_typed(content: object, string_ok: bool) -> bool:
    if content is None or (string_ok and type(content) is str):
        return True
    if type(content) is not list:
        return False
    for block in content:
        # Text blocks inline (most blocks are), anything else through the full check.
        if type(block) is dict and block.get("type") == "text" and type(block.get("text")) is str:
            continue
        if not _well_typed(block):
            return False
    return True


def _repaired_blocks(entry: SessionEntry) -> SessionEntry | None:
    """A copy of the entry with its content blocks well-typed, or None when they already are."""
    kind = entry["type"]
    if kind == "message":
        message: object = entry.get("message")
        if message is None:
            return None  # nothing to repair (also a large file's message not parsed yet)
        if type(message) is dict:
            role = message.get("role")
            if role not in _CONTENT_ROLES or _content_well_typed(message.get("content"), role in _STRING_ROLES):
                return None
    elif kind != "custom_message" or _content_well_typed(entry.get("content"), True):
        return None
    return _repaired_blocks_slow(entry)


def repaired_content(entry: SessionEntry) -> SessionEntry:
    """The entry with its content blocks well-typed (itself when they already are)."""
    fixed = _repaired_blocks(entry)
    return entry if fixed is None else fixed


def _repaired_blocks_slow(entry: SessionEntry) -> SessionEntry | None:
    if entry["type"] == "custom_message":
        content, changed = _repair_content(entry.get("content"), True)
        return cast(SessionEntry, {**entry, "content": content}) if changed else None
    if entry["type"] != "message":
        return None
    message = entry.get("message")
    if not isinstance(message, dict) or message.get("role") not in _CONTENT_ROLES:
        return None
    string_ok = message.get("role") in _STRING_ROLES
    content, changed = _repair_content(message.get("content"), string_ok)
    if not changed:
        return None
    return cast(SessionEntry, {**entry, "message": {**message, "content": content}})


def _cut_cycles(entries: list[SessionEntry], index_of: Mapping[str, int]) -> int:
    """Make the first-in-file member of every parent cycle a root; returns how many were cut."""
    state: dict[str, int] = {}  # 1: on the walk being followed, 2: known to reach a root
    cut = 0
    for start in entries:
        walk: list[str] = []
        current: str | None = start["id"]
        while current is not None and current not in state:
            state[current] = 1
            walk.append(current)
            parent = entries[index_of[current]].get("parentId")
            current = parent if isinstance(parent, str) and parent in index_of else None
        if current is not None and state[current] == 1:
            # ``current`` is on this walk: the cycle is walk[walk.index(current):].
            cycle = walk[walk.index(current) :]
            first = min(cycle, key=index_of.__getitem__)
            entries[index_of[first]] = cast(SessionEntry, {**entries[index_of[first]], "parentId": None})
            cut += 1
        for entry_id in walk:
            state[entry_id] = 2
    return cut


def repair_entries(entries: list[SessionEntry], known: Container[str] = frozenset(), verified: int = 0) -> RepairResult:
    """The entries (file order) with ids, parents and content blocks made consistent.

    ``known``: ids of entries left out of ``entries`` that need no repair and come before any
    entry that names them (the clean covered part of a large file, ``cold_part.py``).
    ``verified``: the first entries of ``entries`` are from that part too (its entries parsed in
    full): unique ids, parents before them; only their content blocks can need a repair."""
    all_ids = {e["id"] for e in entries}
    latest: dict[str, str] = {}  # an id as written → the id of its latest entry in memory
    seen_count: dict[str, int] = {}
    repaired: list[SessionEntry] = []
    duplicates = self_parents = dangling = blocks = 0
    # When every parent named comes earlier in the file, following parents always goes back in
    # the file, so there can be no cycle: the search for them (a second pass) is then skipped.
    forward_parents = False
    for entry in entries[:verified]:
        latest[entry["id"]] = entry["id"]
        with_blocks = _repaired_blocks(entry)
        if with_blocks is not None:
            blocks += 1
        repaired.append(entry if with_blocks is None else with_blocks)
    for entry in entries[verified:] if verified else entries:
        original = entry["id"]
        parent = entry.get("parentId")
        if (
            original not in latest
            and (parent is None or latest.get(parent) == parent or parent in known)
            and "targetId" not in entry
            and "firstKeptEntryId" not in entry
        ):
            # The common case, decided with a few lookups: a new id, a root or a child of an
            # earlier entry that kept its id, no references to rewrite.
            latest[original] = original
            with_blocks = _repaired_blocks(entry)
            if with_blocks is not None:
                blocks += 1
            repaired.append(entry if with_blocks is None else with_blocks)
            continue
        updates: dict[str, object] = {}
        if isinstance(parent, str):
            if parent == original and original not in latest:
                updates["parentId"] = None
                self_parents += 1
            elif parent in latest:
                if latest[parent] != parent:
                    updates["parentId"] = latest[parent]
            elif parent in known:
                pass
            else:
                # Later in the file, or missing (which a renamed duplicate further on may still
                # turn into a later entry): either way the cycle search must run.
                forward_parents = True
                if parent not in all_ids:
                    dangling += 1
        elif parent is not None:
            updates["parentId"] = None
            dangling += 1
        for key in _REFERENCE_KEYS:
            target = entry.get(key)
            if isinstance(target, str) and latest.get(target, target) != target:
                updates[key] = latest[target]
        if original in latest:
            count = seen_count.get(original, 1)
            new_id = f"{original}~{count + 1}"
            while new_id in all_ids or new_id in known:
                count += 1
                new_id = f"{original}~{count + 1}"
            seen_count[original] = count + 1
            all_ids.add(new_id)
            updates["id"] = new_id
            latest[original] = new_id
            latest[new_id] = new_id
            duplicates += 1
        else:
            latest[original] = original
        fixed = cast(SessionEntry, {**entry, **updates}) if updates else entry
        with_blocks = _repaired_blocks(fixed)
        if with_blocks is not None:
            fixed = with_blocks
            blocks += 1
        repaired.append(fixed)
    cycles = _cut_cycles(repaired, {e["id"]: i for i, e in enumerate(repaired)}) if forward_parents else 0
    diagnostics: list[str] = []
    for count, what in (
        (duplicates, "entries reusing an earlier id were given new ids"),
        (self_parents, "entries naming themselves as parent were made roots"),
        (dangling, "entries whose parent is missing are roots of the tree"),
        (cycles, "parent cycles were cut"),
        (blocks, "messages with mistyped content blocks were repaired"),
    ):
        if count:
            diagnostics.append(f"{count} {what}")
    return RepairResult(repaired, diagnostics)


def report_repairs(
    path: str | os.PathLike[str], entries: list[SessionEntry], known: Container[str] = frozenset(), verified: int = 0
) -> list[SessionEntry]:
    """``repair_entries`` for a file being loaded, with one notice per file and process (the same
    damage found again on a later load of the same file is not reported again)."""
    usable = [e for e in entries if isinstance(e.get("id"), str) and isinstance(e.get("type"), str)]
    result = repair_entries(usable, known, verified)
    if result.diagnostics:
        key = (os.fspath(path), tuple(result.diagnostics))
        if key not in _reported:
            _reported.add(key)
            reporter(f"Warning: session file {os.fspath(path)} is damaged: {'; '.join(result.diagnostics)}")
    return result.entries
