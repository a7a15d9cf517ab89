"""What extensions register: tools, commands, shortcuts and flags, plus the error record."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from pi_harness.agent.types import AgentToolResult


@dataclass
class ToolResult:
    """Convenience result for extension tools; a plain dict with Pi's keys works too."""

    content: list[dict[str, Any]] | str = field(default_factory=list)
    details: Any = None
    is_error: bool = False
    terminate: bool = False
    structured_content: Any = None

    def to_dict(self) -> AgentToolResult:
        content = [{"type": "text", "text": self.content}] if isinstance(self.content, str) else list(self.content)
        result: dict[str, Any] = {"content": content}
        if self.details is not None:
            result["details"] = self.details
        if self.is_error:
            result["isError"] = True
        if self.terminate:
            result["terminate"] = True
        if self.structured_content is not None:
            result["structuredContent"] = self.structured_content
        return result  # type: ignore[return-value]


ToolExecuteWithContext = Callable[..., Awaitable[Any]]


@dataclass
class ToolDefinition:
    """An extension tool: ``execute(tool_call_id, params, signal, on_update, ctx)``."""

    name: str
    description: str
    parameters: Any  # JSON Schema dict or a Pydantic model class
    execute: ToolExecuteWithContext
    label: str | None = None
    prompt_snippet: str | None = None
    prompt_guidelines: list[str] | None = None
    execution_mode: Literal["parallel", "sequential"] | None = None
    prepare_arguments: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    output_schema: dict[str, Any] | None = None
    render_call: Callable[..., Any] | None = None
    render_result: Callable[..., Any] | None = None


@dataclass
class CommandDefinition:
    name: str
    handler: Callable[..., Awaitable[Any] | Any]
    description: str | None = None
    get_argument_completions: Callable[[str], list[Any] | None] | None = None


@dataclass
class ShortcutDefinition:
    key: str
    handler: Callable[..., Awaitable[Any] | Any]
    description: str | None = None


@dataclass
class FlagDefinition:
    name: str
    type: Literal["boolean", "string"] = "boolean"
    default: Any = None
    description: str | None = None


@dataclass(frozen=True)
class ExtensionErrorRecord:
    """One report on the error channel (extensions.md section 5)."""

    extension_path: str
    event: str
    error: str
    stack: str | None = None

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"extensionPath": self.extension_path, "event": self.event, "error": self.error}
        if self.stack:
            data["stack"] = self.stack
        return data


def schema_of(parameters: Any) -> dict[str, Any]:
    """A JSON Schema dict from a dict or a Pydantic model class (titles dropped)."""
    if isinstance(parameters, dict):
        return parameters
    model_json_schema = getattr(parameters, "model_json_schema", None)
    if callable(model_json_schema):
        schema: dict[str, Any] = _strip_titles(model_json_schema())
        return schema
    raise TypeError("tool parameters must be a JSON Schema dict or a Pydantic model class")


def _strip_titles(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: _strip_titles(v) for k, v in node.items() if k != "title"}
    if isinstance(node, list):
        return [_strip_titles(v) for v in node]
    return node
