"""``/import <file.jsonl>``: replace the current session with a copy of a session file.

The runtime copies the file into this project's session directory (a new session whose
``parentSession`` is the file; the file itself is left alone) and switches to it, so the screen
follows through the controller's ``session_replaced`` like ``/resume``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from pi_harness.cli.modes.interactive.builtin import Builtin

if TYPE_CHECKING:
    from pi_harness.cli.modes.interactive.context import ModeContext

USAGE = "Usage: /import <file.jsonl>"


def _argument_path(args: str) -> str:
    """The argument without surrounding quotes (a pasted path often has them)."""
    text = args.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        text = text[1:-1]
    return text


async def import_session(mode: ModeContext, args: str) -> None:
    shell = mode.shell
    given = _argument_path(args)
    if not given:
        shell.notice("error", USAGE)
        return
    path = Path(os.path.expanduser(given))
    if not path.is_absolute():
        path = Path(mode.session.cwd) / path
    if not path.is_file():
        shell.notice("error", f"Cannot import {given}: no such file")
        return
    if not await shell.ask_confirm("Import session", f"Replace current session with {given}?"):
        shell.notice("info", "Import cancelled")
        return
    try:
        result = await mode.runtime.import_from_jsonl(str(path))
    except (OSError, ValueError) as error:
        shell.notice("error", f"Cannot import {given}: {error}")
        return
    if result.get("cancelled"):
        shell.notice("warning", "An extension cancelled the import")
        return
    shell.notice("success", f"Session imported from {given}")


COMMANDS = [
    Builtin("import", "Replace the session with a copy of a session file (.jsonl)", import_session, idle_only=True)
]
