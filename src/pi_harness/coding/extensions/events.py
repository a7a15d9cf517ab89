"""Extension event names, their combination kinds, and the event object handlers receive.

How the results of an event's handlers combine (``combine.py`` implements each kind, the
table in docs/extensions.md describes them for authors): ``notify`` (return ignored), in-place
mutation (later handlers see earlier changes to the event), chained transform (each handler gets
the previous output) and gate (a result can stop the default path). Handlers get an
``ExtensionEvent``: attribute access in snake_case (``event.tool_name``) or item access with Pi's
camelCase keys (``event["toolName"]``). Payload values are whatever the event carries, so they
are typed ``object``: narrow them (``isinstance``) before use.
"""

from __future__ import annotations

import dataclasses
import re
from typing import Literal

EventKind = Literal[
    "notify",
    "gate_trust",
    "transform_last",
    "session_before",
    "input",
    "before_agent_start",
    "transform",
    "tool_call",
    "tool_result",
    "actionable",
    "user_bash",
    "collect",
]

EVENT_KINDS: dict[str, EventKind] = {
    # startup and session
    "project_trust": "gate_trust",
    "session_directory": "transform_last",
    "session_start": "notify",
    "resources_discover": "collect",
    "session_before_switch": "session_before",
    "session_switch": "notify",
    "session_before_fork": "session_before",
    "session_fork": "notify",
    "session_before_compact": "session_before",
    "session_compact": "notify",
    "session_compact_failed": "notify",
    "session_before_tree": "session_before",
    "session_tree": "notify",
    "session_shutdown": "notify",
    "session_info_changed": "notify",
    "mcp_servers_change": "notify",
    "model_select": "notify",
    "thinking_level_select": "notify",
    # input and run
    "input": "input",
    "before_agent_start": "before_agent_start",
    "agent_start": "notify",
    "agent_end": "notify",
    "turn_start": "notify",
    "turn_end": "actionable",
    "agent_before_settle": "actionable",
    "agent_settled": "notify",
    "ui_prompt_start": "notify",
    "ui_prompt_end": "notify",
    "message_start": "notify",
    "message_update": "notify",
    "message_end": "notify",
    # request chain
    "context": "transform",
    "context_with_system": "transform",
    "before_provider_headers": "transform",
    "before_provider_request": "transform",
    "cache_warming_decision": "transform",
    "after_provider_response": "notify",
    "provider_stream_event": "notify",
    # tool chain
    "tool_execution_start": "notify",
    "tool_call": "tool_call",
    "tool_execution_update": "notify",
    "tool_result": "tool_result",
    "tool_execution_end": "notify",
    # user shell
    "user_bash": "user_bash",
}

EVENT_NAMES = frozenset(EVENT_KINDS)

_CAMEL_BOUNDARY = re.compile(r"_([a-z0-9])")
_SNAKE_BOUNDARY = re.compile(r"(?<!^)(?=[A-Z])")


def snake_to_camel(name: str) -> str:
    return _CAMEL_BOUNDARY.sub(lambda m: m.group(1).upper(), name)


def camel_to_snake(name: str) -> str:
    return _SNAKE_BOUNDARY.sub("_", name).lower()


class ExtensionEvent:
    """A payload dict with snake_case attribute access; mutations write through to the payload."""

    __slots__ = ("_payload", "type")
    _payload: dict[str, object]
    type: str

    def __init__(self, type: str, payload: dict[str, object] | None = None) -> None:
        object.__setattr__(self, "type", type)
        object.__setattr__(self, "_payload", payload if payload is not None else {})

    def _key(self, name: str) -> str:
        if name in self._payload:
            return name
        return snake_to_camel(name)

    def __getattr__(self, name: str) -> object:
        if name.startswith("__"):
            raise AttributeError(name)
        key = self._key(name)
        if key in self._payload:
            return self._payload[key]
        raise AttributeError(f"event {self.type!r} has no field {name!r}")

    def __setattr__(self, name: str, value: object) -> None:
        self._payload[self._key(name)] = value

    def __getitem__(self, key: str) -> object:
        return self._payload[key]

    def __setitem__(self, key: str, value: object) -> None:
        self._payload[key] = value

    def __contains__(self, key: object) -> bool:
        return key in self._payload

    def get(self, key: str, default: object = None) -> object:
        return self._payload.get(key, default)

    def to_dict(self) -> dict[str, object]:
        return {"type": self.type, **self._payload}

    def __repr__(self) -> str:
        return f"ExtensionEvent({self.type!r}, {self._payload!r})"


def normalize_result(result: object) -> object:
    """Handler results may be dicts with Pi's keys, dataclasses or objects with ``to_dict``."""
    if result is None or isinstance(result, dict | str | bool | list):
        return result
    to_dict = getattr(result, "to_dict", None)
    if callable(to_dict):
        converted: object = to_dict()
        return converted
    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        return {snake_to_camel(k): v for k, v in dataclasses.asdict(result).items() if v is not None}
    return result
