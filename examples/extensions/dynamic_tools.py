"""dynamic-tools: tools that appear while the session runs, not only when it starts.

What it shows:

* ``pi.register_tool`` called from a ``session_start`` handler and from a command: a tool
  registered after startup is declared to the model from the next request on (``direct``
  exposure activates it at once);
* ``prompt_snippet`` and ``prompt_guidelines``, which put the tool into the system prompt's
  tool list and rules while it is active;
* a command that validates its argument and answers with ``ctx.ui.notify``.

``echo_session`` exists from the start; ``/add-echo-tool <name>`` adds another echo tool whose
answers carry ``[<name>]``. Names are lowercase letters, digits and ``_``; asking twice for the
same name only warns.

Load it with ``pi -e examples/extensions/dynamic_tools.py``.
"""

from __future__ import annotations

import re

from pi_harness.coding.extensions import ToolDefinition, ToolResult
from pi_harness.coding.extensions.api import ExtensionAPI
from pi_harness.coding.extensions.context import ExtensionCommandContext, ExtensionContext
from pi_harness.coding.extensions.events import ExtensionEvent

TOOL_NAME = re.compile(r"^[a-z0-9_]+$")
PARAMETERS = {
    "type": "object",
    "properties": {"message": {"type": "string", "description": "The text to say back"}},
    "required": ["message"],
}


def extension(pi: ExtensionAPI) -> None:
    registered: set[str] = set()

    def add_echo(name: str, prefix: str) -> bool:
        """Register an echo tool once; False when that name is taken already."""
        if name in registered:
            return False
        registered.add(name)

        async def execute(tool_call_id: str, params: dict[str, object], *_rest: object) -> ToolResult:
            return ToolResult(f"{prefix}{params['message']}", details={"tool": name, "prefix": prefix})

        pi.register_tool(
            ToolDefinition(
                name=name,
                label=f"Echo {name}",
                description=f"Say a message back, prefixed with {prefix.strip()}",
                parameters=PARAMETERS,
                execute=execute,
                prompt_snippet=f"say text back with the {prefix.strip()} prefix",
                prompt_guidelines=[f"Use {name} when the user wants their words repeated exactly."],
            )
        )
        return True

    @pi.on("session_start")
    def on_start(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        if add_echo("echo_session", "[session] "):
            ctx.ui.notify("Added the tool echo_session", "info")

    @pi.command("add-echo-tool", description="Add an echo tool now: /add-echo-tool <name>")
    async def add_tool(args: str, ctx: ExtensionCommandContext) -> None:
        name = args.strip().lower()
        if not TOOL_NAME.match(name):
            ctx.ui.notify("Usage: /add-echo-tool <name> (lowercase letters, digits, _)", "warning")
            return
        if not add_echo(name, f"[{name}] "):
            ctx.ui.notify(f"There is a tool {name} already", "warning")
            return
        ctx.ui.notify(f"Added the tool {name}", "info")
