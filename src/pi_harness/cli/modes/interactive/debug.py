"""``/debug``: ``<agentDir>/pi-debug.log`` with what the screen shows and the session's messages.

The log holds the conversation as sent to the model, tool arguments and outputs included; it
may contain secrets that passed through the session, so read it before sharing it.
"""

from __future__ import annotations

import platform
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from pi_harness.__about__ import __version__
from pi_harness.tui.ansi import strip_ansi

if TYPE_CHECKING:
    from pi_harness.cli.modes.interactive.context import ModeContext

DEBUG_LOG = "pi-debug.log"


def write_debug_log(mode: ModeContext) -> Path:
    shell = mode.shell
    session = mode.session
    width, rows = shell.view.size()
    session_file = session.session_manager.get_session_file()
    model = session.model
    lines = [
        f"pi-harness {__version__} debug log, {datetime.now(UTC).isoformat(timespec='seconds')}",
        f"python {sys.version.split()[0]} on {platform.platform()}",
        f"terminal {width}x{rows}, theme {shell.theme.name}, colours {shell.theme.mode}",
        f"cwd {session.cwd}",
        f"session {session_file or '(in memory)'}",
        f"model {model['provider'] + '/' + model['id'] if model else '(none)'}, thinking {session.thinking_level}",
        "",
        "=== Scrollback (printed lines) ===",
        *(strip_ansi(line) for line in shell.view.printed),
        "",
        "=== Bottom of the screen ===",
        *(strip_ansi(line) for line in shell.pane.render(width, rows).lines),
        "",
        "=== Session messages (context) ===",
        *(orjson.dumps(message, default=str).decode("utf-8") for message in session.get_messages()),
        "",
    ]
    path = mode.agent_dir / DEBUG_LOG
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines), encoding="utf-8")
    return path
