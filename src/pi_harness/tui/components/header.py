"""The startup header: name and version, the keys, what was loaded (or failed to load).

As in Pi it has a short form and a full one, switched with the tools-expansion key (Ctrl+O):
short, one line of the main keys, a line saying how to see more, and each kind of loaded
resource as one comma-separated line; full, every key on its own line and each resource with
its path. Problems are always shown in full.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field

from pi_harness.tui.ansi import truncate, wrap
from pi_harness.tui.components.base import RenderContext

# (action, what it does) for the full form; the keys come from the key table.
_HINTS = (
    ("app.interrupt", "to interrupt"),
    ("app.clear", "to clear"),
    ("app.clear twice", "to exit"),
    ("app.exit", "to exit (empty)"),
    ("app.suspend", "to suspend"),
    ("tui.editor.deleteToLineEnd", "to delete to end"),
    ("app.thinking.cycle", "to cycle thinking level"),
    ("app.model.cycleForward/app.model.cycleBackward", "to cycle models"),
    ("app.model.select", "to select model"),
    ("app.tools.expand", "to expand tools"),
    ("app.thinking.toggle", "to expand thinking"),
    ("app.editor.external", "for external editor"),
    ("/", "for commands"),
    ("!", "to run bash"),
    ("!!", "to run bash (no context)"),
    ("app.message.followUp", "to queue follow-up"),
    ("app.message.dequeue", "to edit all queued messages"),
    ("app.clipboard.pasteImage", "to paste images or text"),
)
# The short form's single line.
_COMPACT_HINTS = (
    ("app.interrupt", "interrupt"),
    ("app.clear/app.exit", "clear/exit"),
    ("/", "commands"),
    ("!", "bash"),
    ("app.tools.expand", "more"),
)


@dataclass
class Diagnostic:
    kind: str  # "error" | "warning" | "info" | "collision"
    message: str


@dataclass
class HeaderData:
    app_name: str = "pi"
    version: str = ""
    context_files: Sequence[str] = ()
    skills: Sequence[str] = ()
    prompts: Sequence[str] = ()
    extensions: Sequence[str] = ()
    themes: Sequence[str] = ()
    diagnostics: Sequence[Diagnostic] = field(default_factory=list)
    quiet: bool = False  # setting quietStartup: only problems are shown
    skill_paths: Sequence[str] = ()  # the full form lists skills by file, when known
    details: bool = True  # False for quietStartup "header": keys only, no loaded resources


class Header:
    def __init__(self, data: HeaderData, context: RenderContext) -> None:
        self.data = data
        self.context = context

    def _key(self, spec: str) -> str:
        """The keys of ``spec`` (``app.clear/app.exit``, ``app.clear twice``), literal text kept."""
        words = spec.split(" ", 1)
        if "." not in words[0]:
            return spec
        parts = [self.context.keymap.label(part) if "." in part else part for part in words[0].split("/")]
        if not all(parts):
            return ""
        return "/".join(parts) + (f" {words[1]}" if len(words) > 1 else "")

    def _hint(self, spec: str, text: str) -> str:
        key = self._key(spec)
        return self.context.theme.fg("dim", key) + self.context.theme.fg("muted", f" {text}") if key else ""

    def _keys(self, expanded: bool) -> list[str]:
        theme = self.context.theme
        if expanded:
            return [hint for spec, text in _HINTS if (hint := self._hint(spec, text))]
        compact = [hint for spec, text in _COMPACT_HINTS if (hint := self._hint(spec, text))]
        more = self._key("app.tools.expand") or "app.tools.expand"
        resources = " and loaded resources" if self.data.details else ""
        return [theme.fg("muted", " · ").join(compact),
                theme.fg("dim", f"Press {more} to show full startup help{resources}.")]  # fmt: skip

    def _relative(self, path: str) -> str:
        cwd = self.context.cwd
        if cwd and os.path.isabs(path):
            relative = os.path.relpath(path, cwd)
            if not relative.startswith(".."):
                return relative
        return self.context.short_path(path)

    def _sections(self, expanded: bool) -> list[tuple[str, list[str]]]:
        data, short = self.data, self.context.short_path
        extensions = [short(p) for p in data.extensions]
        if expanded:
            skills = [short(p) for p in data.skill_paths] or list(data.skills)
            context = [short(p) for p in data.context_files]
            return [("Context", context), ("Skills", skills), ("Prompts", list(data.prompts)),
                    ("Extensions", extensions), ("Themes", list(data.themes))]  # fmt: skip
        names = [os.path.basename(p.rstrip("/")) or p for p in extensions]
        return [
            ("Context", [self._relative(p) for p in data.context_files]),
            ("Skills", sorted(data.skills)),
            ("Prompts", sorted(data.prompts)),
            ("Extensions", sorted(names)),
            ("Themes", sorted(data.themes)),
        ]

    def render(self, width: int) -> list[str]:
        theme, data = self.context.theme, self.data
        expanded = self.context.expand_tools
        lines: list[str] = []
        if not data.quiet:
            title = theme.style(data.app_name, "accent", bold=True)
            if data.version:
                title += theme.fg("dim", f" v{data.version}")
            lines.append(title)
            lines.extend(self._keys(expanded))
            for label, values in self._sections(expanded) if data.details else ():
                if not values:
                    continue
                lines.append("")
                lines.append(theme.fg("mdHeading", f"[{label}]"))
                if expanded:
                    lines.extend(theme.fg("dim", f"  {value}") for value in values)
                else:
                    lines.extend(wrap(theme.fg("dim", "  " + ", ".join(values)), width))
        problems = [d for d in data.diagnostics if d.kind != "info" or not data.quiet]
        if problems:
            if lines:
                lines.append("")
            lines.append(theme.fg("warning", "[Diagnostics]"))
            for diagnostic in problems:
                token = "error" if diagnostic.kind == "error" else "warning" if diagnostic.kind != "info" else "muted"
                lines.extend("  " + row for row in wrap(theme.fg(token, diagnostic.message), max(1, width - 2)))
        return [truncate(line, width) for line in lines]
