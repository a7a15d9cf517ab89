"""A built-in slash command: its name, what it does, how it runs and what its argument may be."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pi_harness.tui.components.autocomplete import CompletionItem

if TYPE_CHECKING:
    from pi_harness.cli.modes.interactive.context import ModeContext

CommandHandler = Callable[["ModeContext", str], Awaitable[None]]
ArgumentSource = Callable[["ModeContext", str], list[CompletionItem]]
Availability = Callable[["ModeContext"], bool]


@dataclass(frozen=True)
class Builtin:
    name: str
    description: str
    handler: CommandHandler
    idle_only: bool = False  # refused while the agent works (it replaces or rewinds the conversation)
    arguments: ArgumentSource | None = None
    # When it says no, the command is neither listed, completed nor run (``/name`` is then text
    # like any other): e.g. ``/llama`` while the llama.cpp built-in is disabled.
    available: Availability | None = None

    def offered(self, mode: ModeContext) -> bool:
        return self.available is None or self.available(mode)


def complete_from(values: list[str], prefix: str, descriptions: dict[str, str] | None = None) -> list[CompletionItem]:
    """Values starting with ``prefix`` (case-insensitive) as completion items."""
    lowered = prefix.lower()
    return [
        CompletionItem(value, value, (descriptions or {}).get(value, ""))
        for value in values
        if value.lower().startswith(lowered)
    ]
