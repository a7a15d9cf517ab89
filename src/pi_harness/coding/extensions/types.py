"""What extensions register: tools, commands, shortcuts and flags, plus the error record."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, TypeAlias, cast

from pi_harness.agent.types import AgentTool, AgentToolResult, ToolUpdateCallback
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
# ``renderer(entry, width, context) -> lines`` for custom entries; ``transformer(markdown, context)``
# returns the Markdown to show; ``resolver(tool_name, next)`` picks the renderers of a tool's rows.
# Their arguments are UI objects, so they are loosely typed here (the interactive mode calls them).
EntryRenderer: TypeAlias = Callable[..., list[str]]
MarkdownTransformer: TypeAlias = Callable[[str, object], str]
ToolRendererResolver: TypeAlias = Callable[[str, Callable[[], object]], object]
# A JSON Schema dict, or a Pydantic model class (anything with ``model_json_schema()``).
ToolParameters: TypeAlias = JsonObject | type
# ``handler(args, ctx)``; the result may be awaitable.
CommandHandler: TypeAlias = Callable[[str, "ExtensionCommandContext"], object]
# Strings, ``{value, label?, description?}`` dicts or objects with those attributes.
ArgumentCompletions: TypeAlias = Callable[[str], Sequence[object] | None]
ShortcutHandler: TypeAlias = Callable[["ExtensionContext"], object]
FlagValue: TypeAlias = bool | str
# How the model reaches a tool (Pi's ``exposure``): ``direct`` (the default) is declared while
# active; ``model-only`` too, but other tools cannot call it; ``codemode`` and ``deferred`` are not
# activated on registration (codemode scripts and ``tool_search`` reach them); ``hidden`` is
# registered but never reachable.
ToolExposure: TypeAlias = Literal["direct", "model-only", "codemode", "deferred", "hidden"]
# ``reaches_tools(input)``: "all", or the words of the input that may name the tools a call reaches.
ToolReach: TypeAlias = Callable[[JsonObject], "Literal['all'] | Sequence[str]"]


@dataclass(frozen=True)
class ToolNamespace:
    """A group of related tools (an MCP server's): its name, other names, and what it offers."""

    name: str
    aliases: tuple[str, ...] = ()
    description: str | None = None
    instructions: str | None = None

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"name": self.name}
        if self.aliases:
            out["aliases"] = list(self.aliases)
        if self.description is not None:
            out["description"] = self.description
        if self.instructions is not None:
            out["instructions"] = self.instructions
        return out


@dataclass(frozen=True)
class ToolAnnotations:
    """Hints about what a tool does (MCP's tool annotations); unverified, for permission gates."""

    read_only_hint: bool | None = None
    destructive_hint: bool | None = None
    idempotent_hint: bool | None = None
    open_world_hint: bool | None = None

    def to_dict(self) -> dict[str, bool]:
        names = {
            "readOnlyHint": self.read_only_hint,
            "destructiveHint": self.destructive_hint,
            "idempotentHint": self.idempotent_hint,
            "openWorldHint": self.open_world_hint,
        }
        return {key: value for key, value in names.items() if value is not None}


@dataclass(frozen=True)
class ToolLoadout:
    """The session's tools as ``prepare_loadout`` sees them (Pi's ``ToolLoadout``)."""

    declared: tuple[AgentTool, ...]  # the active tools, in order, with their own descriptions
    callable: tuple[AgentTool, ...]  # what ``ctx.execute_tool`` can reach
    registered: tuple[AgentTool, ...]
    get_exposure: Callable[[str], ToolExposure]
    get_namespace: Callable[[str], ToolNamespace | None]
    get_prompt_guidelines: Callable[[str], Sequence[str]]


# ``prepare_loadout(loadout)`` returns ``{"descriptions": {name: text}, "hiddenDeclarations": [...]}``
# or None; it runs whenever the declared tools are read while its tool is active.
PrepareLoadout: TypeAlias = Callable[[ToolLoadout], "Mapping[str, object] | None"]


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
    exposure: ToolExposure | None = None  # None: "direct"
    namespace: ToolNamespace | None = None
    reaches_tools: ToolReach | None = None
    # False: not activated on registration even when declarable (Pi's ``defaultActive``).
    default_active: bool | None = None
    annotations: ToolAnnotations | Mapping[str, bool] | None = None
    # "self": the renderers draw their own frame instead of the standard tool box (UI side).
    render_shell: Literal["default", "self"] | None = None
    prepare_loadout: PrepareLoadout | None = None

    def annotations_dict(self) -> dict[str, bool] | None:
        """The annotations with Pi's keys (a dict is taken as it is)."""
        if self.annotations is None:
            return None
        if isinstance(self.annotations, ToolAnnotations):
            return self.annotations.to_dict()
        return dict(self.annotations)


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
