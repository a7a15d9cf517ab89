"""shutdown-command: leave pi from a command or from a tool.

* ``/quit`` ends pi cleanly (as if you had exited yourself: ``session_shutdown`` runs);
* ``finish_and_exit`` is a tool the model can call once its work is done; pi exits when the
  current run is over, after the model has read the tool's answer;
* ``deploy_and_exit`` shows the same with an argument and progress updates: it reports
  "deploying to <environment>" (a stand-in for a real deployment), then asks to exit.

What it shows: ``ctx.shutdown()``, which does not stop anything at once but asks the mode to exit
as soon as the agent is idle (print mode exits when done anyway), from a command handler and from
a tool's ``execute``, and ``on_update`` for partial tool results.

Load it with ``pi -e examples/extensions/shutdown_command.py``.
"""

from __future__ import annotations

from typing import Any

from pi_harness.coding.extensions import (
    ExtensionAPI,
    ExtensionCommandContext,
    ExtensionContext,
    ToolResult,
    ToolUpdateCallback,
)

NO_PARAMETERS: dict[str, Any] = {"type": "object", "properties": {}}
DEPLOY_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {"environment": {"type": "string", "description": "Where to deploy, e.g. staging"}},
    "required": ["environment"],
}


def progress(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "details": {}}


def extension(pi: ExtensionAPI) -> None:
    @pi.command("quit", description="Exit pi")
    async def quit_pi(args: str, ctx: ExtensionCommandContext) -> None:
        ctx.shutdown()

    @pi.tool(
        name="finish_and_exit",
        label="Finish and exit",
        description="Call this when the task is complete: pi exits after this response.",
        parameters=NO_PARAMETERS,
    )
    async def finish_and_exit(
        tool_call_id: str, params: dict[str, Any], signal: object, on_update: object, ctx: ExtensionContext | None
    ) -> ToolResult:
        if ctx is not None:
            ctx.shutdown()
        return ToolResult("Exit requested: pi closes once this response is finished.")

    @pi.tool(
        name="deploy_and_exit",
        label="Deploy and exit",
        description="Deploy the application to an environment, then exit pi.",
        parameters=DEPLOY_PARAMETERS,
    )
    async def deploy_and_exit(
        tool_call_id: str,
        params: dict[str, Any],
        signal: object,
        on_update: ToolUpdateCallback | None,
        ctx: ExtensionContext | None,
    ) -> ToolResult:
        environment = str(params["environment"])
        if on_update is not None:
            on_update(progress(f"Deploying to {environment}..."))
            # A real extension would run its deployment here, e.g. await pi.exec("make", ["deploy"]).
            on_update(progress("Deployed; exiting..."))
        if ctx is not None:
            ctx.shutdown()
        return ToolResult(f"Deployed to {environment}. Exit requested.", details={"environment": environment})
