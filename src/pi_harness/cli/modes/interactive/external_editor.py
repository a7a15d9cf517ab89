"""``app.editor.external`` (Ctrl+G): edit the message in ``$VISUAL`` / ``$EDITOR``.

The screen steps aside while the editor runs (``run_in_terminal`` gives it the terminal in
cooked mode) and the file's content replaces the editor's text afterwards.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from typing import TYPE_CHECKING

from prompt_toolkit.application import run_in_terminal

if TYPE_CHECKING:
    from pi_harness.cli.modes.interactive.context import ModeContext

NO_EDITOR = "Set $VISUAL or $EDITOR to edit the message in an external editor"


def editor_command() -> list[str] | None:
    for name in ("VISUAL", "EDITOR"):
        value = os.environ.get(name, "").strip()
        if value:
            try:
                return shlex.split(value)
            except ValueError:
                return [value]
    return None


async def edit_externally(mode: ModeContext) -> None:
    shell = mode.shell
    command = editor_command()
    if command is None:
        shell.toast(NO_EDITOR, "warning")
        return
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
            text = handle.read()
    finally:
        try:
            os.unlink(path)
        except OSError:
            pass
    shell.editor.set_text(text.rstrip("\n"))
    shell.refresh()
