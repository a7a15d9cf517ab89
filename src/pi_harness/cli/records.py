"""Session events as JSON records, for JSON and RPC mode (``docs/json-mode.md``).

``message_update`` records are delta-only: the cumulative ``message`` and the
``assistantMessageEvent.partial`` snapshot are dropped, ``usage`` carries the latest cumulative
provider usage, and a ``toolcall_start`` additionally names the call (``id``, ``toolName``).
"""

from __future__ import annotations

from collections.abc import Mapping

# Session events for in-process listeners only: Pi's JSON and RPC streams have no such event.
IN_PROCESS_EVENTS = frozenset({"model_changed"})


def wire_event(event: Mapping[str, object]) -> Mapping[str, object] | None:
    """The record to write for a session event, or ``None`` when it stays in-process."""
    if event.get("type") in IN_PROCESS_EVENTS:
        return None
    return event_record(event)


def event_record(event: Mapping[str, object]) -> Mapping[str, object]:
    if event.get("type") != "message_update":
        return event
    assistant_event = event.get("assistantMessageEvent")
    inner = dict(assistant_event) if isinstance(assistant_event, Mapping) else {}
    partial = inner.pop("partial", None) or event.get("message") or {}
    if inner.get("type") == "toolcall_start":
        index = inner.get("contentIndex")
        content = partial.get("content") if isinstance(partial, dict) else None
        if isinstance(index, int) and isinstance(content, list) and 0 <= index < len(content):
            block = content[index]
            inner["id"] = block.get("id")
            inner["toolName"] = block.get("name")
    record: dict[str, object] = {"type": "message_update"}
    usage = partial.get("usage") if isinstance(partial, dict) else None
    if usage is not None:
        record["usage"] = usage
    record["assistantMessageEvent"] = inner
    if "runId" in event:
        record["runId"] = event["runId"]
    return record
