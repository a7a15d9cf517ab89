"""The project trust question (``docs/security.md``), asked before protected resources load.

Choices: ``Trust`` and ``Don't trust`` are saved in ``trust.json`` by the caller; ``Trust once``
loads them for this run only. Escape means "don't trust" for this run without saving.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Literal

from pi_harness.tui.ansi import truncate, wrap
from pi_harness.tui.components.base import RenderContext
from pi_harness.tui.components.selector import SelectItem, Selector

TRUST_TITLE = "Trust this project?"
TrustChoice = Literal["trust", "deny", "once", "cancel"]
TRUST_OPTIONS: tuple[tuple[str, TrustChoice], ...] = (
    ("Trust", "trust"),
    ("Don't trust", "deny"),
    ("Trust once", "once"),
)


class TrustPrompt:
    def __init__(
        self,
        project: str,
        resources: Sequence[str],
        context: RenderContext,
        *,
        on_result: Callable[[TrustChoice], None] | None = None,
    ) -> None:
        self.project = project
        self.resources = list(resources)
        self.context = context
        self.on_result = on_result
        self.choice: TrustChoice | None = None
        self.selector: Selector[TrustChoice] = Selector(
            [SelectItem(value, label) for label, value in TRUST_OPTIONS],
            context,
            filterable=False,
            on_select=self._resolve,
            on_cancel=lambda: self._resolve("cancel"),
        )

    def _resolve(self, choice: TrustChoice) -> None:
        if self.choice is None:
            self.choice = choice
            if self.on_result is not None:
                self.on_result(choice)

    @property
    def done(self) -> bool:
        return self.choice is not None

    def handle_text(self, text: str) -> bool:
        return False

    def handle_action(self, action: str) -> bool:
        return self.selector.handle_action(action)

    def _display(self, resource: str) -> str:
        """A resource inside the project relative to it (``.pi/skills``): the intro already names
        the project, and a deep checkout would otherwise push the part that matters off the row."""
        root = self.project.rstrip(os.sep) + os.sep
        return resource[len(root) :] if resource.startswith(root) else self.context.short_path(resource)

    def render(self, width: int) -> list[str]:
        theme = self.context.theme
        rule = theme.fg("borderAccent", "─" * width)
        lines = [rule, truncate(theme.style(TRUST_TITLE, "accent", bold=True), width)]
        intro = f"{self.context.short_path(self.project)} has project resources that change how the agent behaves:"
        lines.extend(wrap(intro, width))
        for resource in self.resources:
            lines.append(truncate(theme.fg("warning", f"  {self._display(resource)}"), width))
        lines.append("")
        note = "Only trust projects you know. Tools work the same either way; this only decides what is loaded."
        lines.extend(theme.fg("muted", row) for row in wrap(note, width))
        lines.append("")
        lines.extend(self.selector.body_lines(width))
        lines.append(rule)
        return lines
