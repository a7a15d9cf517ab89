"""``InteractiveMode``: one running interactive session on the shell.

It connects the parts: the controller feeds session events to the screen, the key actions and
the slash commands act on the session, the submitter turns the editor's content into prompts,
steering, follow-ups and shell commands, and the extension UI shows extension dialogs. The
session may be replaced (``/new``, ``/resume``, ``/fork`` …); everything reads
``mode.session`` at the moment it acts.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Sequence
from pathlib import Path
from typing import TypeVar

from pi_harness.cli.initial_input import PromptInput
from pi_harness.cli.modes.interactive import (
    cmd_app,
    cmd_changelog,
    cmd_import,
    cmd_llama,
    cmd_model,
    cmd_session,
    cmd_share,
    cmd_trust,
)
from pi_harness.cli.modes.interactive.commands import SlashCommands
from pi_harness.cli.modes.interactive.context import Work
from pi_harness.cli.modes.interactive.controller import SessionController
from pi_harness.cli.modes.interactive.extension_ui import InteractiveExtensionUI
from pi_harness.cli.modes.interactive.keys import KeyActions
from pi_harness.cli.modes.interactive.shell import Shell
from pi_harness.cli.modes.interactive.submit import Submitter
from pi_harness.coding.agent_session.agent_session import AgentSession
from pi_harness.coding.session_runtime.runtime import AgentSessionRuntime
from pi_harness.coding.tools import kill_all_tracked_processes
from pi_harness.tui.components.base import Component
from pi_harness.tui.theme import Theme, ThemeSpec
from pi_harness.tui.theme_registry import ThemeRegistry

SIGNAL_EXIT_CODES = {signal.SIGTERM: 143, signal.SIGHUP: 129}
THEME_CHECK_TICKS = 10  # look for edited custom theme files about once a second
ABORT_WAIT_SECONDS = 5
# The built-in slash commands, in the order ``/`` lists them.
BUILTIN_COMMANDS = (
    *cmd_model.COMMANDS,
    *cmd_session.COMMANDS,
    *cmd_app.COMMANDS,
    *cmd_llama.COMMANDS,
    *cmd_import.COMMANDS,
    *cmd_trust.COMMANDS,
    *cmd_changelog.COMMANDS,
    *cmd_share.COMMANDS,
)
T = TypeVar("T")


class InteractiveMode:
    def __init__(
        self,
        shell: Shell,
        runtime: AgentSessionRuntime,
        *,
        themes: ThemeRegistry,
        agent_dir: Path,
        header: Component | None = None,
    ) -> None:
        self.shell = shell
        self.runtime = runtime
        self.themes = themes
        self.agent_dir = agent_dir
        self.header = header
        self.double_escape_action: str = shell.ui.double_escape_action
        self.tree_filter_mode: str = shell.ui.tree_filter_mode
        self.navigating = False  # /tree is summarising the branch left behind
        self.exit_code = 0
        self.extension_ui = InteractiveExtensionUI(self)
        self.controller = SessionController(self)
        self.commands = SlashCommands(self, BUILTIN_COMMANDS)
        self.submitter = Submitter(self)
        self.keys = KeyActions(self)
        self._tasks: set[asyncio.Task[object]] = set()
        self._quitting = False
        self._theme_ticks = 0

    @property
    def session(self) -> AgentSession:
        return self.runtime.session

    @property
    def busy(self) -> bool:
        """The agent works (a run, a compaction or a branch summary is in progress)."""
        session = self.session
        return session.is_streaming or session.is_compacting or self.navigating

    # --- background work ---------------------------------------------------------------------

    def spawn(self, work: Work[T]) -> asyncio.Task[T]:
        """Run ``work`` without blocking the keys; an exception becomes an error notice."""
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._finished)
        return task

    def _finished(self, task: asyncio.Task[object]) -> None:
        self._tasks.discard(task)
        if task.cancelled():
            return
        error = task.exception()
        if error is not None:
            self.shell.notice("error", f"Error: {error}")

    # --- display state -------------------------------------------------------------------------

    def set_tools_expanded(self, expanded: bool) -> None:
        if expanded != self.shell.context.expand_tools:
            self.shell.context.set_expand_tools(expanded)
            self.shell.redraw_all()

    def toggle_thinking_blocks(self) -> bool:
        hidden = not self.shell.context.hide_thinking
        self.shell.context.set_hide_thinking(hidden)
        self.shell.redraw_all()
        return hidden

    def apply_theme(self, theme: str | ThemeSpec) -> str | None:
        """Switch the theme for this run; returns an error message, or None on success."""
        if isinstance(theme, ThemeSpec):
            chosen = Theme(theme, self.shell.theme.mode)
        else:
            spec = self.themes.resolve(theme)
            if spec is None:
                return f'Theme "{theme}" not found'
            chosen = Theme(spec, self.shell.theme.mode)
        self.shell.set_theme(chosen)
        return None

    def restore_to_editor(self, texts: Sequence[str]) -> None:
        """Put queued messages back into the editor, in front of what is typed there."""
        pieces = [text for text in texts if text.strip()]
        editor = self.shell.editor
        if not editor.is_empty:
            pieces.append(editor.text)
        if pieces:
            editor.set_text("\n\n".join(pieces))
        self.shell.refresh()

    def _sync_working(self) -> bool:
        """The spinner follows the session (events may arrive before its flags change)."""
        working = self.busy
        if self.shell.pane.show_working == working:
            return False
        self.shell.pane.show_working = working
        return True

    def _reload_edited_theme(self) -> bool:
        self._theme_ticks += 1
        if self._theme_ticks < THEME_CHECK_TICKS:
            return False
        self._theme_ticks = 0
        name = self.shell.theme.name
        if name in self.themes.reload_changed():
            self.shell.set_theme(Theme(self.themes.create(name).spec, self.shell.theme.mode))
        return False

    # --- running -------------------------------------------------------------------------------

    async def run(self, prompts: Sequence[PromptInput] = ()) -> int:
        """Run until the user quits; returns the exit code."""
        shell = self.shell
        shell.dispatch = self.keys.dispatch
        shell.type_text = self.keys.type_text
        shell.paste_text = self.keys.paste_text
        shell.editor.on_change = self.keys.editor_changed
        shell.autocomplete.argument_completer = self.commands.complete_argument
        shell.command_source = self.commands.command_infos
        shell.on_tick.append(self._reload_edited_theme)
        shell.on_tick.append(self._sync_working)
        shell.on_tick.append(self.controller.show_new_entries)
        shell.on_tick.append(self.controller.progress.tick)
        self.controller.attach(self.session)
        stop_listening = self.runtime.on_session_replaced(self.controller.session_replaced)
        installed = self._install_signal_handlers()
        # What is finished (the header, a resumed conversation) goes out before the first frame, so
        # the screen's bottom pane never starts at the top-left corner (tmux would copy it to history).
        shell.refresh()
        screen = asyncio.ensure_future(shell.run())
        try:
            binding = self.spawn(self.session.bind_extensions(ui=self.extension_ui, has_ui=True, mode="interactive"))
            if prompts:
                self.spawn(self.submitter.run_initial(list(prompts), after=binding))
            await screen
        finally:
            stop_listening()
            self.controller.progress.clear()
            self.controller.hold_oldest_collections(False)  # the process may go on (tests, the SDK)
            loop = asyncio.get_running_loop()
            for signum in installed:
                loop.remove_signal_handler(signum)
            for task in list(self._tasks):
                task.cancel()
            await self.runtime.shutdown()
        if self.exit_code in SIGNAL_EXIT_CODES.values():
            kill_all_tracked_processes(0.5)
        else:
            from pi_harness.cli.modes.interactive.resume_hint import print_resume_hint

            print_resume_hint(self.runtime.session.session_manager, self.agent_dir)
        return self.exit_code

    def _install_signal_handlers(self) -> list[int]:
        loop = asyncio.get_running_loop()
        installed: list[int] = []
        for signum, code in SIGNAL_EXIT_CODES.items():
            try:
                loop.add_signal_handler(signum, self._on_signal, code)
                installed.append(signum)
            except (RuntimeError, ValueError):  # RuntimeError covers "not implemented" platforms
                pass
        return installed

    def _on_signal(self, code: int) -> None:
        self.spawn(self.quit(code))

    async def quit(self, code: int = 0) -> None:
        """Print what is still live into the scrollback and stop the screen."""
        if self._quitting:
            return
        self._quitting = True
        self.exit_code = code
        shell = self.shell
        shell.close_overlays()  # an extension waiting for an answer would hold the abort
        if self.busy:
            try:
                await asyncio.wait_for(self.session.abort(), ABORT_WAIT_SECONDS)
            except TimeoutError:
                pass  # something ignores the abort; quitting must still work (shutdown kills tools)
        shell.transcript.settle()
        shell.pane.show_working = False
        if shell.running:
            await shell.view.flush()
        shell.exit(erase=True)

    async def quit_when_idle(self) -> None:
        """An extension's ``ctx.shutdown()``: wait for the agent and its queues, then quit."""
        await self.session.wait_for_idle()
        await self.quit(0)
