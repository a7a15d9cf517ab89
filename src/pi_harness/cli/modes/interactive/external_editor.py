"""``app.editor.external`` (Ctrl+G): edit the message in an external editor.

The command is the ``externalEditor`` setting when it is set, else ``$VISUAL``, else
``$EDITOR``, else ``notepad`` on Windows and ``nano`` elsewhere (Pi's order). It may carry
arguments (``code --wait``); the file's path is added last. The screen steps aside while the
editor runs (``run_in_terminal`` gives it the terminal in cooked mode) and, when the editor exits
with status 0, the file's content (without a byte-order mark and one final line break) replaces
the editor's text.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from typing import TYPE_CHECKING

from prompt_toolkit.application import run_in_terminal

if TYPE_CHECKING:
    from pi_harness.cli.modes.interactive.context import ModeContext


def editor_command_line(configured: str | None, environ: Mapping[str, str] | None = None) -> str:
    """The command line to run: the setting, ``$VISUAL``, ``$EDITOR``, then the platform's editor."""
    if configured is not None and configured.strip():
        return configured.strip()
    env = os.environ if environ is None else environ
    for name in ("VISUAL", "EDITOR"):
        value = env.get(name, "").strip()
        if value:
            return value
    return "notepad" if sys.platform == "win32" else "nano"


def split_command(line: str) -> list[str]:
    """A command line as arguments: shell-style quoting, or whitespace when the quotes do not close."""
    try:
        parts = shlex.split(line, posix=os.name == "posix")
    except ValueError:
        parts = line.split()
    return parts or [line]


def edited_text(raw: str) -> str:
    """What the editor left in the file, without a byte-order mark and one final line break."""
    text = raw.removeprefix("\ufeff")
    return text[:-1] if text.endswith("\n") else text


async def edit_externally(mode: ModeContext) -> None:
    shell = mode.shell
    command = split_command(editor_command_line(mode.session.settings.values.external_editor))
    descriptor, path = tempfile.mkstemp(prefix="pi-message-", suffix=".md")
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(shell.editor.text)

        def run() -> int:
            return subprocess.run([*command, path], check=False).returncode

        try:
            code = await run_in_terminal(run, in_executor=True) if shell.running else run()
        except OSError as error:
            shell.notice("error", f"Could not start {command[0]}: {error.strerror or error}")
            return
        if code != 0:
            shell.toast(f"{command[0]} exited with code {code}; the message was not changed", "warning")
            return
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = edited_text(handle.read())
    finally:
        try:
            os.unlink(path)
        except OSError:
            pass
    shell.editor.set_text(text)
    shell.refresh()
