"""Built-in tools declared now and implemented on their first call.

A session declares its tools to the model in its first request, but most runs call few of them
(``pi -p`` often none): the bodies, with their operations, process tracking and search backends,
are imported when a tool is first called (or its arguments are first prepared), not at startup.
The tool the model sees is the same ``DeclaredTool`` the body's factory makes.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from pi_harness.coding.tools.declarations import ToolDeclarationSpec
from pi_harness.coding.tools.declared import DeclaredTool

if TYPE_CHECKING:
    from pi_harness.agent.types import AgentTool, AgentToolResult, ToolUpdateCallback
    from pi_harness.ai.abort import AbortSignal
    from pi_harness.ai.json_values import JsonObject
    from pi_harness.coding.tools.options import ToolOptions


def declare_tool(spec: ToolDeclarationSpec, cwd: str, options: ToolOptions | None) -> AgentTool:
    """The tool of ``spec`` for ``cwd``, its body built from ``options`` on first use."""
    body: AgentTool | None = None

    def implementation() -> AgentTool:
        nonlocal body
        if body is None:
            module = importlib.import_module(f"pi_harness.coding.tools.{spec.module}")
            body = getattr(module, f"create_{spec.name}_tool")(cwd, options)
        return body

    async def execute(
        tool_call_id: str,
        params: JsonObject,
        signal: AbortSignal | None = None,
        on_update: ToolUpdateCallback | None = None,
    ) -> AgentToolResult:
        return await implementation().execute(tool_call_id, params, signal, on_update)

    def prepare_arguments(args: JsonObject) -> JsonObject:
        prepare = implementation().prepare_arguments
        return prepare(args) if prepare is not None else args

    return DeclaredTool(
        name=spec.name,
        label=spec.name,
        description=spec.description,
        parameters=spec.parameters,
        execute=execute,
        prepare_arguments=prepare_arguments if spec.prepares_arguments else None,
        prompt_snippet=spec.prompt_snippet,
        constrained_sampling=spec.constrained_sampling,
    )
