"""``ModeContext``: what the parts of the interactive mode see of the running mode.

``InteractiveMode`` builds its parts (key actions, slash commands, the submitter, the session
controller, the extension UI) and hands itself to each as a ``ModeContext``. The parts depend on
this description, not on the mode's module, nor on each other's: what one part offers the others
is a narrow Protocol here (``CommandRunner``, ``PromptSubmitter``, ``ConversationView``). So the
mode's module is the only one that knows all the parts.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Sequence
from pathlib import Path
from typing import Literal, Protocol, TypeVar

from pi_harness.cli.modes.interactive.shell import Shell
from pi_harness.coding.agent_session.agent_session import AgentSession
from pi_harness.coding.session_runtime.runtime import AgentSessionRuntime
from pi_harness.tui.components.base import Component
from pi_harness.tui.theme import ThemeSpec
from pi_harness.tui.theme_registry import ThemeRegistry

T = TypeVar("T")
# An ``async def``'s coroutine; its yield and send types are asyncio's business, not ours.
Work = Coroutine[object, None, T]


class CommandRunner(Protocol):
    """The built-in slash commands (``SlashCommands``)."""

    def find(self, text: str) -> tuple[str, str] | None: ...
    async def run(self, name: str, args: str) -> None: ...
    async def cycle_model(self, direction: Literal["forward", "backward"]) -> None: ...


class PromptSubmitter(Protocol):
    """What sends the editor's content (``Submitter``)."""

    def submit(self, *, follow_up: bool = False) -> None: ...


class ConversationView(Protocol):
    """The session as the screen shows it (``SessionController``)."""

    @property
    def last_compaction_error(self) -> str | None: ...
    def update_footer(self) -> None: ...
    def show_conversation(self, session: AgentSession) -> None: ...
    def check_extra_usage(self) -> None: ...


class ModeContext(Protocol):
    """The running interactive mode (``InteractiveMode``), as its parts use it."""

    double_escape_action: str  # the /settings value, changed there for the rest of the run
    tree_filter_mode: str
    navigating: bool  # /tree is summarising the branch left behind
    themes: ThemeRegistry  # /reload finds the theme files again

    @property
    def shell(self) -> Shell: ...
    @property
    def runtime(self) -> AgentSessionRuntime: ...
    @property
    def session(self) -> AgentSession: ...
    @property
    def agent_dir(self) -> Path: ...

    header: Component | None  # the built-in header or an extension's (``ctx.ui.set_header``)

    @property
    def busy(self) -> bool: ...

    @property
    def commands(self) -> CommandRunner: ...
    @property
    def submitter(self) -> PromptSubmitter: ...
    @property
    def controller(self) -> ConversationView: ...

    def spawn(self, work: Work[T]) -> asyncio.Task[T]: ...
    def set_tools_expanded(self, expanded: bool) -> None: ...
    def toggle_thinking_blocks(self) -> bool: ...
    def apply_theme(self, theme: str | ThemeSpec) -> str | None: ...
    def restore_to_editor(self, texts: Sequence[str]) -> None: ...
    async def quit(self, code: int = 0) -> None: ...
    async def quit_when_idle(self) -> None: ...
