"""Inside tmux, Shift+Enter reaches us only when tmux forwards extended keys; say so at start.

tmux drops the modifier of Enter unless its ``extended-keys`` option is ``on`` (or ``always``),
and with ``extended-keys-format xterm`` (tmux 3.5+) it reports keys in a form fewer programs
read. We ask the tmux server that runs us (``tmux show -gv``); when it cannot answer (no tmux
binary, a sandbox, a timeout) we say nothing.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping

from pi_harness.cli.modes.interactive.context import ModeContext

TIMEOUT_SECONDS = 2.0
EXTENDED_KEYS_OFF = (
    "tmux extended-keys is off. Modified Enter keys may not work. "
    "Add `set -g extended-keys on` to ~/.tmux.conf and restart tmux."
)
XTERM_FORMAT = (
    "tmux extended-keys-format is xterm. Pi works best with csi-u. "
    "Add `set -g extended-keys-format csi-u` to ~/.tmux.conf and restart tmux."
)


async def _show(option: str) -> str | None:
    """``tmux show -gv <option>``, or None when tmux does not answer (an unknown option included)."""
    try:
        process = await asyncio.create_subprocess_exec(
            "tmux", "show", "-gv", option,
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
        )  # fmt: skip
    except OSError:
        return None
    try:
        stdout, _ = await asyncio.wait_for(process.communicate(), TIMEOUT_SECONDS)
    except TimeoutError:
        process.kill()
        await process.wait()
        return None
    if process.returncode != 0:
        return None
    return stdout.decode("utf-8", "replace").strip()


async def tmux_keyboard_warning(env: Mapping[str, str] | None = None) -> str | None:
    """The warning to show, or None (not in tmux, tmux set up well, or tmux not answering)."""
    if not (env if env is not None else os.environ).get("TMUX"):
        return None
    extended_keys, key_format = await asyncio.gather(_show("extended-keys"), _show("extended-keys-format"))
    if extended_keys is None:
        return None
    if extended_keys not in ("on", "always"):
        return EXTENDED_KEYS_OFF
    if key_format == "xterm":
        return XTERM_FORMAT
    return None


async def warn_about_tmux_keys(mode: ModeContext) -> None:
    warning = await tmux_keyboard_warning()
    if warning is not None:
        mode.shell.notice("warning", warning)
