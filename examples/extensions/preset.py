"""preset: named bundles of model, thinking level, tools and instructions, switched in one step.

Define presets in ``~/.pi/agent/presets.json`` and/or ``.pi/presets.json`` of the project (a
project preset replaces a global one of the same name)::

    {
      "plan": {"provider": "anthropic", "model": "claude-sonnet-4-5", "thinkingLevel": "high",
               "tools": ["read", "grep", "find", "ls"],
               "instructions": "Only explore and write a plan; change nothing."},
      "implement": {"tools": ["read", "bash", "edit", "write"],
                    "instructions": "Make small, tested changes."}
    }

Every key is optional. Then:

* ``pi --preset plan`` starts with a preset;
* ``/preset plan`` switches to one, ``/preset`` offers a list (with ``(none)`` to go back to the
  model, thinking level and tools you had before the first preset);
* Ctrl+Shift+U cycles through ``(none)`` and the presets in alphabetical order.

An active preset's ``instructions`` are added to the system prompt of every run (a ``preset``
section), the status line shows ``preset:<name>``, unknown tools and models are reported as
warnings, and the preset's name is saved in the session, so resuming it keeps the instructions.

What it shows: a string flag, a command with an optional argument, a shortcut, ``pi.set_model``,
``pi.set_thinking_level``, ``pi.set_active_tools``, ``pi.append_entry`` for state and a system
prompt section.

Load it with ``pi -e examples/extensions/preset.py``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pi_harness.coding.extensions import (
    ExtensionAPI,
    ExtensionCommandContext,
    ExtensionContext,
    ExtensionEvent,
    agent_dir,
    project_dir,
)

NONE = "(none)"
STATE_TYPE = "preset-state"
STATUS_KEY = "preset"
DEFAULT_TOOLS = ["read", "bash", "edit", "write"]


def preset_files(cwd: str) -> list[Path]:
    return [Path(agent_dir()) / "presets.json", Path(project_dir(cwd)) / "presets.json"]


def load_presets(cwd: str) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """The merged presets (later files win) and one message per file that could not be read."""
    presets: dict[str, dict[str, Any]] = {}
    problems: list[str] = []
    for path in preset_files(cwd):
        if not path.is_file():
            continue
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            problems.append(f"Cannot read presets from {path}: {error}")
            continue
        if isinstance(data, dict):
            presets.update({name: value for name, value in data.items() if isinstance(value, dict)})
    return presets, problems


def describe(preset: dict[str, Any]) -> str:
    parts: list[str] = []
    if preset.get("provider") and preset.get("model"):
        parts.append(f"{preset['provider']}/{preset['model']}")
    if preset.get("thinkingLevel"):
        parts.append(f"thinking:{preset['thinkingLevel']}")
    if preset.get("tools"):
        parts.append("tools:" + ",".join(preset["tools"]))
    instructions = str(preset.get("instructions") or "")
    if instructions:
        parts.append(f'"{instructions[:27]}..."' if len(instructions) > 30 else f'"{instructions}"')
    return " | ".join(parts)


@dataclass
class Before:
    """What was in effect before the first preset, restored by ``(none)``."""

    model: Any
    thinking_level: str
    tools: list[str]


def extension(pi: ExtensionAPI) -> None:
    pi.register_flag("preset", type="string", description="Start with this preset (see presets.json)")
    presets: dict[str, dict[str, Any]] = {}
    active: dict[str, Any] = {"name": None, "before": None}

    def missing_message(ctx: ExtensionContext) -> str:
        files = " or ".join(str(path) for path in preset_files(ctx.cwd))
        return f"No presets yet: define them in {files}"

    def show_status(ctx: ExtensionContext) -> None:
        ctx.ui.set_status(STATUS_KEY, f"preset:{active['name']}" if active["name"] else None)

    async def apply(name: str, ctx: ExtensionContext) -> None:
        preset = presets[name]
        if active["name"] is None:
            active["before"] = Before(ctx.model, pi.get_thinking_level(), pi.get_active_tools())
        if preset.get("provider") and preset.get("model"):
            spec = f"{preset['provider']}/{preset['model']}"
            model = ctx.model_registry.find(str(preset["provider"]), str(preset["model"]))
            if model is None:
                ctx.ui.notify(f'Preset "{name}": unknown model {spec}', "warning")
            elif not await pi.set_model(model):
                ctx.ui.notify(f'Preset "{name}": no API key for {spec}', "warning")
        if preset.get("thinkingLevel"):
            pi.set_thinking_level(str(preset["thinkingLevel"]))
        wanted = [str(tool) for tool in preset.get("tools") or []]
        if wanted:
            known = {str(tool["name"]) for tool in pi.get_all_tools()}
            unknown = [tool for tool in wanted if tool not in known]
            if unknown:
                ctx.ui.notify(f'Preset "{name}": unknown tools: {", ".join(unknown)}', "warning")
            if len(unknown) < len(wanted):
                pi.set_active_tools([tool for tool in wanted if tool in known])
        active["name"] = name
        ctx.ui.notify(f'Preset "{name}" is active')
        show_status(ctx)

    async def clear(ctx: ExtensionContext) -> None:
        before: Before | None = active["before"]
        active["name"] = None
        if before is not None:
            if before.model is not None:
                await pi.set_model(before.model)
            pi.set_thinking_level(before.thinking_level)
            pi.set_active_tools(before.tools)
        else:
            pi.set_active_tools(DEFAULT_TOOLS)
        ctx.ui.notify("Preset cleared: the previous settings are back")
        show_status(ctx)

    async def choose(ctx: ExtensionContext) -> None:
        if not presets:
            ctx.ui.notify(missing_message(ctx), "warning")
            return
        labels: dict[str, str] = {}
        for name, preset in presets.items():
            label = f"{name} (active)" if name == active["name"] else name
            description = describe(preset)
            labels[f"{label}: {description}" if description else label] = name
        labels[f"{NONE}: clear the preset, restore the previous settings"] = NONE
        picked = await ctx.ui.select("Choose a preset", list(labels))
        if picked is None:
            return
        if labels[picked] == NONE:
            await clear(ctx)
        else:
            await apply(labels[picked], ctx)

    @pi.command("preset", description="Switch to a preset (/preset [name])")
    async def preset_command(args: str, ctx: ExtensionCommandContext) -> None:
        name = args.strip()
        if not name:
            await choose(ctx)
        elif name in presets:
            await apply(name, ctx)
        else:
            available = ", ".join(presets) or "none defined"
            ctx.ui.notify(f'No preset "{name}". Available: {available}', "error")

    @pi.shortcut("ctrl+shift+u", description="Cycle through the presets")
    async def cycle(ctx: ExtensionContext) -> None:
        if not presets:
            ctx.ui.notify(missing_message(ctx), "warning")
            return
        order = [NONE, *sorted(presets)]
        current = active["name"] or NONE
        following = order[(order.index(current) + 1) % len(order)] if current in order else order[0]
        await (clear(ctx) if following == NONE else apply(following, ctx))

    @pi.on("before_agent_start")
    def add_instructions(event: ExtensionEvent) -> None:
        preset = presets.get(active["name"] or "")
        sections = event.sections
        if preset and preset.get("instructions") and isinstance(sections, dict):
            sections["preset"] = str(preset["instructions"])

    @pi.on("turn_start")
    def remember(event: ExtensionEvent) -> None:
        if active["name"]:
            pi.append_entry(STATE_TYPE, {"name": active["name"]})

    @pi.on("session_start")
    async def start(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        loaded, problems = load_presets(ctx.cwd)
        presets.clear()
        presets.update(loaded)
        for problem in problems:
            ctx.ui.notify(problem, "error")
        flag = pi.get_flag("preset")
        if isinstance(flag, str) and flag:
            if flag in presets:
                await apply(flag, ctx)
            else:
                ctx.ui.notify(f'No preset "{flag}". Available: {", ".join(presets) or "none defined"}', "warning")
        else:
            # Resuming: keep the instructions of the saved preset; the model and tools come back
            # from the session itself.
            saved = [e for e in ctx.session_manager.get_entries() if e.get("customType") == STATE_TYPE]
            data = saved[-1].get("data") if saved else None
            name = data.get("name") if isinstance(data, dict) else None
            if isinstance(name, str) and name in presets:
                active["name"] = name
        show_status(ctx)
