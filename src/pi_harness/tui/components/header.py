"""The startup header: name and version, the main keys, and what was loaded (or failed to load)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from pi_harness.tui.ansi import truncate, wrap
from pi_harness.tui.components.base import RenderContext

# (action, what it does) for the key hints; the keys come from the key table.
_HINTS = (
    ("app.interrupt", "to interrupt"),
    ("app.clear", "to clear, twice to exit"),
    ("app.exit", "to exit (empty editor)"),
    ("app.model.select", "to select a model"),
    ("app.thinking.cycle", "to cycle thinking"),
    ("app.tools.expand", "to expand tools"),
    ("app.thinking.toggle", "to toggle thinking"),
    ("app.editor.external", "for the external editor"),
    ("app.message.followUp", "to queue a follow-up"),
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
    header_only: bool = False  # quietStartup "header": no lists of what was loaded


class Header:
    def __init__(self, data: HeaderData, context: RenderContext) -> None:
        self.data = data
        self.context = context

    def render(self, width: int) -> list[str]:
        theme, data = self.context.theme, self.data
        lines: list[str] = []
        if not data.quiet:
            title = theme.style(data.app_name, "accent", bold=True)
            if data.version:
                title += theme.fg("dim", f" v{data.version}")
            lines.append(truncate(title, width))
            for action, text in _HINTS:
                key = self.context.keymap.label(action)
                if key:
                    lines.append(truncate(theme.fg("dim", key) + theme.fg("muted", f" {text}"), width))
            lines.append(truncate(theme.fg("dim", "/") + theme.fg("muted", " for commands, ") + theme.fg("dim", "!")
                                  + theme.fg("muted", " to run bash, ") + theme.fg("dim", "@")
                                  + theme.fg("muted", " to reference files"), width))  # fmt: skip
            sections = [
                ("Context", [self.context.short_path(p) for p in data.context_files]),
                ("Skills", list(data.skills)),
                ("Prompts", list(data.prompts)),
                ("Extensions", [self.context.short_path(p) for p in data.extensions]),
                ("Themes", list(data.themes)),
            ]
            for label, values in [] if data.header_only else sections:
                if values:
                    lines.append("")
                    lines.append(theme.fg("accent", f"[{label}]"))
                    lines.extend(truncate(theme.fg("dim", f"  {value}"), width) for value in values)
        problems = [d for d in data.diagnostics if d.kind != "info" or not data.quiet]
        if problems:
            if lines:
                lines.append("")
            lines.append(theme.fg("warning", "[Diagnostics]"))
            for diagnostic in problems:
                token = "error" if diagnostic.kind == "error" else "warning" if diagnostic.kind != "info" else "muted"
                lines.extend("  " + row for row in wrap(theme.fg(token, diagnostic.message), max(1, width - 2)))
        return [truncate(line, width) for line in lines]
