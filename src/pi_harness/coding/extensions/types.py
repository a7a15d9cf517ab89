"""What extensions register: tools, commands, shortcuts and flags, plus the error record."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, TypeAlias, cast

from pi_harness.agent.types import AgentToolResult, ToolUpdateCallback
from pi_harness.ai.abort import AbortSignal
from pi_harness.ai.json_values import JsonObject
from pi_harness.ai.types import UserContent
from pi_harness.coding.session_store.system_messages import ConstrainedSampling

if TYPE_CHECKING:
    from pi_harness.coding.extensions.context import ExtensionCommandContext, ExtensionContext


@dataclass
class ToolResult:
    """Convenience result for extension tools; a plain dict with Pi's keys works too."""

    content: list[UserContent] | str = field(default_factory=list)
    details: object = None
    is_error: bool = False
    terminate: bool = False
    structured_content: object = None

    def to_dict(self) -> AgentToolResult:
        content: list[UserContent] = (
            [{"type": "text", "text": self.content}] if isinstance(self.content, str) else list(self.content)
        )
        result: AgentToolResult = {"content": content}
        if self.details is not None:
            result["details"] = self.details
        if self.is_error:
            result["isError"] = True
        if self.terminate:
            result["terminate"] = True
        if self.structured_content is not None:
            result["structuredContent"] = self.structured_content
        return result


# ``execute(tool_call_id, params, signal, on_update, ctx)``; ``ctx`` is None while the runner is
# not bound to a session. It returns a ``ToolResult``, a result dict, text or None, or an
# awaitable of one of those.
ToolExecuteWithContext: TypeAlias = Callable[
    [str, JsonObject, AbortSignal | None, ToolUpdateCallback | None, "ExtensionContext | None"], object
]
# Called by the interactive UI with arguments of its own types (the tool's arguments or result,
# and its render context), which this layer cannot name; they return the lines to show.
ToolRenderer: TypeAlias = Callable[..., list[str]]
MessageRenderer: TypeAlias = Callable[..., list[str]]
# A JSON Schema dict, or a Pydantic model class (anything with ``model_json_schema()``).
ToolParameters: TypeAlias = JsonObject | type
# ``handler(args, ctx)``; the result may be awaitable.
CommandHandler: TypeAlias = Callable[[str, "ExtensionCommandContext"], object]
# Strings, ``{value, label?, description?}`` dicts or objects with those attributes.
ArgumentCompletions: TypeAlias = Callable[[str], Sequence[object] | None]
ShortcutHandler: TypeAlias = Callable[["ExtensionContext"], object]
FlagValue: TypeAlias = bool | str


@dataclass
class ToolDefinition:
    """An extension tool: ``execute(tool_call_id, params, signal, on_update, ctx)``."""

    name: str
    description: str
    parameters: ToolParameters
    execute: ToolExecuteWithContext
    label: str | None = None
    prompt_snippet: str | None = None
    prompt_guidelines: list[str] | None = None
    execution_mode: Literal["parallel", "sequential"] | None = None
    prepare_arguments: Callable[[JsonObject], JsonObject] | None = None
    output_schema: JsonObject | None = None
    render_call: ToolRenderer | None = None
    render_result: ToolRenderer | None = None
    # How providers may constrain the sampling of the arguments (Pi's ``constrainedSampling``).
    constrained_sampling: ConstrainedSampling | None = None
    # False: registered inactive (Pi's ``defaultActive``), on only when a tool selection names it.
    default_active: bool = True


@dataclass
class CommandDefinition:
    name: str
    handler: CommandHandler
    description: str | None = None
    get_argument_completions: ArgumentCompletions | None = None


@dataclass
class ShortcutDefinition:
    key: str
    handler: ShortcutHandler
    description: str | None = None


@dataclass
class FlagDefinition:
    name: str
    type: Literal["boolean", "string"] = "boolean"
    default: FlagValue | None = None
    description: str | None = None


@dataclass(frozen=True)
class ExtensionErrorRecord:
    """One report on the error channel: which extension, in which event, what went wrong."""

    extension_path: str
    event: str
    error: str
    stack: str | None = None

    def to_dict(self) -> dict[str, str]:
        data = {"extensionPath": self.extension_path, "event": self.event, "error": self.error}
        if self.stack:
            data["stack"] = self.stack
        return data


def schema_of(parameters: ToolParameters) -> JsonObject:
    """A JSON Schema dict from a dict or a Pydantic model class (titles dropped)."""
    if isinstance(parameters, dict):
        return parameters
    model_json_schema = getattr(parameters, "model_json_schema", None)
    if callable(model_json_schema):
        schema = _strip_titles(model_json_schema())
        if isinstance(schema, dict):
            return cast("JsonObject", schema)  # Pydantic's model_json_schema() is JSON by contract
    raise TypeError("tool parameters must be a JSON Schema dict or a Pydantic model class")


def _strip_titles(node: object) -> object:
    if isinstance(node, dict):
        return {k: _strip_titles(v) for k, v in node.items() if k != "title"}
    if isinstance(node, list):
        return [_strip_titles(v) for v in node]
    return node
