"""``/tree``: the session's entry tree, to move the leaf to another point of the conversation.

A chain of entries is drawn at one indentation; only where the conversation branched do the
children get ``├─``/``└─`` connectors. Entries on the active path (root → current leaf) are
marked ``•``, as in Pi 1.4.0, whose header (title, key help, search line) and ``(3/9)``
position line (`` [no-tools]`` and the like while a filter is on) are drawn the same way.
Labels show as ``[label]``.

Filter modes (setting ``treeFilterMode``): ``default`` hides bookkeeping entries (model and
thinking changes, labels, extension data, usage, session info),
``no-tools`` also hides tool results, ``user-only`` keeps user messages, ``labeled-only`` keeps
labelled entries, ``all`` shows everything. Hidden entries pass their children up to the
nearest visible ancestor. In every mode (as Pi) usage records and assistant messages that only
called tools are left out, unless such a message is the current leaf. Where the conversation
branched, the branch holding the current leaf comes first. Typing filters by text.

Folding (``app.tree.foldOrUp`` / ``app.tree.unfoldOrDown``, Pi's keys): the first entry of a
segment (a root, or a child where the conversation branched) folds away everything below it.
Its connector shows ``⊟`` while it can fold and ``⊞`` while folded (a folded root gets ``⊞``
before its text). Where there is nothing to fold or unfold the same keys jump to the start of
the segment above or the next branch point below. Changing the filter or the search unfolds all.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from pi_harness.coding.session_store.tree import SessionTreeNode
from pi_harness.tui.ansi import truncate, with_background
from pi_harness.tui.components.base import RenderContext
from pi_harness.tui.components.content import blocks, mapping
from pi_harness.tui.components.selector import scroll_start
from pi_harness.tui.components.tree_entry_text import (
    ToolCalls,
    entry_parts,
    matches_search,
    plain_text,
    styled_text,
    tool_call_index,
)
from pi_harness.tui.components.tree_help import tree_help
from pi_harness.tui.theme import bold

FILTER_MODES = ("default", "no-tools", "user-only", "labeled-only", "all")
_BOOKKEEPING = frozenset({"label", "custom", "usage", "session_info", "context_edit", "model_change",
                          "thinking_level_change"})  # fmt: skip
_FILTER_ACTIONS = {
    "app.tree.filter.default": "default",
    "app.tree.filter.noTools": "no-tools",
    "app.tree.filter.userOnly": "user-only",
    "app.tree.filter.labeledOnly": "labeled-only",
    "app.tree.filter.all": "all",
}


def _joined_text(content: object) -> str:
    if isinstance(content, str):
        return content
    return "".join(str(block.get("text") or "") for block in blocks(content) if block.get("type") == "text")


def entry_copy_text(entry: Mapping[str, object]) -> str | None:
    """What ``app.message.copy`` copies from a tree entry: its whole text, or None when it has none."""
    kind = entry.get("type")
    text: str | None = None
    if kind == "message":
        message = mapping(entry.get("message"))
        if message.get("role") == "bashExecution":
            text = str(message.get("command") or "")
        elif "content" in message:
            text = _joined_text(message.get("content"))
            if not text and message.get("role") == "assistant":
                text = str(message.get("errorMessage") or "")
    elif kind == "custom_message":
        text = _joined_text(entry.get("content"))
    elif kind in ("compaction", "branch_summary"):
        text = str(entry.get("summary") or "")
    return text if text and text.strip() else None


def describe_entry(entry: Mapping[str, object], calls: ToolCalls | None = None) -> str:
    """A tree row's text for ``entry`` without colours (``tree_entry_text``)."""
    return plain_text(entry_parts(entry, calls or {}))


def _only_tool_calls(message: Mapping[str, object]) -> bool:
    """An assistant message without text that ended normally (its tool calls follow as results)."""
    if message.get("stopReason") not in (None, "stop", "toolUse"):
        return False  # errors and aborts stay visible
    return not any(b.get("type") == "text" and str(b.get("text", "")).strip() for b in blocks(message.get("content")))


def entry_visible(entry: Mapping[str, object], mode: str, labelled: bool, *, current: bool = False) -> bool:
    """Whether the filter ``mode`` draws the entry. In every mode (as Pi) usage records and
    assistant messages that only call tools are left out, except the current leaf."""
    kind = entry.get("type")
    message = entry.get("message") if kind == "message" else None
    role = message.get("role") if isinstance(message, Mapping) else None
    if kind == "usage":
        return False
    if isinstance(message, Mapping) and role == "assistant" and not current and _only_tool_calls(message):
        return False
    if mode == "all":
        return True
    if mode == "labeled-only":
        return labelled
    if mode == "user-only":
        return role == "user"
    if kind in _BOOKKEEPING:
        return False
    return not (mode == "no-tools" and role == "toolResult")


FOLDED, FOLDABLE = "⊞", "⊟"  # Pi's markers, drawn in the connector of a segment's first entry


@dataclass
class TreeRow:
    node: SessionTreeNode
    prefix: str  # connector lines drawn before the entry
    depth: int
    folded: bool = False
    foldable: bool = False  # it has children and starts a segment (a root or a branch's child)


class TreeSelector:
    def __init__(
        self,
        roots: Sequence[SessionTreeNode],
        context: RenderContext,
        *,
        leaf_id: str | None,
        filter_mode: str = "default",
        on_select: Callable[[str], None] | None = None,
        on_cancel: Callable[[], None] | None = None,
        on_edit_label: Callable[[str], None] | None = None,
        on_copy: Callable[[str | None], None] | None = None,
        max_visible: int = 15,
    ) -> None:
        self.roots = list(roots)
        self.context = context
        self.leaf_id = leaf_id
        self.filter_mode = filter_mode if filter_mode in FILTER_MODES else "default"
        self.on_select = on_select
        self.on_cancel = on_cancel
        self.on_edit_label = on_edit_label
        self.on_copy = on_copy  # app.message.copy: the selected entry's text (None: it has none)
        self.max_visible = max(3, max_visible)
        self.query = ""
        self.show_label_timestamps = False
        self.folded: set[str] = set()
        self.chosen: str | None = None
        self.cancelled = False
        self.index = 0
        self._scroll = 0
        self._parents: dict[str, SessionTreeNode | None] = {}
        self._current_id: str | None = None
        self._index_nodes()
        self._calls = tool_call_index(self.roots)  # tool results are shown as the call they answer
        self._active = self._active_path()
        self.rows: list[TreeRow] = []
        self._rebuild(select=leaf_id)

    # --- structure ---------------------------------------------------------------------------

    def _index_nodes(self) -> None:
        stack: list[tuple[SessionTreeNode, SessionTreeNode | None]] = [(root, None) for root in self.roots]
        while stack:
            node, parent = stack.pop()
            self._parents[node.entry["id"]] = parent
            stack.extend((child, node) for child in node.children)

    def _active_path(self) -> set[str]:
        path: set[str] = set()
        current = self.leaf_id
        while current is not None and current in self._parents and current not in path:
            path.add(current)
            parent = self._parents[current]
            current = parent.entry["id"] if parent is not None else None
        return path

    def _visible(self, node: SessionTreeNode) -> bool:
        return entry_visible(node.entry, self.filter_mode, bool(node.label), current=node.entry["id"] == self.leaf_id)

    def _visible_children(self, node_children: list[SessionTreeNode]) -> list[SessionTreeNode]:
        """Children after filtering: a hidden child is replaced by its own visible children. The
        child on the active path comes first (Pi's order), the others keep the file's order."""
        out: list[SessionTreeNode] = []

        def ordered(children: list[SessionTreeNode]) -> list[SessionTreeNode]:
            return sorted(children, key=lambda child: child.entry["id"] not in self._active)

        stack = list(reversed(ordered(node_children)))
        while stack:
            child = stack.pop()
            if self._visible(child):
                out.append(child)
            else:
                stack.extend(reversed(ordered(child.children)))
        return out

    def _rebuild(self, select: str | None = None) -> None:
        previous = select or (self.rows[self.index].node.entry["id"] if self.rows else None)
        rows: list[TreeRow] = []
        # (node, prefix for the node, prefix for its children, depth, whether it starts a segment)
        stack: list[tuple[SessionTreeNode, str, str, int, bool]] = []
        top = self._visible_children(self.roots)
        for index, root in reversed(list(enumerate(top))):
            if len(top) > 1:
                last = index == len(top) - 1
                stack.append((root, "└─ " if last else "├─ ", "   " if last else "│  ", 1, True))
            else:
                stack.append((root, "", "", 0, True))
        while stack:
            node, prefix, child_prefix, depth, starts_segment = stack.pop()
            entry_id = node.entry["id"]
            children = self._visible_children(node.children)
            foldable = bool(children) and starts_segment
            folded = foldable and entry_id in self.folded
            rows.append(TreeRow(node, prefix, depth, folded, foldable))
            if folded:
                continue
            if len(children) == 1:
                stack.append((children[0], child_prefix, child_prefix, depth, False))
            else:
                for index in range(len(children) - 1, -1, -1):
                    last = index == len(children) - 1
                    connector = "└─ " if last else "├─ "
                    stack.append((children[index], child_prefix + connector, child_prefix + ("   " if last else "│  "),
                                  depth + 1, True))  # fmt: skip
        if self.query.strip():
            rows = [row for row in rows if matches_search(self.query, row.node)]
        self.rows = rows
        self.index = 0
        shown = {row.node.entry["id"] for row in rows}
        self._current_id = self._nearest_shown(self.leaf_id, shown)
        if previous is None or not self._select_id(previous):
            self._select_nearest_active()

    def _nearest_shown(self, entry_id: str | None, shown: set[str]) -> str | None:
        """The entry itself or its closest ancestor among the drawn rows (where ``← current`` goes)."""
        while entry_id is not None and entry_id not in shown:
            parent = self._parents.get(entry_id)
            entry_id = parent.entry["id"] if parent is not None else None
        return entry_id

    def _select_id(self, entry_id: str) -> bool:
        for position, row in enumerate(self.rows):
            if row.node.entry["id"] == entry_id:
                self.index = position
                return True
        return False

    def _select_nearest_active(self) -> None:
        current = self.leaf_id
        while current is not None:
            if self._select_id(current):
                return
            parent = self._parents.get(current)
            current = parent.entry["id"] if parent is not None else None

    # --- input -------------------------------------------------------------------------------

    @property
    def done(self) -> bool:
        return self.cancelled or self.chosen is not None

    @property
    def selected_id(self) -> str | None:
        return self.rows[self.index].node.entry["id"] if self.rows else None

    def set_filter(self, mode: str) -> None:
        self.filter_mode = mode
        self.folded.clear()  # another filter draws other segments: folds start afresh (as Pi)
        self._rebuild()

    def refresh(self) -> None:
        """Draw the rows again (after a label changed), keeping the folds."""
        self._rebuild()

    def handle_text(self, text: str) -> bool:
        self.query += text
        self.folded.clear()
        self._rebuild()
        self.index = 0  # the best place to look at a new search is its first match
        return True

    def _fold_or_up(self) -> None:
        row = self.rows[self.index]
        entry_id = row.node.entry["id"]
        if row.foldable and entry_id not in self.folded:
            self.folded.add(entry_id)
            self._rebuild(select=entry_id)
            return
        for position in range(self.index - 1, -1, -1):  # the start of this segment: the row after a branch point
            if self.rows[position].depth < row.depth or (
                position > 0 and len(self._visible_children(self.rows[position - 1].node.children)) > 1
            ):
                self.index = position
                return
        self.index = 0

    def _unfold_or_down(self) -> None:
        row = self.rows[self.index]
        entry_id = row.node.entry["id"]
        if entry_id in self.folded:
            self.folded.discard(entry_id)
            self._rebuild(select=entry_id)
            return
        for position in range(self.index + 1, len(self.rows)):
            if len(self._visible_children(self.rows[position].node.children)) != 1:
                self.index = position
                return
        self.index = len(self.rows) - 1

    def handle_action(self, action: str) -> bool:
        if action in _FILTER_ACTIONS:
            mode = _FILTER_ACTIONS[action]
            self.set_filter("default" if mode == self.filter_mode and mode != "default" else mode)
        elif action in ("app.tree.filter.cycleForward", "app.tree.filter.cycleBackward"):
            step = 1 if action.endswith("Forward") else -1
            self.set_filter(FILTER_MODES[(FILTER_MODES.index(self.filter_mode) + step) % len(FILTER_MODES)])
        elif action == "app.tree.toggleLabelTimestamp":
            self.show_label_timestamps = not self.show_label_timestamps
        elif action == "app.message.copy":
            if self.on_copy is None:
                return False
            self.on_copy(entry_copy_text(self.rows[self.index].node.entry) if self.rows else None)
        elif action == "app.tree.editLabel":
            if self.selected_id is not None and self.on_edit_label is not None:
                self.on_edit_label(self.selected_id)
        elif not self.rows and action not in ("tui.select.cancel", "tui.editor.deleteCharBackward"):
            return action.startswith(("tui.select.", "app.tree."))
        elif action == "tui.select.up":
            self.index = (self.index - 1) % len(self.rows)
        elif action == "tui.select.down":
            self.index = (self.index + 1) % len(self.rows)
        elif action in ("tui.select.pageUp", "tui.editor.cursorLeft"):  # Left/Right page, as in Pi
            self.index = max(0, self.index - self.max_visible)
        elif action in ("tui.select.pageDown", "tui.editor.cursorRight"):
            self.index = min(len(self.rows) - 1, self.index + self.max_visible)
        elif action == "app.tree.foldOrUp":
            self._fold_or_up()
        elif action == "app.tree.unfoldOrDown":
            self._unfold_or_down()
        elif action == "tui.select.confirm":
            self.chosen = self.selected_id
            if self.chosen is not None and self.on_select is not None:
                self.on_select(self.chosen)
        elif action == "tui.select.cancel" and self.query:  # Escape clears a search before it closes
            self.query = ""
            self.folded.clear()
            self._rebuild()
        elif action == "tui.select.cancel":
            self.cancelled = True
            if self.on_cancel is not None:
                self.on_cancel()
        elif action == "tui.editor.deleteCharBackward" and self.query:
            self.query = self.query[:-1]
            self.folded.clear()
            self._rebuild()
        else:
            return False
        return True

    # --- drawing -----------------------------------------------------------------------------

    def _status(self) -> str:
        """`` [no-tools]`` and the like after the position, as Pi marks a filter in use."""
        labels = {"no-tools": " [no-tools]", "user-only": " [user]", "labeled-only": " [labeled]", "all": " [all]"}
        return labels.get(self.filter_mode, "") + (" [+label time]" if self.show_label_timestamps else "")

    def render(self, width: int) -> list[str]:
        theme = self.context.theme
        rule = theme.fg("border", "─" * max(1, width))
        search = "  " + theme.fg("muted", "Type to search:")
        if self.query:
            search += " " + theme.fg("accent", self.query)
        title = truncate(" " + bold("  Session Tree"), width)
        lines = ["", rule, title, *tree_help(self.context.keymap, theme, width), truncate(search, width), rule, ""]
        if not self.rows:
            lines.append(truncate(theme.fg("muted", "  No entries found"), width))
            lines.append(truncate(theme.fg("muted", f"  (0/0){self._status()}"), width))
        else:
            self._scroll = scroll_start(self.index, len(self.rows), self.max_visible, self._scroll)
            for position in range(self._scroll, min(len(self.rows), self._scroll + self.max_visible)):
                lines.append(self._render_row(self.rows[position], position == self.index, width))
            position_text = f"  ({self.index + 1}/{len(self.rows)}){self._status()}"
            lines.append(truncate(theme.fg("muted", position_text), width))
        return [*lines, "", rule]

    def _render_row(self, row: TreeRow, selected: bool, width: int) -> str:
        theme = self.context.theme
        node = row.node
        entry_id = node.entry["id"]
        body = styled_text(entry_parts(node.entry, self._calls, self.context.home), theme, selected=selected)
        if node.label:
            label = f"[{node.label}]"
            if self.show_label_timestamps and node.label_timestamp:
                label = f"[{node.label} {node.label_timestamp}]"
            body = theme.fg("warning", label) + " " + body
        prefix = theme.fg("dim", _fold_prefix(row))
        if row.folded and not row.prefix:
            prefix += theme.fg("accent", FOLDED + " ")  # a root has no connector to carry the marker
        if entry_id in self._active:
            prefix += theme.fg("accent", "• ")  # on the path to the current leaf
        cursor = theme.fg("accent", "› ") if selected else "  "
        line = truncate(cursor + prefix + body, width)
        return with_background(line, width, theme.bg_code("selectedBg")) if selected else line


def _fold_prefix(row: TreeRow) -> str:
    """The connector lines, with the fold marker in place of the connector's dash."""
    if not row.foldable or not row.prefix.endswith(("├─ ", "└─ ")):
        return row.prefix
    return row.prefix[:-2] + (FOLDED if row.folded else FOLDABLE) + " "
