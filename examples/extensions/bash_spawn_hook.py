"""bash-spawn-hook: adjust every command of the ``bash`` tool before it starts.

The extension replaces the built-in ``bash`` tool with one built by ``create_bash_tool`` and a
spawn hook, which may rewrite the command, its working directory and its environment just before
the shell starts. Here it does two things:

* runs ``~/.profile`` first (when it exists), so commands see the PATH and variables of a login
  shell;
* adds ``PI_SPAWN_HOOK=1`` to the environment, so scripts can tell they run under pi.

Everything else (streaming output, truncation, timeouts, abort) is the built-in tool's. The hook
covers the model's ``bash`` only, not your ``!commands``.

What it shows: ``ToolOptions(spawn_hook=...)`` with ``create_bash_tool`` from
``pi_harness.coding.tools``, and overriding a built-in tool by registering one with its name.

Load it with ``pi -e examples/extensions/bash_spawn_hook.py``.
"""

from __future__ import annotations

from typing import Any

from pi_harness.coding.extensions import ExtensionAPI, ExtensionContext, ToolDefinition, ToolUpdateCallback
from pi_harness.coding.tools import BASH_PARAMETERS, SpawnContext, ToolOptions, create_bash_tool

PROFILE_LINE = '[ -f "$HOME/.profile" ] && . "$HOME/.profile"'


def spawn_hook(spawn: SpawnContext) -> SpawnContext:
    return {
        "command": f"{PROFILE_LINE}\n{spawn['command']}",
        "cwd": spawn["cwd"],
        "env": {**spawn["env"], "PI_SPAWN_HOOK": "1"},
    }


def extension(pi: ExtensionAPI) -> None:
    async def execute(
        tool_call_id: str,
        params: dict[str, Any],
        signal: Any,
        on_update: ToolUpdateCallback | None,
        ctx: ExtensionContext | None,
    ) -> Any:
        # Built per call, for the session's working directory (the process's may differ).
        cwd = ctx.cwd if ctx is not None else "."
        tool = create_bash_tool(cwd, ToolOptions(spawn_hook=spawn_hook))
        return await tool.execute(tool_call_id, params, signal, on_update)

    template = create_bash_tool(".")
    pi.register_tool(
        ToolDefinition(
            name="bash",
            label="bash",
            description=template.description,
            parameters=BASH_PARAMETERS,
            execute=execute,
            prompt_snippet=template.prompt_snippet,
            prompt_guidelines=template.prompt_guidelines,
        )
    )
