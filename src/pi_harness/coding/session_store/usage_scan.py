"""The covered part of a large session (``cold_part.py``) added to a ``UsageSummary`` without
parsing its messages: their lines are decoded from the file a run at a time, for the counted
fields only (``msgspec``, in C). A run whose fields are not of the types counted (a usage record
written by another program, say) is parsed line by line and added as parsed, so the figures are
those of the full walk (``UsageSummary.add_entry``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from operator import attrgetter

import msgspec

from pi_harness.coding.session_store.cold_part import FULL, ColdPart
from pi_harness.coding.session_store.jsonl import loads_tolerant
from pi_harness.coding.session_store.usage_summary import SessionUsage, UsageSummary

RUN_BYTES = 1 << 20  # decoded this many bytes of lines at a time


class _Cost(msgspec.Struct, gc=False):
    total: float = 0.0


class _Usage(msgspec.Struct, gc=False):
    # A null or a fraction is not of these types: its run is then parsed line by line.
    input: int = 0
    output: int = 0
    cacheRead: int = 0
    cacheWrite: int = 0
    totalTokens: int = 0
    cost: _Cost | None = None


class _Block(msgspec.Struct, gc=False):
    type: str | None = None


class _Message(msgspec.Struct, gc=False):
    role: str | None = None
    usage: _Usage | None = None
    content: list[_Block] | str | None = None


class _Line(msgspec.Struct, gc=False):
    """A covered message line as counted (a stub is a message of role user, assistant or toolResult)."""

    message: _Message


_decode_lines = msgspec.json.Decoder(_Line).decode_lines
_RUN_ERRORS = (msgspec.DecodeError, msgspec.ValidationError)
_fields = {name: attrgetter(name) for name in ("input", "output", "cacheRead", "cacheWrite")}


def _add_decoded(summary: UsageSummary, lines: list[_Line]) -> int:
    """Add decoded stub lines (each a user, assistant or toolResult message) in comprehensions,
    not a Python step per field; the index of the last assistant message with usage, or -1."""
    counts, tokens = summary.counts, summary.tokens
    messages = [line.message for line in lines]
    roles = [message.role for message in messages]
    assistants = [message for message in messages if message.role == "assistant"]
    users = roles.count("user")
    counts["totalMessages"] += len(messages)
    counts["userMessages"] += users
    counts["assistantMessages"] += len(assistants)
    counts["toolResults"] += len(messages) - users - len(assistants)
    counts["toolCalls"] += sum(
        [block.type == "toolCall" for m in assistants if isinstance(m.content, list) for block in m.content]
    )
    # A user message's usage is not counted (the full walk reads usage of the others only).
    usages = [m.usage for m in messages if m.usage is not None and m.role != "user"]
    for name, get in _fields.items():
        tokens[name] += sum(map(get, usages))
    tokens["total"] += sum([u.totalTokens or u.input + u.output + u.cacheRead + u.cacheWrite for u in usages])
    summary.cost += sum([u.cost.total for u in usages if u.cost is not None])
    for index in range(len(messages) - 1, -1, -1):
        if roles[index] == "assistant" and messages[index].usage is not None:
            return index
    return -1


def _add_run(summary: UsageSummary, data: bytes, lines: int) -> tuple[int, Mapping[str, object] | None]:
    """Add the ``lines`` stub lines in ``data``. Its latest assistant message with usage: its index
    in the run and ``None`` (decoded: its usage is read again if it is the file's latest), or
    ``0`` and that usage (parsed: between the lines there may be others, which are no entries);
    ``(-1, None)`` when there is none."""
    body = data[:-1] if data.endswith(b"\n") else data
    try:
        decoded = _decode_lines(body) if body.count(b"\n") == lines - 1 else None
    except _RUN_ERRORS:
        decoded = None
    if decoded is not None and len(decoded) == lines:
        return _add_decoded(summary, decoded), None
    before = summary.last_assistant_usage
    for raw in body.split(b"\n"):  # parsed as the full reader parses them
        record = loads_tolerant(raw)
        if isinstance(record, dict):
            summary.add_entry(record)
    found = summary.last_assistant_usage
    return (0, found) if found is not before else (-1, None)


def _stub_runs(cold: ColdPart) -> Iterable[tuple[int, int]]:
    """Positions ``[a, b)`` of consecutive stubs, cut where a run reaches ``RUN_BYTES``."""
    roles, offsets = cold.roles, cold.offsets
    count = len(roles)
    position = 0
    while position < count:
        if roles[position] == FULL:
            position += 1
            continue
        start = position
        limit = offsets[start] + RUN_BYTES
        while position < count and roles[position] != FULL and offsets[position] < limit:
            position += 1
        yield start, position


def _line_end(cold: ColdPart, position: int) -> int:
    return cold.offsets[position + 1] if position + 1 < len(cold.offsets) else cold.end


def covered_summary(cold: ColdPart, summary: UsageSummary) -> None:
    """Add the covered part's entries, in file order, to ``summary``."""
    offsets, records = cold.offsets, cold.records
    fulls = cold.full_positions()
    latest = -1  # the position of the latest assistant message with usage
    latest_usage: Mapping[str, object] | None = None  # its usage when parsed in full (a stub's: None)
    taken = 0  # of ``fulls``

    def add_full_before(position: int) -> None:
        nonlocal taken, latest, latest_usage
        while taken < len(fulls) and fulls[taken] < position:
            before = summary.last_assistant_usage
            summary.add_entry(records[fulls[taken]])
            if summary.last_assistant_usage is not before:
                latest, latest_usage = fulls[taken], summary.last_assistant_usage
            taken += 1

    with open(cold.path, "rb") as handle:
        fd = handle.fileno()
        for start, stop in _stub_runs(cold):
            add_full_before(start)
            data = os.pread(fd, _line_end(cold, stop - 1) - offsets[start], offsets[start])
            index, usage = _add_run(summary, data, stop - start)
            if index >= 0:  # (only the order with the entries parsed in full matters)
                latest, latest_usage = start + index, usage
        add_full_before(len(offsets))
        if latest >= 0 and latest_usage is None:
            raw = os.pread(fd, _line_end(cold, latest) - offsets[latest], offsets[latest]).rstrip(b"\n")
            latest_usage = _message_usage(loads_tolerant(raw))
    if latest >= 0:
        summary.last_assistant_usage = latest_usage


def _message_usage(record: object) -> Mapping[str, object] | None:
    message = record.get("message") if isinstance(record, dict) else None
    usage = message.get("usage") if isinstance(message, dict) else None
    return usage if isinstance(usage, Mapping) else None


def scanned_usage(cold: ColdPart, after: list[Mapping[str, object]]) -> SessionUsage:
    """The usage of a file opened from its scan: ``cold`` its covered part, ``after`` the entries after it."""

    def base(summary: UsageSummary) -> None:
        covered = cold.usage  # what the index beside the file kept of an earlier count
        if covered is None:
            covered = UsageSummary()
            covered_summary(cold, covered)
            cold.usage, cold.unsaved = covered, True  # kept in the index when the session closes
        summary.add_summary(covered)
        summary.add_entries(after)

    return SessionUsage(base)


__all__ = ["covered_summary", "scanned_usage"]
