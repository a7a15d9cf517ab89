"""One mechanism for every built-in tool: a declaration turned into an ``AgentTool``.

Each built-in does the same around its own logic: it takes its operations from ``ToolOptions``
(an override, else the implementation that acts on this machine) once when the tool is created,
checks the abort signal before it starts, and declares itself to the model with its name as
label. ``BuiltinTool.create`` does that once for all of them, so a tool module holds only its
texts, its JSON Schema and its body, an ``async def run(call: ToolCall[...])``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar

from pi_harness.agent.types import AgentTool, AgentToolResult, ToolUpdateCallback
from pi_harness.ai.abort import AbortSignal
from pi_harness.ai.json_values import JsonObject
from pi_harness.coding.session_store.system_messages import ConstrainedSampling
from pi_harness.coding.tools.declarations import ToolDeclarationSpec
from pi_harness.coding.tools.declared import DeclaredTool
from pi_harness.coding.tools.options import ToolOptions
from pi_harness.coding.tools.paths import resolve_to_cwd
from pi_harness.coding.tools.results import as_int, raise_if_aborted

Ops = TypeVar("Ops")


@dataclass(frozen=True)
class ToolCall(Generic[Ops]):
    """One call of a built-in tool: the validated arguments and what the body works with."""

    params: Mapping[str, object]
    cwd: str
    operations: Ops
    options: ToolOptions
    signal: AbortSignal | None
    on_update: ToolUpdateCallback | None

    def text(self, key: str) -> str:
        """A required string argument (the schema has made sure it is there)."""
        return str(self.params[key])

    def directory(self) -> str:
        """The optional ``path`` argument of the listing tools, absolute (default: the working directory)."""
        return resolve_to_cwd(str(self.params.get("path") or "."), self.cwd)

    def limit(self, default: int) -> int:
        """The optional ``limit`` argument, at least 1."""
        return max(1, as_int(self.params.get("limit"), default))


@dataclass(frozen=True)
class BuiltinTool(Generic[Ops]):
    """A built-in tool's declaration; ``create`` makes the tool for one working directory."""

    name: str
    description: str
    parameters: JsonObject
    prompt_snippet: str
    # The operations a tool created with these options works through.
    operations: Callable[[ToolOptions], Ops]
    run: Callable[[ToolCall[Ops]], Awaitable[AgentToolResult]]
    prepare_arguments: Callable[[JsonObject], JsonObject] | None = None
    # False for the shell tools: an abort before the command starts is reported by the command
    # runner in its own words ("Command aborted"), like an abort while it runs.
    abort_check_first: bool = True
    constrained_sampling: ConstrainedSampling | None = None

    @classmethod
    def declared(
        cls,
        spec: ToolDeclarationSpec,
        *,
        operations: Callable[[ToolOptions], Ops],
        run: Callable[[ToolCall[Ops]], Awaitable[AgentToolResult]],
        prepare_arguments: Callable[[JsonObject], JsonObject] | None = None,
        abort_check_first: bool = True,
    ) -> BuiltinTool[Ops]:
        """The tool ``spec`` declares, with its body."""
        return cls(
            name=spec.name,
            description=spec.description,
            parameters=spec.parameters,
            prompt_snippet=spec.prompt_snippet,
            operations=operations,
            run=run,
            prepare_arguments=prepare_arguments,
            abort_check_first=abort_check_first,
            constrained_sampling=spec.constrained_sampling,
        )

    def create(self, cwd: str, options: ToolOptions | None = None) -> AgentTool:
        opts = options or ToolOptions()
        operations = self.operations(opts)
        run = self.run
        check_abort = self.abort_check_first

        async def execute(
            tool_call_id: str,
            params: JsonObject,
            signal: AbortSignal | None = None,
            on_update: ToolUpdateCallback | None = None,
        ) -> AgentToolResult:
            if check_abort:
                raise_if_aborted(signal)
            return await run(ToolCall(params, cwd, operations, opts, signal, on_update))

        return DeclaredTool(
            name=self.name,
            label=self.name,
            description=self.description,
            parameters=self.parameters,
            execute=execute,
            prepare_arguments=self.prepare_arguments,
            prompt_snippet=self.prompt_snippet,
            constrained_sampling=self.constrained_sampling,
        )
