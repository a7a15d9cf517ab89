"""The entry tree of a session.

Entries point to their parent with ``parentId``; a file holds every branch ever created. These
helpers work on the manager's ``id → entry`` index and never recurse (paths can be tens of
thousands of entries deep).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from pi_harness.coding.session_store.entries import SessionEntry


@dataclass
class SessionTreeNode:
    """One entry in ``get_tree()``'s forest; children are ordered oldest first."""

    entry: SessionEntry
    children: list[SessionTreeNode] = field(default_factory=list)
    label: str | None = None
    label_timestamp: str | None = None


@dataclass(frozen=True)
class LabelInfo:
    label: str
    timestamp: str


def branch_path(by_id: Mapping[str, SessionEntry], leaf_id: str | None) -> list[SessionEntry]:
    """Entries from the root down to ``leaf_id`` (empty when the id is unknown or ``None``)."""
    path: list[SessionEntry] = []
    get = by_id.get
    current = get(leaf_id) if leaf_id is not None else None
    # A valid path visits every entry at most once; more steps mean a parent cycle (malformed file).
    steps_left = len(by_id)
    while current is not None and steps_left > 0:
        steps_left -= 1
        path.append(current)
        parent = current.get("parentId")
        current = get(parent) if parent is not None and parent != current["id"] else None
    path.reverse()
    return path


def path_ids(by_id: Mapping[str, SessionEntry], leaf_id: str | None) -> set[str]:
    return {entry["id"] for entry in branch_path(by_id, leaf_id)}


def common_ancestor(by_id: Mapping[str, SessionEntry], a_id: str | None, b_id: str | None) -> str | None:
    """The deepest entry on both root paths (``None`` when they share nothing)."""
    on_a = path_ids(by_id, a_id)
    for entry in reversed(branch_path(by_id, b_id)):
        entry_id: str = entry["id"]
        if entry_id in on_a:
            return entry_id
    return None


def resolve_labels(entries: Iterable[SessionEntry]) -> dict[str, LabelInfo]:
    """Current label per target id: the latest ``label`` entry wins, an empty label clears it."""
    labels: dict[str, LabelInfo] = {}
    for entry in entries:
        if entry["type"] != "label":
            continue
        target = entry.get("targetId")
        if not isinstance(target, str):
            continue
        text = entry.get("label")
        if isinstance(text, str) and text:
            labels[target] = LabelInfo(text, entry["timestamp"])
        else:
            labels.pop(target, None)
    return labels


def _tree_parent(entry: SessionEntry, by_id: Mapping[str, SessionEntry]) -> str | None:
    """The id of the entry's parent in the tree; None for a root (no parent, itself, or unknown)."""
    parent = entry.get("parentId")
    return parent if parent is not None and parent != entry["id"] and parent in by_id else None


def children_of(entries: Iterable[SessionEntry], parent_id: str | None) -> list[SessionEntry]:
    children = [e for e in entries if e.get("parentId") == parent_id and e["id"] != parent_id]
    children.sort(key=lambda e: e.get("timestamp") or "")
    return children


def build_tree(
    entries: Iterable[SessionEntry], by_id: Mapping[str, SessionEntry], labels: Mapping[str, LabelInfo]
) -> list[SessionTreeNode]:
    """The forest: roots are entries without a (known, distinct) parent; children by timestamp."""
    nodes: dict[str, SessionTreeNode] = {}
    ordered: list[SessionTreeNode] = []
    for entry in entries:
        info = labels.get(entry["id"])
        node = SessionTreeNode(
            entry, label=info.label if info else None, label_timestamp=info.timestamp if info else None
        )
        nodes[entry["id"]] = node
        ordered.append(node)
    roots: list[SessionTreeNode] = []
    for node in ordered:
        parent = _tree_parent(node.entry, by_id)
        if parent is None:
            roots.append(node)
        else:
            nodes[parent].children.append(node)
    for node in ordered:
        if len(node.children) > 1:
            node.children.sort(key=lambda n: n.entry.get("timestamp") or "")
    roots.sort(key=lambda n: n.entry.get("timestamp") or "")
    return roots
