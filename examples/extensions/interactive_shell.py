"""interactive-shell: ``!vim notes.md`` gets the whole terminal.

What it shows: a ``user_bash`` handler that answers with its own ``result`` for commands that
need a real terminal (editors, pagers, ``htop``, ``git rebase -i`` …). Those are recognised by
their program name, or forced with the ``!i`` prefix (``!i ./setup.sh``). The screen of pi is put
away while the command runs with the terminal's own input and output
(``context.run_in_terminal`` inside ``ctx.ui.custom``), then comes back; the transcript records
the command and its exit code (the output went to the terminal, not to pi). ``!!`` commands and
everything else run as usual. In RPC, JSON and print mode the handler does nothing.

Add programs with the ``INTERACTIVE_COMMANDS`` variable (comma separated), remove some with
``INTERACTIVE_EXCLUDE``.

Load it with ``pi -e examples/extensions/interactive_shell.py``; then try ``!vim notes.md``.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import subprocess
from typing import Any

from pi_harness.coding.extensions import ExtensionAPI, ExtensionContext, ExtensionEvent

PROGRAMS = {"vim", "nvim", "vi", "nano", "emacs", "micro", "helix", "hx", "less", "more", "man", "htop", "top",
            "btop", "ssh", "tmux", "screen", "python", "python3", "ipython", "node", "psql", "mysql", "sqlite3",
            "lazygit", "tig", "fzf", "ranger", "nnn", "watch"}  # fmt: skip
GIT_INTERACTIVE = ("rebase -i", "add -p", "add -i", "commit", "mergetool", "difftool")


def programs() -> set[str]:
    extra = {p.strip() for p in os.environ.get("INTERACTIVE_COMMANDS", "").split(",") if p.strip()}
    excluded = {p.strip() for p in os.environ.get("INTERACTIVE_EXCLUDE", "").split(",") if p.strip()}
    return (PROGRAMS | extra) - excluded


def interactive_command(command: str) -> str | None:
    """The command to run with the terminal, or None for an ordinary one."""
    text = command.strip()
    if text.startswith("i "):
        return text[2:].strip() or None
    try:
        words = shlex.split(text)
    except ValueError:
        return None
    if not words:
        return None
    program = os.path.basename(words[0])
    if program in programs():
        return text
    if program == "git" and any(f" {form}" in f" {' '.join(words[1:])}" for form in GIT_INTERACTIVE):
        return text
    return None


class Handover:
    """Shown for a moment before the command takes the terminal; finishes with the exit code."""

    def __init__(self, context: Any, done: Any, command: str, cwd: str) -> None:
        self.command = command
        run = context.run_in_terminal

        def work() -> int:
            return subprocess.call(command, shell=True, cwd=cwd)

        async def go() -> None:
            try:
                done(await run(work))
            except Exception as error:  # the command could not start: say so in the transcript
                done(str(error))

        self.task = asyncio.ensure_future(go())

    def render(self, width: int) -> list[str]:
        return [f" running {self.command} in the terminal…"]


def extension(pi: ExtensionAPI) -> None:
    @pi.on("user_bash")
    async def run_interactively(event: ExtensionEvent, ctx: ExtensionContext) -> Any:
        command = interactive_command(str(event.command))
        if command is None or event.exclude_from_context or ctx.mode not in ("tui", "interactive"):
            return None
        code = await ctx.ui.custom(lambda context, done: Handover(context, done, command, str(event.cwd)))
        if not isinstance(code, int):
            return {"result": {"output": f"could not run {command}: {code}", "exitCode": 1, "cancelled": False,
                               "truncated": False}}  # fmt: skip
        output = f"(ran interactively: {command}, exit code {code})"
        return {"result": {"output": output, "exitCode": code, "cancelled": False, "truncated": False}}
