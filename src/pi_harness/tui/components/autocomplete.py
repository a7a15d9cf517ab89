"""Suggestions under the editor: ``/`` commands, ``@`` file references and Tab path completion.

``update(editor)`` recomputes the suggestions from the text before the cursor after every edit:

* ``/name`` at the start of the first line → commands (prefix matches first, then fuzzy); after
  ``/name `` an optional argument completer provides values;
* a word starting with ``@`` → project files and directories, fuzzy, ``.gitignore`` honoured;
* Tab on any other word → the same file suggestions for that word (``force_files``).

Accepting replaces the typed word: ``/model ``, ``@src/app.py `` (directories keep the popup
open: ``@src/``). At most ``max_visible`` rows are shown (setting ``autocompleteMaxVisible``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pi_harness.tui.ansi import pad, truncate, visible_width
from pi_harness.tui.components.editor import Editor
from pi_harness.tui.file_index import FileIndex
from pi_harness.tui.fuzzy import fuzzy_filter, prefix_then_fuzzy
from pi_harness.tui.theme import Theme

CompletionKind = Literal["command", "argument", "file", "extension"]
MAX_FILE_SUGGESTIONS = 200


@dataclass(frozen=True)
class CommandInfo:
    name: str  # without the slash
    description: str = ""


@dataclass(frozen=True)
class CompletionItem:
    value: str  # replaces the typed word
    label: str
    description: str = ""


# (command name, argument prefix) -> suggestions for the argument
ArgumentCompleter = Callable[[str, str], Sequence[CompletionItem]]
# An extension's provider (``ctx.ui.add_autocomplete_provider``): the text before the cursor ->
# ``{"prefix": typed part to replace, "items": [{"value", "label", "description"}]}`` or None.
SuggestionProvider = Callable[[str], Mapping[str, Any] | None]


def clamp_max_visible(value: object) -> int:
    """``autocompleteMaxVisible`` limited to 3–20 (default 5)."""
    if not isinstance(value, int) or isinstance(value, bool):
        return 5
    return max(3, min(20, value))


def _quote_path(path: str) -> str:
    return f'"{path}"' if " " in path else path


class Autocomplete:
    def __init__(
        self,
        theme: Theme,
        *,
        commands: Sequence[CommandInfo] | Callable[[], Sequence[CommandInfo]] = (),
        files: FileIndex | None = None,
        max_visible: int = 5,
        argument_completer: ArgumentCompleter | None = None,
    ) -> None:
        self.theme = theme
        self._commands = commands
        self.files = files
        self.max_visible = clamp_max_visible(max_visible)
        self.argument_completer = argument_completer
        self.items: list[CompletionItem] = []
        self.selected = 0
        self.kind: CompletionKind | None = None
        self._row = 0
        self._start = 0
        self._end = 0
        self._dismissed: tuple[int, int, str] | None = None
        self._scroll = 0
        self._provider: SuggestionProvider | None = None  # extension providers, stacked on the built-in one
        self._builtin_answer: Mapping[str, Any] | None = None

    def add_provider(self, factory: Callable[[SuggestionProvider], SuggestionProvider]) -> None:
        """Stack an extension's provider; ``factory`` gets the provider below it (at the bottom, ours)."""
        below = self._provider or self._builtin_suggestions
        self._provider = factory(below)

    def _builtin_suggestions(self, before: str) -> Mapping[str, Any] | None:
        """What the built-in completion found for ``before`` (computed by ``update`` just before)."""
        if not self.items:
            return None
        items = [{"value": i.value, "label": i.label, "description": i.description} for i in self.items]
        self._builtin_answer = {"prefix": before[self._start : self._end], "items": items}
        return self._builtin_answer

    def _ask_provider(self, provider: SuggestionProvider, before: str) -> None:
        self._builtin_answer = None
        answer = provider(before)
        if answer is not None and answer is self._builtin_answer:
            return  # passed through unchanged: keep the built-in kind (Enter on "/mo" still runs /model)
        if not isinstance(answer, Mapping):
            self.close()
            return
        prefix = str(answer.get("prefix", ""))
        items = [
            CompletionItem(str(item.get("value", "")), str(item.get("label", item.get("value", ""))),
                           str(item.get("description", "")))
            for item in answer.get("items", []) if isinstance(item, Mapping)
        ]  # fmt: skip
        if not items:
            self.close()
            return
        self.items, self.selected = items, 0
        self.kind, self._start, self._end = "extension", max(0, len(before) - len(prefix)), len(before)

    @property
    def active(self) -> bool:
        return bool(self.items)

    def commands(self) -> Sequence[CommandInfo]:
        return self._commands() if callable(self._commands) else self._commands

    def close(self) -> None:
        self.items = []
        self.kind = None
        self.selected = 0
        self._scroll = 0

    def dismiss(self, editor: Editor) -> None:
        """Escape: hide the suggestions until the word under the cursor changes."""
        self._dismissed = (editor.row, self._start, editor.text_before_cursor)
        self.close()

    def update(self, editor: Editor, *, force_files: bool = False) -> None:
        before = editor.text_before_cursor
        previous = self.items[self.selected] if self.items else None
        self.close()
        if self._dismissed is not None:
            row, _, text = self._dismissed
            if row == editor.row and text == before:
                return
            self._dismissed = None
        if editor.row == 0 and before.startswith("/"):
            self._complete_command(before)
        else:
            self._complete_word(editor, before, force_files)
        if self._provider is not None:
            self._ask_provider(self._provider, before)
        self._row = editor.row
        if previous is not None and previous in self.items:
            self.selected = self.items.index(previous)

    def _complete_command(self, before: str) -> None:
        name, space, argument = before[1:].partition(" ")
        if not space:
            commands = self.commands()
            matches = prefix_then_fuzzy(list(commands), name, key=lambda c: c.name)
            self.items = [CompletionItem(f"/{c.name} ", f"/{c.name}", c.description) for c in matches]
            self.kind, self._start, self._end = "command", 0, len(before)
        elif self.argument_completer is not None:
            self.items = list(self.argument_completer(name, argument))
            self.kind, self._start, self._end = "argument", len(name) + 2, len(before)

    def _complete_word(self, editor: Editor, before: str, force: bool) -> None:
        start = max(before.rfind(" "), before.rfind("\t")) + 1
        word = before[start:]
        if word.startswith("@"):
            query, prefix = word[1:].strip('"'), "@"
        elif force:
            query, prefix = word, ""
        else:
            return
        if self.files is None:
            return
        matches = (
            fuzzy_filter(self.files.entries(), query, limit=MAX_FILE_SUGGESTIONS)
            if query
            else (self.files.entries()[:MAX_FILE_SUGGESTIONS])
        )
        items = []
        for path in matches:
            value = prefix + _quote_path(path) + ("" if path.endswith("/") else " ")
            items.append(CompletionItem(value, path))
        self.items = items
        self.kind, self._start, self._end = "file", start, len(before)

    def move(self, delta: int) -> None:
        if self.items:
            self.selected = (self.selected + delta) % len(self.items)

    def accept(self, editor: Editor) -> CompletionItem | None:
        """Put the selected suggestion into the editor; returns it (None when nothing was shown)."""
        if not self.items:
            return None
        item = self.items[self.selected]
        kind = self.kind
        editor.replace_range(self._row, self._start, self._end, item.value)
        self.close()
        if kind == "file" and item.value.rstrip('"').endswith("/"):
            self.update(editor)  # keep browsing inside the directory
        return item

    def handle_action(self, action: str, editor: Editor) -> bool:
        """Keys while suggestions are shown; False when the popup is closed or the key is not ours."""
        if not self.items:
            return False
        if action in ("tui.select.up", "tui.editor.cursorUp"):
            self.move(-1)
        elif action in ("tui.select.down", "tui.editor.cursorDown"):
            self.move(1)
        elif action in ("tui.input.tab", "tui.select.confirm", "tui.input.submit"):
            self.accept(editor)
        elif action in ("tui.select.cancel", "app.interrupt"):
            self.dismiss(editor)
        else:
            return False
        return True

    def render(self, width: int) -> list[str]:
        if not self.items:
            return []
        theme = self.theme
        count = len(self.items)
        if self.selected < self._scroll:
            self._scroll = self.selected
        elif self.selected >= self._scroll + self.max_visible:
            self._scroll = self.selected - self.max_visible + 1
        visible = self.items[self._scroll : self._scroll + self.max_visible]
        label_width = min(max(visible_width(item.label) for item in visible) + 2, max(10, width // 2))
        lines = []
        for offset, item in enumerate(visible):
            chosen = self._scroll + offset == self.selected
            label = pad(truncate(item.label, label_width - 1), label_width) if item.description else item.label
            head = ("→ " if chosen else "  ") + label
            line = theme.style(head, "accent", bold=True) if chosen else head
            if item.description:
                line += theme.fg("muted", item.description)
            lines.append(truncate(line, width))
        if count > self.max_visible:
            lines.append(theme.fg("muted", truncate(f"  ({self.selected + 1}/{count})", width)))
        return lines
