"""hello: the smallest useful extension, one tool.

Registers a ``hello`` tool that takes a ``name`` and answers ``Hello, <name>!``. The name greeted
is kept in the result's ``details`` (``{"greeted": name}``), which stays in the session file but is
not sent to the model.

What it shows: ``pi.tool(...)`` with a JSON Schema for the parameters, returning a
``ToolResult`` with text for the model and details for the extension.

Load it with ``pi -e examples/extensions/hello.py`` and ask the model to greet someone.
"""

from __future__ import annotations

from typing import Any

from pi_harness.coding.extensions import ExtensionAPI, ExtensionContext, ToolResult

PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {"name": {"type": "string", "description": "Who to greet"}},
    "required": ["name"],
}


def extension(pi: ExtensionAPI) -> None:
    @pi.tool(name="hello", label="Hello", description="Greet someone by name.", parameters=PARAMETERS)
    async def hello(
        tool_call_id: str, params: dict[str, Any], signal: object, on_update: object, ctx: ExtensionContext | None
    ) -> ToolResult:
        name = str(params["name"])
        return ToolResult(f"Hello, {name}!", details={"greeted": name})
