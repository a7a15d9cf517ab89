"""``/trust``: show and change the saved project trust decision for the working folder.

The choice is written to ``trust.json`` (``pi_harness.coding.config.trust``) for later runs; this
run keeps the resources it already loaded or skipped, so the notice says to restart.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_harness.cli.modes.interactive.builtin import Builtin
from pi_harness.coding.config.trust import TrustStore

if TYPE_CHECKING:
    from pi_harness.cli.modes.interactive.context import ModeContext

TRUST = "Trust this folder"
DISTRUST = "Do not trust this folder"


def _label(trusted: bool | None) -> str:
    if trusted is None:
        return "none"
    return "trusted" if trusted else "untrusted"


def trust_title(cwd: str, saved: bool | None, current: bool) -> str:
    return f"Project trust for {cwd} (saved: {_label(saved)}, this session: {_label(current)})"


async def trust(mode: ModeContext, args: str) -> None:
    shell = mode.shell
    session = mode.session
    cwd = str(session.cwd)
    store = TrustStore(mode.agent_dir)
    saved = store.get(cwd)
    options = [TRUST, DISTRUST] if saved is not False else [DISTRUST, TRUST]  # the saved one first
    choice = await shell.ask_select(trust_title(cwd, saved, session.settings.project_trusted), options)
    if choice is None:
        return
    trusted = choice == TRUST
    store.save(cwd, trusted)
    shell.notice("success", f"Saved trust decision: {_label(trusted)}. Restart pi for it to take effect.")


COMMANDS = [Builtin("trust", "Save whether this folder's project resources load in later runs", trust)]
