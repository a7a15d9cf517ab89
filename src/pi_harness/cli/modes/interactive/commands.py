"""The built-in slash commands and what ``/`` completes to.

Built-in commands are handled here and never reach the session (they are not prompts). The
``/`` suggestions list them first, then the session's own commands: extension commands, prompt
templates and ``/skill:name`` (those are run by ``AgentSession.prompt``). Commands that replace or
rewind the conversation wait until the agent is idle.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from pi_harness.cli.modes.interactive.builtin import Builtin
from pi_harness.tui.components.autocomplete import CommandInfo, CompletionItem

if TYPE_CHECKING:
    from pi_harness.cli.modes.interactive.context import ModeContext


def _completion(item: Any) -> CompletionItem | None:
    """An extension's argument completion: a string, a ``{value, label?, description?}`` dict or object."""
    if isinstance(item, str):
        return CompletionItem(item, item)
    get = item.get if isinstance(item, dict) else lambda key, default=None: getattr(item, key, default)
    value = get("value")
    if not isinstance(value, str):
        return None
    return CompletionItem(value, str(get("label") or value), str(get("description") or ""))


def _tagged(description: str, source_info: object) -> str:
    """``[u]``/``[p]``/``[t]`` (user, project, this run only) before a command's description, as
    Pi's completion shows where a command comes from; built-in extensions stay untagged."""
    if not isinstance(source_info, dict) or source_info.get("source") == "builtin":
        return description
    tag = {"user": "u", "project": "p"}.get(str(source_info.get("scope")), "t")
    return f"[{tag}] {description}" if description else f"[{tag}]"


class SlashCommands:
    """The registry of built-in commands the mode hands in, and how ``/`` text reaches them."""

    def __init__(self, mode: ModeContext, builtins: Sequence[Builtin]) -> None:
        self.mode = mode
        self.table: dict[str, Builtin] = {command.name: command for command in builtins}

    def find(self, text: str) -> tuple[str, str] | None:
        """``(name, args)`` when ``text`` invokes a built-in command."""
        if not text.startswith("/"):
            return None
        head, _, args = text[1:].partition(" ")
        name, newline, rest = head.partition("\n")
        command = self.table.get(name)
        if command is None or not command.offered(self.mode):
            return None
        return name, (rest + " " + args if newline else args).strip()

    async def run(self, name: str, args: str) -> None:
        command = self.table[name]
        mode = self.mode
        if command.idle_only and mode.busy:
            key = mode.shell.context.key("app.interrupt")
            mode.shell.notice("warning", f"/{name} waits until the agent is idle (press {key} to interrupt it)")
            return
        await command.handler(mode, args)

    async def cycle_model(self, direction: Literal["forward", "backward"]) -> None:
        shell = self.mode.shell
        result = await self.mode.session.cycle_model(direction)
        if result is None:
            shell.toast("There is no other model to switch to", "warning")
            return
        model = result["model"]
        shell.toast(f"Model: {model['provider']}/{model['id']} • {result['thinkingLevel']}")

    # --- suggestions ---------------------------------------------------------------------------

    def command_infos(self) -> Sequence[CommandInfo]:
        infos = [
            CommandInfo(command.name, command.description)
            for command in self.table.values()
            if command.offered(self.mode)
        ]
        session = self.mode.session
        skills_listed = session.settings.values.enable_skill_commands
        for command in session.get_commands():
            name = str(command.get("name"))
            if command.get("source") == "skill" and not skills_listed:
                continue
            if name not in self.table:
                description = _tagged(str(command.get("description") or ""), command.get("sourceInfo"))
                infos.append(CommandInfo(name, description))
        return infos

    def complete_argument(self, name: str, prefix: str) -> Sequence[CompletionItem]:
        builtin = self.table.get(name)
        if builtin is not None:
            if builtin.arguments is None or not builtin.offered(self.mode):
                return []
            return builtin.arguments(self.mode, prefix)
        found = self.mode.session.extensions.find_command(name)
        if found is None or found[0].get_argument_completions is None:
            return []
        try:
            items = found[0].get_argument_completions(prefix) or []
        except Exception as error:
            self.mode.session.extensions.report(f"command:{name}", "argument_completions", error)
            return []
        completions = [_completion(item) for item in items]
        return [item for item in completions if item is not None]
