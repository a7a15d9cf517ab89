"""reload-runtime: reload extensions, skills, prompts, themes and context files from code.

What it shows:

* ``ctx.reload()`` in a command: the session is rebuilt with freshly imported extensions (edits
  to them take effect) and every old ``ctx`` and ``pi`` becomes stale, so the reload is the last
  thing the command does;
* that a tool cannot reload in the middle of a run (its ``ctx`` has no session control): the
  ``reload_runtime`` tool only asks for it, and the reload happens at ``agent_settled``, once
  the run is over, by sending ``/reload-runtime`` as typed input
  (``send_user_message(..., expand_prompt_templates=True)`` runs extension commands);
* ``session_start`` with ``reason == "reload"`` to tell a reload from a fresh start.

``/reload-runtime`` reloads at once; the model can call ``reload_runtime`` when it changed an
extension or a skill and needs it loaded.

Load it with ``pi -e examples/extensions/reload_runtime.py``.
"""

from __future__ import annotations

from pi_harness.coding.extensions import ToolResult
from pi_harness.coding.extensions.api import ExtensionAPI
from pi_harness.coding.extensions.context import ExtensionCommandContext, ExtensionContext
from pi_harness.coding.extensions.events import ExtensionEvent

COMMAND = "reload-runtime"


def extension(pi: ExtensionAPI) -> None:
    wanted = {"reload": False}

    @pi.command(COMMAND, description="Reload extensions, skills, prompts, themes and context files")
    async def reload(args: str, ctx: ExtensionCommandContext) -> None:
        await ctx.reload()  # nothing after this: ctx is stale now

    @pi.tool(
        name="reload_runtime",
        label="Reload runtime",
        description="Reload extensions, skills, prompts, themes and context files after changing them.",
        parameters={"type": "object", "properties": {}},
    )
    async def reload_tool(*_args: object) -> ToolResult:
        wanted["reload"] = True
        return ToolResult(f"/{COMMAND} will run when this run is over.")

    @pi.on("agent_settled")
    async def settled(event: ExtensionEvent) -> None:
        if wanted["reload"] and not event.aborted:
            wanted["reload"] = False
            await pi.send_user_message(f"/{COMMAND}", expand_prompt_templates=True)

    @pi.on("session_start")
    def started(event: ExtensionEvent, ctx: ExtensionContext) -> None:
        if event.reason == "reload":
            ctx.ui.notify("Reloaded extensions, skills, prompts, themes and context files", "info")
