"""The record of the tool calls a tool makes while it runs (``ctx.execute_tool``), as Pi keeps it.

Each call a model issued gets one recorder, shared by the calls its nested tools make in turn.
A nested call is named ``<calling id>/<n>`` (``n`` counting from 1 per calling call) and
recorded as it starts: ``{id, name, status: "unfinished", arguments}``; when it ends, ``status``
becomes ``ok`` or ``error``, with ``durationMs`` and, for an error, the first 500 characters of
its text. The record is bounded: after 256 calls the rest are not recorded, and arguments over
8 KiB (UTF-8 JSON) for one call, or over 32 KiB for all the recorded calls together, are left
out and replaced by their size (``argumentsBytes``). Any of that, or a call still running when
the calling tool finished, makes ``complete`` false. The calling tool's result message carries
``nestedCalls: {calls, complete}``; results of nested calls are not recorded, and nested calls
are not in the transcript. The ``usage`` of every nested result (recorded or not) is summed and
added to the calling tool's result ``usage``, as Pi does.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import cast

from pi_harness.ai.json_values import JsonObject
from pi_harness.ai.jsonutil import dumps_str
from pi_harness.ai.types import Usage
from pi_harness.coding.compaction.types import add_usage

MAX_CALLS = 256
MAX_ARGUMENT_BYTES_PER_CALL = 8 * 1024
MAX_ARGUMENT_BYTES_TOTAL = 32 * 1024
MAX_ERROR_CHARS = 500


@dataclass
class _Recorder:
    calls: list[dict[str, object]] = field(default_factory=list)
    started: dict[int, float] = field(default_factory=dict)  # by id() of the record
    complete: bool = True
    argument_bytes: int = 0
    usage: Usage | None = None  # of every nested result, dropped from the record or not


class NestedCalls:
    """Recorders by the id of the model-issued call, and which call each nested id belongs to."""

    __slots__ = ("_counters", "_recorders", "_roots")

    def __init__(self) -> None:
        self._recorders: dict[str, _Recorder] = {}
        self._roots: dict[str, str] = {}  # nested call id -> the model-issued call's id
        self._counters: dict[str, int] = {}  # calling id -> the last ``n`` given out

    def next_id(self, caller: str) -> str:
        count = self._counters.get(caller, 0) + 1
        self._counters[caller] = count
        return f"{caller}/{count}"

    def start(self, caller: str, call_id: str, name: str, arguments: JsonObject) -> dict[str, object] | None:
        """Record a call as it starts; ``None`` when the record is full (the call still runs)."""
        root = self._roots.get(caller, caller)
        self._roots[call_id] = root
        recorder = self._recorders.setdefault(root, _Recorder())
        if len(recorder.calls) >= MAX_CALLS:
            recorder.complete = False
            return None
        record: dict[str, object] = {"id": call_id, "name": name, "status": "unfinished"}
        size = len(dumps_str(arguments).encode("utf-8"))
        if size > MAX_ARGUMENT_BYTES_PER_CALL or recorder.argument_bytes + size > MAX_ARGUMENT_BYTES_TOTAL:
            record["argumentsBytes"] = size
            recorder.complete = False
        else:
            record["arguments"] = arguments
            recorder.argument_bytes += size
        recorder.calls.append(record)
        recorder.started[id(record)] = time.monotonic()
        return record

    def finish(self, caller: str, record: dict[str, object] | None, is_error: bool, error_text: str) -> None:
        if record is None:
            return
        recorder = self._recorders.get(self._roots.get(caller, caller))
        started = recorder.started.pop(id(record), None) if recorder is not None else None
        record["status"] = "error" if is_error else "ok"
        if started is not None:
            record["durationMs"] = round((time.monotonic() - started) * 1000)
        if is_error and error_text:
            record["error"] = error_text[:MAX_ERROR_CHARS]

    def add_usage(self, caller: str, usage: object) -> None:
        if not isinstance(usage, dict):
            return
        recorder = self._recorders.setdefault(self._roots.get(caller, caller), _Recorder())
        recorder.usage = add_usage(recorder.usage, cast(Usage, usage))

    def take_usage(self, tool_call_id: str) -> Usage | None:
        """The summed usage of a model-issued call's nested results (call before ``take``)."""
        recorder = self._recorders.get(tool_call_id)
        return recorder.usage if recorder is not None else None

    def take(self, tool_call_id: str) -> dict[str, object] | None:
        """``{calls, complete}`` of a model-issued call, removed; ``None`` when it made none."""
        recorder = self._recorders.pop(tool_call_id, None)
        self._counters.pop(tool_call_id, None)
        for nested in [k for k, root in self._roots.items() if root == tool_call_id]:
            del self._roots[nested]
            self._counters.pop(nested, None)
        if recorder is None or (not recorder.calls and recorder.complete):
            return None
        calls = [dict(call) for call in recorder.calls]
        complete = recorder.complete and all(call["status"] != "unfinished" for call in calls)
        return {"calls": calls, "complete": complete}


__all__ = [
    "MAX_ARGUMENT_BYTES_PER_CALL",
    "MAX_ARGUMENT_BYTES_TOTAL",
    "MAX_CALLS",
    "MAX_ERROR_CHARS",
    "NestedCalls",
]
