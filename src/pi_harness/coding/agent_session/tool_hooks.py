"""The session's tool hooks and nested tool calls (``ctx.execute_tool``; see extensions.md).

* ``before_tool_call`` emits the extension event ``tool_call {toolName, toolCallId, input}``;
  the first ``{block: true}`` blocks the call and a raising handler blocks it too (the loop turns
  the exception into the error result: fail closed). A call that goes ahead then has the masked
  secrets (``[redacted:<name>]``) in the text ``edit`` and ``write`` put into a file turned back
  into their values (``restore_written_secrets``; handlers saw the markers).
* ``after_tool_call`` masks secrets in the result (``security.maskSecrets``; every tool's result
  ends here, extension and MCP tools and nested calls included), emits ``tool_result`` with the
  masked result and applies the handlers' patch (``content``, ``details``, ``isError``, and
  ``structuredContent`` so redaction covers it too), masked as well.
* ``execute_nested`` runs another tool for ``ctx.execute_tool`` through the same validation and
  hooks, as ``<calling id>/<n>``. Its events carry ``parentToolCallId``; it is not written to the
  transcript. The calling tool's result message gets the bounded record ``nestedCalls``
  (``nested_calls.py``). It never raises for a failing call: unknown tools, invalid arguments,
  blocked calls, raising tools and nesting deeper than 8 levels (a guard of ours against a tool
  calling itself forever) come back as ``isError: true``.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping
from contextvars import ContextVar
from typing import cast

from pi_harness.agent.tool_execution import ToolEnvironment, execute_tool_call
from pi_harness.agent.types import (
    AfterToolCallContext,
    AfterToolCallResult,
    AgentContext,
    AgentEvent,
    AgentMessage,
    AgentTool,
    AgentToolResult,
    BeforeToolCallContext,
    BeforeToolCallResult,
)
from pi_harness.ai.abort import AbortController, AbortSignal
from pi_harness.ai.json_values import JsonObject, json_arguments
from pi_harness.ai.types import AssistantMessage, Model, ToolCall, empty_usage
from pi_harness.coding.agent_session.nested_calls import NestedCalls
from pi_harness.coding.agent_session.tool_registry import CURRENT_TOOL_CALL, ToolRegistry
from pi_harness.coding.compaction.types import add_usage
from pi_harness.coding.extensions.runner import ExtensionRunner
from pi_harness.coding.secrets import SecretMasker

MAX_NESTING_DEPTH = 8
DEPTH_EXCEEDED = "Maximum nested tool call depth exceeded"

_DEPTH: ContextVar[int] = ContextVar("pi_nested_tool_depth", default=0)

Emit = Callable[[AgentEvent], Awaitable[None]]


def _placeholder_assistant(model: Model | None) -> AssistantMessage:
    """The assistant message a nested call made outside any turn is attributed to."""
    return {
        "role": "assistant",
        "content": [],
        "api": str(model.get("api", "")) if model is not None else "",
        "provider": str(model.get("provider", "")) if model is not None else "",
        "model": str(model.get("id", "")) if model is not None else "",
        "usage": empty_usage(),
        "stopReason": "toolUse",
        "timestamp": int(time.time() * 1000),
    }


class ToolHooks:
    def __init__(
        self,
        *,
        runner: ExtensionRunner,
        registry: ToolRegistry,
        emit: Emit,
        run_id: Callable[[], str | None],
        model: Callable[[], Model | None],
        messages: Callable[[], list[AgentMessage]],
        masker: SecretMasker | None = None,
    ) -> None:
        self._runner = runner
        self._registry = registry
        self._emit = emit
        self._run_id = run_id
        self._model = model
        self._messages = messages
        self._masker = masker
        self.nested = NestedCalls()

    async def before_tool_call(
        self, ctx: BeforeToolCallContext, signal: AbortSignal | None
    ) -> BeforeToolCallResult | None:
        verdict = await self._gate(ctx)
        if verdict is None and self._masker is not None:
            restore_written_secrets(ctx.tool_call["name"], ctx.args, self._masker)
        return verdict

    async def _gate(self, ctx: BeforeToolCallContext) -> BeforeToolCallResult | None:
        if not self._runner.has_handlers("tool_call"):
            return None
        payload: dict[str, object] = {
            "toolName": ctx.tool_call["name"],
            "toolCallId": ctx.tool_call["id"],
            "input": ctx.args,
        }
        parent = CURRENT_TOOL_CALL.get()
        if parent is not None:
            payload["parentToolCallId"] = parent
        verdict = await self._runner.emit_tool_call(payload)
        if not verdict or not verdict.get("block"):
            return None
        blocked: BeforeToolCallResult = {"block": True}
        reason = verdict.get("reason")
        if isinstance(reason, str) and reason:
            blocked["reason"] = reason
        return blocked

    async def after_tool_call(
        self, ctx: AfterToolCallContext, signal: AbortSignal | None
    ) -> AfterToolCallResult | None:
        nested_usage = self.nested.take_usage(ctx.tool_call["id"])
        if nested_usage is not None:
            own = ctx.result.get("usage")
            ctx.result["usage"] = nested_usage if own is None else add_usage(own, nested_usage) or nested_usage
        record = self.nested.take(ctx.tool_call["id"])
        if record is not None:
            # Into the result the message is made from (in place, like ``usage``), not the events'.
            ctx.result["nestedCalls"] = record
        result = self._masker.value(ctx.result) if self._masker is not None else ctx.result
        out = _changed_fields(ctx.result, result)
        if not self._runner.has_handlers("tool_result"):
            return out or None
        payload: dict[str, object] = {
            "toolName": ctx.tool_call["name"],
            "toolCallId": ctx.tool_call["id"],
            "input": ctx.args,
            "content": list(result.get("content") or []),
            "details": result.get("details"),
            "isError": ctx.is_error,
        }
        if "structuredContent" in result:
            payload["structuredContent"] = result["structuredContent"]
        patch = await self._runner.emit_tool_result(payload)
        if self._masker is not None:
            patch = self._masker.value(patch)
        if "structuredContent" in patch:
            out["structuredContent"] = patch["structuredContent"]
        if "content" in patch:
            out["content"] = patch["content"]
        if "details" in patch:
            out["details"] = patch["details"]
        if "isError" in patch:
            out["isError"] = bool(patch["isError"])
        return out or None

    async def execute_nested(
        self,
        name: str,
        args: Mapping[str, object],
        *,
        signal: AbortSignal | None = None,
        on_update: Callable[[AgentToolResult], object] | None = None,
        parent_tool_call_id: str | None = None,
    ) -> dict[str, object]:
        depth = _DEPTH.get()
        parent = parent_tool_call_id or CURRENT_TOOL_CALL.get()
        caller = parent or "nested"
        call_id = self.nested.next_id(caller)
        arguments = json_arguments(args)
        tool_call: ToolCall = {"type": "toolCall", "id": call_id, "name": name, "arguments": arguments}
        if depth >= MAX_NESTING_DEPTH:
            return {"content": [{"type": "text", "text": DEPTH_EXCEEDED}], "isError": True}
        record = self.nested.start(caller, call_id, name, arguments) if parent is not None else None

        async def emit(event: AgentEvent) -> None:
            if on_update is not None and event["type"] == "tool_execution_update" and event["toolCallId"] == call_id:
                on_update(event["partialResult"])
            await self._emit(event)

        last = next((m for m in reversed(self._messages()) if m["role"] == "assistant"), None)
        assistant = cast(AssistantMessage, last) if last is not None else _placeholder_assistant(self._model())
        env = ToolEnvironment(
            context=AgentContext("", [], _reachable(self._registry, name)),
            assistant_message=assistant,
            signal=signal if signal is not None else AbortController().signal,
            run_id=self._run_id() or "",
            emit=emit,
            deliver=_never_delivered,
            before_tool_call=self.before_tool_call,
            after_tool_call=self.after_tool_call,
            parent_tool_call_id=parent,
        )
        token = _DEPTH.set(depth + 1)
        try:
            result, is_error = await execute_tool_call(env, tool_call)
        finally:
            _DEPTH.reset(token)
        text = "\n".join(b["text"] for b in result.get("content") or [] if b["type"] == "text")
        self.nested.finish(caller, record, is_error, text)
        if parent is not None:
            self.nested.add_usage(caller, result.get("usage"))
        out: dict[str, object] = dict(result)
        out["isError"] = is_error
        return out


def restore_written_secrets(tool_name: str, args: JsonObject, masker: SecretMasker) -> None:
    """In place, before the call runs: the model saw a file's credentials masked, so the text it
    writes back through ``edit`` (``oldText``, ``newText``) or ``write`` (``content``) names them by
    marker; without this, an edit of such a line would not match and a write would replace the
    credential in the file by its marker. The call's event and transcript keep the markers."""
    content, edits = args.get("content"), args.get("edits")
    if tool_name == "write" and isinstance(content, str):
        args["content"] = masker.restore(content)
    elif tool_name == "edit" and isinstance(edits, list):
        for edit in edits:
            if isinstance(edit, dict):
                for key in ("oldText", "newText"):
                    text = edit.get(key)
                    if isinstance(text, str):
                        edit[key] = masker.restore(text)


def _changed_fields(before: AgentToolResult, after: AgentToolResult) -> AfterToolCallResult:
    """The patchable fields that masking replaced (it copies only what it changes)."""
    out: AfterToolCallResult = {}
    if "content" in after and after["content"] is not before.get("content"):
        out["content"] = after["content"]
    if "details" in after and after["details"] is not before.get("details"):
        out["details"] = after["details"]
    if "structuredContent" in after and after["structuredContent"] is not before.get("structuredContent"):
        out["structuredContent"] = after["structuredContent"]
    return out


def _reachable(registry: ToolRegistry, name: str) -> list[AgentTool]:
    """The active tools, plus ``name`` when it is registered but inactive: an orchestrating tool
    (codemode) decides which registered tools its nested calls may reach."""
    tools = registry.active_tools()
    if all(tool.name != name for tool in tools):
        extra = registry.get(name)
        if extra is not None:
            tools.append(extra)
    return tools


async def _never_delivered(message: AgentMessage) -> None:
    """Nested calls produce no transcript message."""


__all__ = ["DEPTH_EXCEEDED", "MAX_NESTING_DEPTH", "ToolHooks"]
