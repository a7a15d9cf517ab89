"""What interactive mode needs from the command line layer, described structurally.

``pi_harness.tui`` may not import ``pi_harness.cli`` (the layers only point down), yet the
interactive mode reuses the startup bootstrap, the initial-input processing and the crash
notice of the CLI. ``cli/run.py`` passes those modules in; these protocols say which of their
members are used, so mypy checks the modules against them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from pi_harness.ai.types import ImageContent
from pi_harness.coding.config.settings import SettingsManager
from pi_harness.coding.config.trust import TrustDecision
from pi_harness.coding.session_runtime.runtime import AgentSessionRuntime


class InteractiveArgs(Protocol):
    """The parsed command line (``ParsedArgs``): what the interactive mode reads or sets."""

    session: str | None

    @property
    def resume(self) -> bool: ...
    @property
    def messages(self) -> list[str]: ...
    @property
    def file_args(self) -> list[str]: ...
    @property
    def themes(self) -> list[str]: ...
    @property
    def use_theme(self) -> str | None: ...


class BootLike(Protocol):
    """``Boot``: the decisions taken before the session exists."""

    @property
    def cwd(self) -> Path: ...
    @property
    def agent_dir(self) -> Path: ...
    @property
    def global_settings(self) -> SettingsManager: ...
    @property
    def trust(self) -> TrustDecision: ...
    @property
    def session_dir(self) -> str | None: ...
    @property
    def warnings(self) -> list[str]: ...


class StartedLike(Protocol):
    """``Started``: the running session runtime and what startup had to say."""

    @property
    def runtime(self) -> AgentSessionRuntime: ...
    @property
    def diagnostics(self) -> list[str]: ...
    @property
    def model_fallback_message(self) -> str | None: ...


class Bootstrap(Protocol):
    """``pi_harness.cli.bootstrap``."""

    @property
    def StartupError(self) -> type[Exception]: ...  # the module's class

    async def prepare_boot(self, parsed: Any, mode: str) -> BootLike: ...
    async def start_runtime(self, boot: Any, trusted: bool, *, on_warning: Callable[[str], None]) -> StartedLike: ...
    def fatal_diagnostics(self, diagnostics: list[str]) -> str | None: ...


class InitialInputLike(Protocol):
    @property
    def message(self) -> str | None: ...
    @property
    def images(self) -> list[ImageContent]: ...
    @property
    def messages(self) -> list[str]: ...


class InitialInputModule(Protocol):
    """``pi_harness.cli.initial_input``."""

    @property
    def FileArgumentError(self) -> type[Exception]: ...  # the module's class

    def prepare_initial_input(
        self,
        messages: list[str],
        file_args: list[str],
        *,
        read_stdin: bool,
        auto_resize: bool = True,
        cwd: str | None = None,
    ) -> InitialInputLike: ...


class CrashLog(Protocol):
    """``pi_harness.cli.crash_log``."""

    def announce_previous_crash(self) -> str | None: ...


def exit_code(error: BaseException) -> int:
    """The exit code a ``StartupError`` carries (1 for anything else)."""
    code = getattr(error, "code", 1)
    return code if isinstance(code, int) else 1


__all__ = [
    "BootLike",
    "Bootstrap",
    "CrashLog",
    "InitialInputLike",
    "InitialInputModule",
    "InteractiveArgs",
    "StartedLike",
    "exit_code",
]
