"""Before the conversation: the screen, the theme, the trust question, the ``--resume`` picker, the header.

``InteractiveStartup`` is the interactive mode's part of the shared startup sequence
(``cli/startup.py``): the screen starts before the session, so the ``--resume`` picker and the
trust question can ask the user; warnings and diagnostics are kept for the header instead of
going to stderr, and a missing model is a notice, not the end of the run.

The screen is built from the global settings (project settings load only once the project is
trusted), with ``<agentDir>/themes`` and ``--theme`` files; once the session runs, the theme is
chosen again among every theme the resource loader found.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import replace

from pi_harness.__about__ import __version__
from pi_harness.cli.args import ParsedArgs
from pi_harness.cli.bootstrap import Boot, Started
from pi_harness.cli.mode import AppMode
from pi_harness.cli.modes.interactive.session_browser import SessionBrowser
from pi_harness.cli.modes.interactive.shell import Shell, Terminal
from pi_harness.coding.agent_session.agent_session import AgentSession
from pi_harness.coding.config.settings import Scope, SettingsManager
from pi_harness.coding.config.trust import TrustStore
from pi_harness.tui.components.header import Diagnostic, Header, HeaderData
from pi_harness.tui.components.trust_prompt import TrustChoice, TrustPrompt
from pi_harness.tui.keybindings import KeyMap
from pi_harness.tui.terminal_colors import TerminalColors, query_terminal_colors, reported_colors, set_reported_colors
from pi_harness.tui.theme import BUILTIN_THEMES, SYSTEM_THEME
from pi_harness.tui.theme_registry import ThemeRegistry, detect_default_theme
from pi_harness.tui.ui_settings import UiSettings, color_mode

UNTRUSTED_NOTICE = "Project resources were not loaded: this project is not trusted"
NO_SESSION_SELECTED = "No session selected"


class InteractiveStartup:
    """The ``ModeStartup`` of the interactive mode; ``shell`` exists once trust is decided."""

    mode: AppMode = "interactive"
    pauses_collection = False  # the user may take their time in the picker or the trust question
    diagnostics_to_stderr = False  # they go into the header
    reads_initial_input = True
    reads_piped_stdin = False  # stdin is the terminal

    def __init__(self, parsed: ParsedArgs, terminal: Terminal | None) -> None:
        self.parsed = parsed
        self.terminal = terminal
        self.notes: list[str] = []  # warnings for the header
        self._shell: Shell | None = None

    @property
    def shell(self) -> Shell:
        assert self._shell is not None, "the screen exists once trust is decided"
        return self._shell

    async def decide_trust(self, boot: Boot) -> bool | None:
        """``--resume`` picks the session first, then an undecided project is asked about."""
        shell = create_shell(boot, self.parsed, self.terminal)
        self._shell = shell
        self.notes = list(boot.warnings)
        parsed = self.parsed
        trusted = boot.trust.effective(interactive=True)

        async def before_session() -> bool:
            nonlocal trusted
            if parsed.resume:
                path = await pick_session_to_resume(shell, boot)
                if path is None:
                    return False
                parsed.session = path
            if boot.trust.needs_prompt:
                trusted = await ask_trust(shell, boot)
            return True

        if (parsed.resume or boot.trust.needs_prompt) and not await shell.run_until(before_session()):
            print(NO_SESSION_SELECTED, flush=True)
            return None
        return trusted

    def warn(self, message: str) -> None:
        self.notes.append(message)

    def accept(self, started: Started) -> bool:
        return True  # without a model the user can still log in and pick one


def theme_name(parsed: ParsedArgs, settings: SettingsManager) -> str:
    """``--use-theme``, else the ``theme`` a settings file names, else one matching the terminal."""
    if parsed.use_theme:
        return parsed.use_theme
    scopes: tuple[Scope, ...] = ("project", "global")
    for scope in scopes:
        value = settings.scope_value(scope, "theme")
        if isinstance(value, str) and value:
            return value
    reported = reported_colors()
    if reported is not None and reported.background is not None:
        return SYSTEM_THEME  # built from the terminal's own colours
    return detect_default_theme()


def ask_terminal_colors(terminal: Terminal | None) -> None:
    """Before the screen takes the terminal: its colours, for the ``system`` theme (100 ms at most)."""
    if terminal is not None or reported_colors() is not None:
        return
    try:
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            return
        set_reported_colors(query_terminal_colors(sys.stdin.fileno(), sys.stdout.fileno()))
    except (OSError, ValueError, ImportError):  # no termios (Windows) or a terminal refusing the mode
        set_reported_colors(TerminalColors())


def create_shell(boot: Boot, parsed: ParsedArgs, terminal: Terminal | None) -> Shell:
    """The screen in the global settings' look (the session's own themes come with ``adopt_session_look``)."""
    settings = boot.global_settings
    ask_terminal_colors(terminal)
    paths: list[str] = []
    if (boot.agent_dir / "themes").is_dir():
        paths.append(str(boot.agent_dir / "themes"))
    paths += [str((boot.cwd / path).resolve()) for path in parsed.themes]
    registry = ThemeRegistry(paths)
    ui = UiSettings.from_values(settings.values)
    if parsed.tui_mode is not None:
        ui = replace(ui, tui_mode=parsed.tui_mode)
    theme = registry.create(theme_name(parsed, settings), color_mode(ui, os.environ))
    return Shell(
        theme=theme,
        keymap=KeyMap.load(boot.agent_dir),
        ui=ui,
        cwd=str(boot.cwd),
        terminal=terminal,
    )


def adopt_session_look(shell: Shell, parsed: ParsedArgs, session: AgentSession) -> ThemeRegistry:
    """Settings and themes as the running session sees them (trusted project files included)."""
    shell.apply_ui(UiSettings.from_values(session.settings.values))
    registry = ThemeRegistry(session.resource_loader.get_theme_paths())
    theme = registry.create(theme_name(parsed, session.settings), shell.theme.mode)
    shell.set_theme(theme, redraw=False)
    return registry


async def ask_trust(shell: Shell, boot: Boot) -> bool:
    """The trust question; ``Trust`` and ``Don't trust`` are saved, ``Trust once`` is not."""
    context = shell.context
    resources = list(boot.trust.resources)
    choice: TrustChoice = await shell.ask(lambda done: TrustPrompt(str(boot.cwd), resources, context, on_result=done))
    if choice in ("trust", "deny"):
        TrustStore(boot.agent_dir).save(boot.cwd, choice == "trust")
    return choice in ("trust", "once")


async def pick_session_to_resume(shell: Shell, boot: Boot) -> str | None:
    browser = SessionBrowser(shell, cwd=str(boot.cwd), session_dir=boot.session_dir)
    info = await browser.choose()
    return str(info.path) if info is not None else None


def classify(message: str) -> Diagnostic:
    lowered = message.lower()
    if lowered.startswith("error") or "failed" in lowered or "invalid" in lowered:
        return Diagnostic("error", message)
    return Diagnostic("warning", message)


def custom_unsupported(shell: Shell) -> list[str]:
    """Keys this terminal cannot deliver, among those the user chose (the defaults are known)."""
    defaults = KeyMap()
    keymap = shell.keymap
    return [
        text for text in shell.unsupported_keys
        if keymap.keys(text.partition(":")[0]) != defaults.keys(text.partition(":")[0])
    ]  # fmt: skip


def build_header(
    shell: Shell, session: AgentSession, registry: ThemeRegistry, notes: Sequence[str], *, trusted: bool
) -> Header:
    """The startup header: keys, then what was loaded, then anything that went wrong."""
    loader = session.resource_loader
    diagnostics = [classify(note) for note in notes]
    diagnostics += [Diagnostic("warning", text) for text in (*shell.keymap.diagnostics, *custom_unsupported(shell))]
    diagnostics += [Diagnostic("warning", text) for text in registry.diagnostics]
    if not trusted:
        diagnostics.append(Diagnostic("info", UNTRUSTED_NOTICE))
    data = HeaderData(
        app_name="pi",
        version=__version__,
        context_files=[file.path for file in loader.get_agents_files()],
        skills=[skill.name for skill in loader.get_skills()],
        skill_paths=[skill.file_path for skill in loader.get_skills()],
        prompts=[f"/{prompt.name}" for prompt in loader.get_prompts()],
        extensions=[extension.path for extension in session.extensions.extensions],
        themes=[name for name in registry.names() if name not in (*BUILTIN_THEMES, SYSTEM_THEME)],
        diagnostics=diagnostics,
        quiet=shell.ui.quiet_startup,
        details=shell.ui.startup_details,
    )
    return Header(data, shell.context)
