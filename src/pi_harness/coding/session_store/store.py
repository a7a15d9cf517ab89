"""``SessionManager``: one session's entry tree, its leaf pointer and its JSONL file.

Entries are kept as the parsed dicts (no per-entry objects) in file order plus an ``id → entry``
index. Every append creates a child of the leaf and moves the leaf to it; nothing is ever
modified in place. A persistent session reaches disk on its first user or assistant message and
is appended to line by line afterwards; an in-memory session never touches disk.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import cast

from pi_harness.ai.append_memo import issue
from pi_harness.ai.types import Usage
from pi_harness.coding.session_store.active_path import walk_columns, walk_entries
from pi_harness.coding.session_store.appends import EntryAppends
from pi_harness.coding.session_store.branching import branched_entries, fork_text
from pi_harness.coding.session_store.clean_open import load_scanned
from pi_harness.coding.session_store.cold_chain import ColdChain, thaw
from pi_harness.coding.session_store.cold_ids import TakenIds
from pi_harness.coding.session_store.cold_part import ColdPart
from pi_harness.coding.session_store.cold_path import ColdPath
from pi_harness.coding.session_store.context import (
    ProjectionMemo,
    SessionContext,
    SessionProjection,
    WalkedPath,
)
from pi_harness.coding.session_store.deferred import ScannedSession, scan_session_file
from pi_harness.coding.session_store.entries import (
    CURRENT_SESSION_VERSION,
    CompactionEntry,
    SessionEntry,
    SessionHeader,
)
from pi_harness.coding.session_store.errors import EntryNotFoundError, InvalidSessionFileError, SessionReadOnlyError
from pi_harness.coding.session_store.ids import iso_now, new_entry_id, new_session_id, validate_session_id
from pi_harness.coding.session_store.jsonl import read_header, read_session_file
from pi_harness.coding.session_store.listing import SessionFinders, normalize_session_name, session_file_names
from pi_harness.coding.session_store.migrate import migrate_records
from pi_harness.coding.session_store.paths import default_session_dir, session_file_name
from pi_harness.coding.session_store.repair import report_repairs
from pi_harness.coding.session_store.system_messages import SystemState
from pi_harness.coding.session_store.tree import (
    LabelInfo,
    SessionTreeNode,
    branch_path,
    build_tree,
    children_of,
    resolve_labels,
)
from pi_harness.coding.session_store.usage_summary import SessionUsage, UsageSummary
from pi_harness.coding.session_store.writer import SessionWriter

PathLike = str | os.PathLike[str]


def _qualifies_for_disk(entry: Mapping[str, object]) -> bool:
    """1.4.0: a session file is created at its first user or assistant message."""
    if entry.get("type") != "message":
        return False
    message = entry.get("message")
    return isinstance(message, dict) and message.get("role") in ("user", "assistant")


class SessionManager(EntryAppends, SessionFinders):
    """Create sessions with the factories (``create``, ``open``, ``continue_recent``, ``in_memory``,
    ``fork_from``), not with the constructor.

    ``fsync`` and ``lock`` (beyond Pi, default off) make every append durable and hold a
    cross-process lock on the file while this manager writes it; ``read_only`` opens a file for
    inspection only (no lock, no migration rewrite, appends raise).
    """

    def __init__(
        self,
        cwd: str,
        session_dir: PathLike | None,
        *,
        fsync: bool = False,
        lock: bool = False,
        read_only: bool = False,
    ) -> None:
        self._cwd = os.path.abspath(cwd)
        self._session_dir = Path(session_dir) if session_dir is not None else None
        self._fsync = fsync
        self._lock = lock
        self._read_only = read_only
        self._header: SessionHeader = self._new_header(None, None)
        self._entries: list[SessionEntry] = []
        self._usage = SessionUsage.of_entries([])  # what the entries count and cost, kept up to date
        self._by_id: dict[str, SessionEntry] = {}
        self._labels: dict[str, LabelInfo] = {}
        self._name: str | None = None
        self._leaf_id: str | None = None
        self._session_file: Path | None = None
        self._writer: SessionWriter | None = None
        self._on_disk = False
        self._generation = 0  # bumped whenever the entries are replaced (not appended to)
        self._projections = ProjectionMemo()
        # A large file's covered part (deferred.py): kept as columns, its entries not in
        # ``_entries`` (``_cold``); or made into entries whose messages are not all read yet
        # (``_stubs``, and then ``_chain``, its runs, cold_chain.py). None for every other session.
        self._cold: ColdPart | None = None
        self._stubs: ColdPart | None = None
        self._chain: ColdChain | None = None

    # --- factories ----------------------------------------------------------------------------

    @classmethod
    def create(
        cls,
        cwd: str,
        session_dir: PathLike | None = None,
        *,
        session_id: str | None = None,
        agent_dir: PathLike | None = None,
        fsync: bool = False,
        lock: bool = False,
    ) -> SessionManager:
        """A new persistent session (nothing is written until the first user/assistant message)."""
        directory = Path(session_dir) if session_dir else default_session_dir(cwd, agent_dir)
        manager = cls(cwd, directory, fsync=fsync, lock=lock)
        manager.new_session(session_id=session_id)
        return manager

    @classmethod
    def open(
        cls,
        path: PathLike,
        session_dir: PathLike | None = None,
        *,
        fsync: bool = False,
        lock: bool = False,
        read_only: bool = False,
    ) -> SessionManager:
        """Open (and migrate) a session file; a missing or blank file becomes a new session there.

        Raises ``InvalidSessionFileError`` for a file with content but no header (left untouched)
        and ``SessionLockedError`` when locking is on and another process writes the file.
        """
        file = Path(path).absolute()
        directory = Path(session_dir) if session_dir else file.parent
        manager = cls(os.getcwd(), directory, fsync=fsync, lock=lock, read_only=read_only)
        manager.set_session_file(file)
        return manager

    @classmethod
    def continue_recent(
        cls,
        cwd: str,
        session_dir: PathLike | None = None,
        *,
        agent_dir: PathLike | None = None,
        fsync: bool = False,
        lock: bool = False,
    ) -> SessionManager:
        """Open the valid session file with the newest mtime in the directory, else create one."""
        directory = Path(session_dir) if session_dir else default_session_dir(cwd, agent_dir)
        newest: tuple[float, Path] | None = None
        for file in session_file_names(directory):
            if read_header(file) is None:
                continue
            try:
                mtime = file.stat().st_mtime
            except OSError:
                continue
            if newest is None or mtime > newest[0]:
                newest = (mtime, file)
        if newest is None:
            return cls.create(cwd, directory, fsync=fsync, lock=lock)
        return cls.open(newest[1], directory, fsync=fsync, lock=lock)

    @classmethod
    def in_memory(cls, cwd: str | None = None) -> SessionManager:
        """A session that never touches disk (``--no-session``)."""
        manager = cls(cwd or os.getcwd(), None)
        manager.new_session()
        return manager

    @classmethod
    def fork_from(
        cls,
        source_path: PathLike,
        target_cwd: str,
        session_dir: PathLike | None = None,
        *,
        session_id: str | None = None,
        agent_dir: PathLike | None = None,
        fsync: bool = False,
        lock: bool = False,
    ) -> SessionManager:
        """Copy another (typically other-project) session into ``target_cwd``; written at once.

        The copy gets a new header (``parentSession`` = the source) and every source entry with
        its id unchanged. The source file is not modified (old formats are migrated in memory).
        """
        source = Path(source_path).absolute()
        contents = read_session_file(source)
        if not contents.exists or contents.blank:
            raise ValueError(f"Cannot fork: source session file is empty or invalid: {source}")
        if contents.header_record is None:
            raise ValueError(f"Cannot fork: source session has no header: {source}")
        records = migrate_records(contents.header_record, contents.entries)
        directory = Path(session_dir) if session_dir else default_session_dir(target_cwd, agent_dir)
        manager = cls(target_cwd, directory, fsync=fsync, lock=lock)
        manager.new_session(session_id=session_id, parent_session=str(source))
        manager._load_entries(report_repairs(source, records.entries))
        manager._flush()
        return manager

    # --- session switching --------------------------------------------------------------------

    def _new_header(self, session_id: str | None, parent_session: str | None) -> SessionHeader:
        header: SessionHeader = {
            "type": "session",
            "version": CURRENT_SESSION_VERSION,
            "id": validate_session_id(session_id) if session_id is not None else new_session_id(),
            "timestamp": iso_now(),
            "cwd": self._cwd,
        }
        if parent_session is not None:
            header["parentSession"] = parent_session
        return header

    def _release_writer(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    def _load_entries(
        self,
        entries: list[SessionEntry],
        *,
        others: list[SessionEntry] | None = None,
        cold: ColdPart | None = None,
        stubs: ColdPart | None = None,
    ) -> None:
        """Replace the entries. A large file (``clean_open.py``) gives its covered part, as
        columns (``cold``: ``entries`` are those after it) or as entries with stubs (``stubs``),
        and its entries that are not stubs (``others``: labels and the name are among them)."""
        self._save_scan_index()  # of the session being left, if it was a large one
        self._cold, self._stubs, self._chain = cold, stubs, None
        kept = [e for e in entries if isinstance(e.get("id"), str) and isinstance(e.get("type"), str)]
        if others is None:
            others = kept
        self._generation += 1
        self._entries = kept
        self._usage = self._usage_of(list(kept), cold, stubs)
        self._by_id = {e["id"]: e for e in kept}
        self._labels = resolve_labels(others)
        self._name = None
        # The latest session_info entry names the session (one pass, no call per entry).
        for entry in reversed(others):
            if entry["type"] == "session_info":
                name = entry.get("name")
                if isinstance(name, str):
                    self._name = normalize_session_name(name) or None
                    break
        self._leaf_id = kept[-1]["id"] if kept else (cold.ids[cold.count - 1] if cold and cold.count else None)

    def _usage_of(self, loaded: list[SessionEntry], cold: ColdPart | None, stubs: ColdPart | None) -> SessionUsage:
        """The usage summary of the entries just loaded, computed when first asked."""
        if cold is not None:  # (a scan ran: ``msgspec`` is loaded already)
            from pi_harness.coding.session_store.usage_scan import scanned_usage

            return scanned_usage(cold, cast(list[Mapping[str, object]], loaded))
        if stubs is not None:  # the stubs among them are filled first
            return SessionUsage(lambda summary: summary.add_entries(self._complete(loaded)))
        return SessionUsage.of_entries(cast(list[Mapping[str, object]], loaded))

    def _thaw(self) -> None:
        """Make the covered part kept as columns into entries (stubs for its messages), for the
        views of the whole file; the entries handed out so far stay the same objects."""
        cold = self._cold
        if cold is None:
            return
        self._cold = None
        self._entries, self._by_id = thaw(cold, self._entries, self._by_id)
        self._generation += 1
        self._stubs = cold
        self._chain = ColdChain(self._entries, cold, self._generation)

    def _has(self, entry_id: str) -> bool:
        """Whether there is an entry of that id (without making the covered part's entries)."""
        return entry_id in self._by_id or (self._cold is not None and entry_id in self._cold.ids)

    def _thaw_for(self, entry_id: str | None) -> None:
        """Thaw when ``entry_id`` is a covered entry's."""
        if (
            entry_id is not None
            and self._cold is not None
            and entry_id not in self._by_id
            and entry_id in self._cold.ids
        ):
            self._thaw()

    def new_session(self, session_id: str | None = None, parent_session: str | None = None) -> None:
        """Start a fresh, empty session (new file path when persistent, nothing written yet)."""
        self._release_writer()
        self._header = self._new_header(session_id, parent_session)
        self._load_entries([])
        self._on_disk = False
        if self._session_dir is None:
            self._session_file = None
            return
        self._session_file = self._session_dir / session_file_name(self._header["timestamp"], self._header["id"])
        self._writer = SessionWriter(self._session_file, fsync=self._fsync, lock=self._lock)

    def set_session_file(self, path: PathLike) -> None:
        """Switch to the session stored at ``path`` (see ``open``)."""
        file = Path(path).absolute()
        scanned = scan_session_file(file)
        if scanned is not None and self._open_scanned(file, scanned):
            return
        contents = read_session_file(file)
        if contents.exists and not contents.blank and contents.header is None:
            raise InvalidSessionFileError(file)
        writer = SessionWriter(file, fsync=self._fsync, lock=self._lock)
        if contents.header_record is None:
            # Missing or blank: a new session whose file will be this path.
            self.new_session()
            self._release_writer()
            self._session_file = file
            self._writer = writer
            return
        if not self._read_only:
            writer.claim()  # before any rewrite, so a second writer is refused untouched
        records = migrate_records(contents.header_record, contents.entries)
        header = records.header
        if records.changed:
            if not self._read_only:
                writer.rewrite([header, *records.entries])
        else:
            writer.note_torn_tail(contents.ends_with_newline)
        self._release_writer()
        self._header = header
        self._cwd = header.get("cwd") or os.getcwd()
        self._load_entries(report_repairs(file, records.entries))
        self._session_file = file
        self._writer = writer
        self._on_disk = True

    def _open_scanned(self, file: Path, scanned: ScannedSession) -> bool:
        """Open a large file from its scan; False (nothing changed) when it needs a rewrite."""
        # Stubs are current-format messages: only the other entries can need a migration.
        covered = [cast(dict[str, object], scanned.cold.records[p]) for p in scanned.cold.full_positions()]
        records = migrate_records(scanned.header_record, [*covered, *scanned.hot])
        if records.changed:
            return False
        writer = SessionWriter(file, fsync=self._fsync, lock=self._lock)
        if not self._read_only:
            writer.claim()
        writer.note_torn_tail(scanned.ends_with_newline)
        self._release_writer()
        self._header = records.header
        self._cwd = records.header.get("cwd") or os.getcwd()
        load = load_scanned(file, scanned)
        self._load_entries(load.entries, others=load.others, cold=load.cold, stubs=load.stubs)
        self._session_file = file
        self._writer = writer
        self._on_disk = True
        return True

    def _complete(self, entries: list[SessionEntry] | None = None) -> list[SessionEntry]:
        """Fill the stubs among ``entries`` (default: all, the covered part made into entries
        first) before anyone reads their content."""
        if entries is None:
            self._thaw()
        chosen = self._entries if entries is None else entries
        if self._stubs is not None and self._stubs.unfilled():
            self._stubs.fill_entries(chosen)
        return chosen

    def close(self) -> None:
        """Release the cross-process lock (if held) and save a large file's scan as its index
        (``scan_index.py``). The manager stays readable."""
        self._release_writer()
        self._save_scan_index()

    def _save_scan_index(self) -> None:
        part = self._cold or self._stubs
        if part is None or not part.unsaved or self._read_only or self._session_file is None:
            return
        from pi_harness.coding.session_store import scan_index

        after = self._entries if self._cold is not None else self._entries[part.count :]
        scan_index.save(self._session_file, part, [entry["id"] for entry in after])
        part.unsaved = False

    def __enter__(self) -> SessionManager:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # --- writing ------------------------------------------------------------------------------

    def _flush(self) -> None:
        """Create the file with the header and every entry so far."""
        if self._writer is None:
            return
        self._writer.create([self._header, *self._complete()])
        self._on_disk = True

    def _persist(self, entry: SessionEntry) -> None:
        writer = self._writer
        if writer is None:
            return
        if self._on_disk:
            try:
                writer.append(entry)
            except FileNotFoundError:
                # The file was deleted under us: write it again in full rather than a headless file.
                writer.create([self._header, *self._complete(), entry])
        elif _qualifies_for_disk(entry):
            writer.create([self._header, *self._complete(), entry])
            self._on_disk = True

    def _note_name(self, entry: SessionEntry) -> None:
        if entry["type"] == "session_info":
            name = entry.get("name")
            if isinstance(name, str):
                self._name = normalize_session_name(name) or None

    def _append(
        self, kind: str, fields: Mapping[str, object], timestamp: str | None = None, *, fields_first: bool = False
    ) -> str:
        if self._read_only:
            raise SessionReadOnlyError(self._session_file)
        entry_id = new_entry_id(self._by_id if self._cold is None else TakenIds(self._by_id, self._cold.ids))
        # ``kind`` and ``fields`` are one of the entry types of entries.py (the ``append_*`` methods).
        base = {"id": entry_id, "parentId": self._leaf_id, "timestamp": timestamp or iso_now()}
        # Key order as Pi writes it: ``custom`` entries put their own fields before the base ones.
        entry = cast(
            SessionEntry, {"type": kind, **fields, **base} if fields_first else {"type": kind, **base, **fields}
        )
        # Disk first: if the write fails the in-memory session is unchanged.
        self._persist(entry)
        self._entries.append(entry)
        self._usage.add(entry)
        self._by_id[entry_id] = entry
        self._leaf_id = entry_id
        if kind == "label":
            self._note_label(entry)
        self._note_name(entry)
        return entry_id

    def _note_label(self, entry: SessionEntry) -> None:
        target = entry.get("targetId")
        text = entry.get("label")
        if isinstance(target, str):
            if isinstance(text, str) and text:
                self._labels[target] = LabelInfo(text, entry["timestamp"])
            else:
                self._labels.pop(target, None)

    # --- tree ---------------------------------------------------------------------------------

    def get_leaf_id(self) -> str | None:
        return self._leaf_id

    def get_leaf_entry(self) -> SessionEntry | None:
        return self.get_entry(self._leaf_id) if self._leaf_id is not None else None

    def get_entry(self, entry_id: str) -> SessionEntry | None:
        self._thaw_for(entry_id)
        entry = self._by_id.get(entry_id)
        if entry is not None and self._stubs is not None and self._stubs.unfilled():
            self._stubs.fill_entries([entry])
        return entry

    def entries_by_id(self) -> Mapping[str, SessionEntry]:
        """A read-only live view of the ``id → entry`` index."""
        self._complete()
        return MappingProxyType(self._by_id)

    def get_children(self, parent_id: str | None) -> list[SessionEntry]:
        entries = self._complete()  # before ``children_of`` reads the parents: every entry is there
        return children_of(entries, parent_id)

    def get_label(self, entry_id: str) -> str | None:
        info = self._labels.get(entry_id)
        return info.label if info else None

    def get_branch(self, from_id: str | None = None) -> list[SessionEntry]:
        """Root → ``from_id`` (default: the leaf), every entry type."""
        self._thaw()
        if from_id is None or from_id == self._leaf_id:
            # The active path is memoised with the projection: a copy instead of a walk.
            return self._complete(list(self._current_projection().path))
        return self._complete(branch_path(self._by_id, from_id))

    def get_branch_outline(self) -> list[SessionEntry]:
        """The active branch for walks over entry types: every entry is there, but the ``user``,
        ``assistant`` and ``toolResult`` messages of a large file may lack their ``message``
        (only ``type``, ``id`` and ``parentId`` are certain). System messages are complete."""
        self._thaw()
        return list(self._current_projection().path)

    def get_branch_records(self) -> list[SessionEntry]:
        """The active branch without the older ``user``, ``assistant`` and ``toolResult`` messages
        of a large file (those before the part the model context reads): every other entry, in
        path order and complete. Enough for whatever looks for model changes, levels, system
        messages or custom entries, without making an entry of every message of the branch."""
        projection = self._current_projection()
        path, relevant = projection.path, projection.relevant
        if relevant is None:
            return self._complete(list(path))
        return path.pick(relevant) if isinstance(path, ColdPath) else [path[index] for index in relevant]

    def entry_count(self) -> int:
        """How many entries ``get_entries`` has, without making them."""
        return len(self._entries) + (self._cold.count if self._cold is not None else 0)

    def has_messages(self) -> bool:
        if any(entry["type"] == "message" for entry in self._entries):
            return True
        return self._cold is not None and self._cold.has_messages()

    def get_tree(self) -> list[SessionTreeNode]:
        return build_tree(self._complete(), self._by_id, self._labels)

    def branch(self, entry_id: str) -> None:
        """Move the leaf (not persisted); the next append starts a new branch there."""
        if not self._has(entry_id):
            raise EntryNotFoundError(entry_id)
        self._leaf_id = entry_id

    def reset_leaf(self) -> None:
        """Leaf = none: the next append becomes a new root."""
        self._leaf_id = None

    def branch_with_summary(
        self,
        entry_id: str | None,
        summary: str,
        details: object = None,
        from_hook: bool | None = None,
        usage: Usage | None = None,
    ) -> str:
        """Move the leaf to ``entry_id`` (``None``: before the first entry) and append a summary there."""
        if entry_id is not None and not self._has(entry_id):
            raise EntryNotFoundError(entry_id)
        self._leaf_id = entry_id
        return self.append_branch_summary(entry_id or "root", summary, details, from_hook, usage)

    # --- context ------------------------------------------------------------------------------

    def build_session_projection(self) -> SessionProjection:
        return self._projections.get(self._generation, self._entries, self._leaf_id, self._walk_active_path)

    def _current_projection(self) -> SessionProjection:
        return self._projections.current(self._generation, self._entries, self._leaf_id, self._walk_active_path)

    def _walk_active_path(self) -> WalkedPath:
        if self._cold is not None:
            return walk_columns(self._cold, self._by_id, self._leaf_id)
        runs = self._chain
        current = runs is not None and runs.generation == self._generation and runs.entries is self._entries
        return walk_entries(self._by_id, self._leaf_id, runs if current else None, self._stubs)

    def build_session_context(self) -> SessionContext:
        """Messages, thinking level and model of the active branch (see context.py)."""
        # Only the message list is the caller's own: the path and sources are not copied for it.
        # It is issued (``AppendOnly``): a pass over the previous request's list (the conversion
        # memo) then knows without comparing that this one extends it.
        projection = self._current_projection()
        messages = issue(projection.messages, self._projections.lineage)
        return SessionContext(messages, projection.thinking_level, projection.model)

    def get_system_state(self) -> SystemState:
        """(1.4.0) Prompt sections and tools replayed from the active branch's system messages."""
        return self._current_projection().system.copy()

    def get_latest_compaction(self) -> CompactionEntry | None:
        """The latest compaction on the active branch (what the projection starts from)."""
        return self._current_projection().compaction

    # --- branching into new files ---------------------------------------------------------------

    def create_branched_session(self, leaf_id: str | None) -> Path | None:
        """Make the path root → ``leaf_id`` a session of its own.

        Label entries are dropped from the copy and the labels still in force on the path are
        re-added as fresh entries after it; entries keep their ids (an entry that followed a
        dropped label is re-parented to its nearest kept ancestor). The manager then points at
        the new session; its file is written at once if it already holds a user or assistant
        message. Returns the new path (``None`` for an in-memory session).
        """
        path = self.get_branch(leaf_id) if leaf_id is not None else []
        if not path:
            raise EntryNotFoundError(leaf_id)
        kept = branched_entries(path, self._labels, iso_now())
        previous_file = str(self._session_file) if self._session_file is not None else None
        self.new_session(parent_session=previous_file)
        self._load_entries(kept)
        if self._writer is None:
            return None
        if any(_qualifies_for_disk(e) for e in kept):
            self._flush()
        return self._session_file

    def fork(self, entry_id: str) -> str:
        """``/fork``: a new session holding the path up to (excluding) a user message.

        Returns that message's text for the editor. Raises ``Invalid entry ID for forking`` unless
        ``entry_id`` is a user message (of any branch). Forking at the first message gives an
        empty session whose ``parentSession`` is the current file.
        """
        entry = self.get_entry(entry_id)
        text = fork_text(entry)
        assert entry is not None
        parent = entry.get("parentId")
        if parent is None or parent not in self._by_id:
            previous_file = str(self._session_file) if self._session_file is not None else None
            self.new_session(parent_session=previous_file)
        else:
            self.create_branched_session(parent)
        return text

    def clone(self) -> Path | None:
        """(1.4.0 ``/clone``) A new session duplicating the whole active branch."""
        return self.create_branched_session(self._leaf_id)

    # --- info ---------------------------------------------------------------------------------

    def get_entries(self) -> list[SessionEntry]:
        """Every entry (not the header) in file order."""
        return list(self._complete())

    def usage_summary(self) -> UsageSummary:
        """Counts, tokens and cost of every entry (``usage_summary.py``); not to be changed."""
        return self._usage.summary()

    def get_header(self) -> SessionHeader:
        return self._header.copy()

    def get_session_name(self) -> str | None:
        return self._name

    def get_cwd(self) -> str:
        return self._cwd

    def get_session_dir(self) -> str:
        return str(self._session_dir) if self._session_dir is not None else ""

    def get_session_id(self) -> str:
        return self._header["id"]

    def get_session_file(self) -> Path | None:
        """Where the session is (or will be) stored; the file may not exist yet."""
        return self._session_file

    def is_persisted(self) -> bool:
        return self._session_dir is not None

    def is_read_only(self) -> bool:
        return self._read_only
