"""What each action of the key table does in interactive mode (the keys themselves live in the table).

``dispatch(action)`` gives the key to the open overlay when there is one, then to the
suggestions under the editor, then to the action's handler. A handler returns ``False`` to let
the next action bound to the same key have it (``app.exit`` declines when the editor has text,
so ``ctrl+d`` deletes forward instead).
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from pi_harness.cli.modes.interactive.clipboard import copy_message, paste_clipboard_image
from pi_harness.cli.modes.interactive.external_editor import edit_externally
from pi_harness.cli.modes.interactive.fullscreen.actions import fullscreen_handlers
from pi_harness.cli.modes.interactive.key_order import SELECTOR_ACTIONS
from pi_harness.tui.keybindings import RepeatDetector

if TYPE_CHECKING:
    from pi_harness.cli.modes.interactive.context import ModeContext, Work
    from pi_harness.cli.modes.interactive.shell import Shell

Handler = Callable[[], bool | None]
_SUGGESTION_ACTIONS = frozenset({"tui.editor.cursorUp", "tui.editor.cursorDown", "tui.select.up", "tui.select.down",
                                 "tui.input.tab", "tui.input.submit", "app.interrupt"})  # fmt: skip


class KeyActions:
    def __init__(self, mode: ModeContext) -> None:
        self.mode = mode
        self.repeat = RepeatDetector()
        self._jump: bool | None = None  # waiting for the character of jumpForward (True) / jumpBackward (False)
        commands = mode.commands

        def command(name: str) -> Handler:
            return lambda: self._spawn(commands.run(name, ""))

        self.handlers: dict[str, Handler] = {
            "app.interrupt": self.interrupt,
            "app.clear": self.clear,
            "app.exit": self.exit,
            "app.suspend": self.suspend,
            "app.editor.external": lambda: self._spawn(edit_externally(mode)),
            "app.clipboard.pasteImage": lambda: self._spawn(paste_clipboard_image(mode)),
            "app.session.new": command("new"),
            "app.session.tree": command("tree"),
            "app.session.fork": command("fork"),
            "app.session.resume": command("resume"),
            "app.model.select": command("model"),
            "app.model.cycleForward": lambda: self._spawn(commands.cycle_model("forward")),
            "app.model.cycleBackward": lambda: self._spawn(commands.cycle_model("backward")),
            "app.thinking.cycle": self.cycle_thinking,
            "app.thinking.toggle": self.toggle_thinking,
            "app.tools.expand": lambda: mode.set_tools_expanded(not mode.shell.context.expand_tools),
            "app.message.copy": lambda: self._spawn(copy_message(mode)),
            "app.message.followUp": self.follow_up,
            "app.message.dequeue": self.dequeue,
            "tui.input.submit": mode.submitter.submit,
            "tui.input.newLine": self.shell.editor.new_line,
            "tui.input.tab": self.tab,
            "tui.editor.jumpForward": lambda: self._start_jump(True),
            "tui.editor.jumpBackward": lambda: self._start_jump(False),
            **fullscreen_handlers(mode),
        }

    @property
    def shell(self) -> Shell:
        return self.mode.shell

    def _spawn(self, work: Work[object]) -> bool:
        self.mode.spawn(work)
        return True

    # --- routing -------------------------------------------------------------------------------

    def dispatch(self, action: str) -> bool:
        shell = self.shell
        if shell.top_overlay is not None:
            return shell.overlay_action(action)
        suggestions = shell.autocomplete
        if suggestions.active and action in _SUGGESTION_ACTIONS:
            kind = suggestions.kind
            suggestions.handle_action(action, shell.editor)
            if action == "tui.input.submit" and kind in ("command", "argument"):
                self.mode.submitter.submit()  # "/mo" Enter runs /model
            shell.refresh()
            return True
        if action in SELECTOR_ACTIONS:
            return False
        handler = self.handlers.get(action)
        if handler is not None:
            if handler() is False:
                return False
        elif not shell.editor.handle_action(action):
            return False
        shell.refresh()
        return True

    def type_text(self, text: str) -> None:
        overlay = self.shell.top_overlay
        if overlay is not None:
            overlay.handle_text(text)
            return
        if self._jump is not None:
            forward, self._jump = self._jump, None
            self.shell.editor.jump_to_char(text[:1], forward=forward)
            return
        self.shell.editor.insert(text)

    def paste_text(self, text: str) -> None:
        overlay = self.shell.top_overlay
        if overlay is not None:
            paste = getattr(overlay, "handle_paste", None)
            if callable(paste):
                paste(text)
            else:
                overlay.handle_text(text)
            return
        self.shell.editor.paste(text)

    def editor_changed(self) -> None:
        self.shell.autocomplete.update(self.shell.editor)

    # --- actions -------------------------------------------------------------------------------

    def interrupt(self) -> bool:
        """Escape: stop the agent (queued messages back to the editor); twice when idle: the
        ``doubleEscapeAction``."""
        mode = self.mode
        session = mode.session
        if session.user_bash.running:
            session.abort_bash()
            return True
        if mode.busy:
            if mode.navigating:
                session.abort_branch_summary()
            cleared = session.clear_queue()
            mode.restore_to_editor([*cleared["steering"], *cleared["followUp"]])
            mode.spawn(session.abort())
            return True
        twice = self.repeat.press("app.interrupt", time.monotonic())
        if twice and self.shell.editor.is_empty and mode.double_escape_action in ("tree", "fork"):
            mode.spawn(mode.commands.run(mode.double_escape_action, ""))
        return True

    def clear(self) -> bool:
        """Ctrl+C: clear the editor; twice in a row: quit."""
        if self.repeat.press("app.clear", time.monotonic()):
            self.mode.spawn(self.mode.quit(0))
            return True
        editor = self.shell.editor
        if editor.is_empty:
            self.shell.toast(f"Press {self.shell.context.key('app.clear')} again to exit")
        else:
            editor.clear()
        return True

    def exit(self) -> bool:
        """Ctrl+D on an empty editor quits; with text it deletes forward instead."""
        if not self.shell.editor.is_empty:
            return False
        self.mode.spawn(self.mode.quit(0))
        return True

    def suspend(self) -> bool:
        """Ctrl+Z: the keyboard protocol is switched off while stopped and on again after ``fg``."""
        if not hasattr(signal, "SIGTSTP"):
            return False
        self._spawn(self.shell.suspend())
        return True

    def follow_up(self) -> bool:
        """Alt+Enter: a follow-up while the agent works; a new line otherwise."""
        if self.mode.busy:
            self.mode.submitter.submit(follow_up=True)
        else:
            self.shell.editor.new_line()
        return True

    def dequeue(self) -> bool:
        """Alt+Up: queued messages back into the editor."""
        session = self.mode.session
        if not session.pending_message_count:
            return False
        cleared = session.clear_queue()
        self.mode.restore_to_editor([*cleared["steering"], *cleared["followUp"]])
        return True

    def tab(self) -> bool:
        suggestions = self.shell.autocomplete
        suggestions.update(self.shell.editor, force_files=True)
        if len(suggestions.items) == 1:
            suggestions.accept(self.shell.editor)
        return True

    def cycle_thinking(self) -> bool:
        level = self.mode.session.cycle_thinking_level()
        if level is None:
            self.shell.toast("The current model does not support thinking", "warning")
        else:
            self.shell.toast(f"Thinking level: {level}")
        return True

    def toggle_thinking(self) -> bool:
        hidden = self.mode.toggle_thinking_blocks()
        self.shell.toast("Thinking blocks hidden" if hidden else "Thinking blocks shown")
        return True

    def _start_jump(self, forward: bool) -> bool:
        self._jump = forward
        return True
