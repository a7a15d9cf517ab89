"""``/hotkeys``: the keyboard shortcuts, as the tables Pi 1.4.0 shows.

Three markdown tables (Navigation, Editing, Other) name the keys of the current key table in
their capitalised form (``Escape/Ctrl+C``), followed by an Extensions table when extensions
registered shortcuts. The block is a rule, the accent title ``Keyboard Shortcuts``, a blank row,
the tables (one column of padding, a blank row above and below) and a closing rule.
"""

from __future__ import annotations

from collections.abc import Sequence

from pi_harness.tui.components.base import RenderContext
from pi_harness.tui.keybindings import KeyMap

# (keys: one or more actions joined with " / ", the action's description); "!" and the like are literal keys
_NAVIGATION = (
    (("tui.editor.cursorUp", "tui.editor.cursorDown", "tui.editor.cursorLeft", "tui.editor.cursorRight"),
     "Move cursor / browse history"),
    (("tui.editor.cursorWordLeft", "tui.editor.cursorWordRight"), "Move by word"),
    (("tui.editor.cursorLineStart",), "Start of line"),
    (("tui.editor.cursorLineEnd",), "End of line"),
    (("tui.editor.jumpForward",), "Jump forward to character"),
    (("tui.editor.jumpBackward",), "Jump backward to character"),
    (("tui.editor.pageUp", "tui.editor.pageDown"), "Scroll by page"),
)  # fmt: skip
_EDITING = (
    (("tui.input.submit",), "Send message"),
    (("tui.input.newLine",), "New line"),
    (("tui.editor.deleteWordBackward",), "Delete word backwards"),
    (("tui.editor.deleteWordForward",), "Delete word forwards"),
    (("tui.editor.deleteToLineStart",), "Delete to start of line"),
    (("tui.editor.deleteToLineEnd",), "Delete to end of line"),
    (("tui.editor.yank",), "Paste the most-recently-deleted text"),
    (("tui.editor.yankPop",), "Cycle through the deleted text after pasting"),
    (("tui.editor.undo",), "Undo"),
)
_OTHER = (
    (("tui.input.tab",), "Path completion / accept autocomplete"),
    (("app.interrupt",), "Cancel autocomplete / abort streaming"),
    (("app.clear",), "Clear editor (first) / exit (second)"),
    (("app.exit",), "Exit (when editor is empty)"),
    (("app.suspend",), "Suspend to background"),
    (("app.thinking.cycle",), "Cycle thinking level"),
    (("app.model.cycleForward", "app.model.cycleBackward"), "Cycle models"),
    (("app.model.select",), "Open model selector"),
    (("app.tools.expand",), "Toggle tool output expansion"),
    (("app.thinking.toggle",), "Toggle thinking block visibility"),
    (("app.editor.external",), "Edit message in external editor"),
    (("app.message.copy",), "Copy selection or last assistant message"),
    (("app.message.followUp",), "Queue follow-up message"),
    (("app.message.dequeue",), "Restore queued messages"),
    (("app.clipboard.pasteImage",), "Paste files on macOS, images, or text from clipboard"),
)
_LITERAL = (("/", "Slash commands"), ("!", "Run bash command"), ("!!", "Run bash command (excluded from context)"))


def _capitalised(key: str) -> str:
    return "+".join(part[:1].upper() + part[1:] for part in key.split("+"))


def _table(title: str, rows: Sequence[tuple[str, str]]) -> str:
    body = "".join(f"| {keys} | {action} |\n" for keys, action in rows)
    return f"**{title}**\n| Key | Action |\n|-----|--------|\n{body}"


def hotkeys_markdown(keymap: KeyMap, shortcuts: Sequence[tuple[str, str]] = ()) -> str:
    """The tables; ``shortcuts``: ``(key, description)`` of the extensions' shortcuts."""

    def rows(table: Sequence[tuple[tuple[str, ...], str]]) -> list[tuple[str, str]]:
        return [(" / ".join(f"`{keymap.display_label(name)}`" for name in names), text) for names, text in table]

    other = [*rows(_OTHER), *((f"`{key}`", text) for key, text in _LITERAL)]
    tables = [_table("Navigation", rows(_NAVIGATION)), _table("Editing", rows(_EDITING)), _table("Other", other)]
    if shortcuts:
        tables.append(_table("Extensions", [(f"`{_capitalised(key)}`", text) for key, text in shortcuts]))
    return "\n".join(tables).strip()


class HotkeysBlock:
    def __init__(self, markdown: str, context: RenderContext) -> None:
        self.markdown = markdown
        self.context = context

    def render(self, width: int) -> list[str]:
        theme = self.context.theme
        rule = theme.fg("border", "─" * max(1, width))
        title = " " + theme.style("Keyboard Shortcuts", "accent", bold=True)
        tables = self.context.markdown.render(self.markdown, max(1, width - 2))
        return ["", rule, title, "", "", *(" " + line for line in tables), "", rule]
