"""commands: ``/commands`` lists every slash command the session offers.

``/commands`` shows the extension commands, prompt templates and skills in a picker, grouped
under ``--- Extensions ---``, ``--- Prompts ---`` and ``--- Skills ---``, each as
``/name - description``. ``/commands extension`` (or ``prompt``, ``skill``; completed as you
type) shows one group only. Picking a command offers to show the file it comes from. Without a
UI (print mode) nothing can be shown and the command does nothing.

What it shows: ``pi.get_commands()`` (``{name, description?, source, sourceInfo}``), argument
completions for a command, ``ctx.ui.select`` and ``ctx.ui.confirm``.

Load it with ``pi -e examples/extensions/commands.py``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pi_harness.coding.extensions import ExtensionAPI, ExtensionCommandContext

GROUPS: tuple[tuple[str, str], ...] = (("extension", "Extensions"), ("prompt", "Prompts"), ("skill", "Skills"))
SOURCES = tuple(key for key, _ in GROUPS)


def complete_source(prefix: str) -> list[dict[str, str]] | None:
    matches = [source for source in SOURCES if source.startswith(prefix)]
    return [{"value": source, "label": source} for source in matches] or None


def command_line(command: Mapping[str, object]) -> str:
    description = command.get("description")
    return f"/{command['name']} - {description}" if description else f"/{command['name']}"


def picker_items(commands: Sequence[Mapping[str, object]]) -> list[str]:
    items: list[str] = []
    for key, label in GROUPS:
        group = [command for command in commands if command.get("source") == key]
        if group:
            items.append(f"--- {label} ---")
            items.extend(command_line(command) for command in group)
    return items


def source_path(command: Mapping[str, object]) -> str | None:
    info = command.get("sourceInfo")
    path = info.get("path") if isinstance(info, Mapping) else None
    return path if isinstance(path, str) and path else None


def extension(pi: ExtensionAPI) -> None:
    async def list_commands(args: str, ctx: ExtensionCommandContext) -> None:
        commands = pi.get_commands()
        wanted = args.strip()
        shown = [command for command in commands if not wanted or command.get("source") == wanted]
        if not shown:
            ctx.ui.notify(f"No {wanted} commands" if wanted else "No commands")
            return
        choice = await ctx.ui.select("Slash commands", picker_items(shown))
        if not choice or choice.startswith("---"):
            return
        name = choice.split(" - ", 1)[0].removeprefix("/")
        command = next((c for c in commands if c.get("name") == name), None)
        path = source_path(command) if command is not None else None
        if path and await ctx.ui.confirm(name, f"Show where it is defined?\n{path}"):
            ctx.ui.notify(path)

    pi.register_command(
        "commands",
        list_commands,
        description="List the slash commands (/commands [extension|prompt|skill])",
        get_argument_completions=complete_source,
    )
