"""Small helpers every tool shares: failure type, result builders, abort checks, number text."""

from __future__ import annotations

import math
from typing import SupportsInt

from pi_harness.agent.types import AgentToolResult
from pi_harness.ai.abort import AbortSignal

ABORTED_MESSAGE = "Operation aborted"


class ToolError(Exception):
    """A tool failure whose message is shown to the model as the error result's text."""


def text_result(text: str, details: object = None) -> AgentToolResult:
    result: AgentToolResult = {"content": [{"type": "text", "text": text}]}
    if details is not None:
        result["details"] = details
    return result


def raise_if_aborted(signal: AbortSignal | None) -> None:
    if signal is not None and signal.aborted:
        raise ToolError(ABORTED_MESSAGE)


def format_number(value: float) -> str:
    """A number as JavaScript prints it in a template string (``5`` not ``5.0``)."""
    if isinstance(value, bool):
        return str(int(value))
    if isinstance(value, int):
        return str(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    return repr(value)


def as_int(value: object, default: int) -> int:
    """A numeric argument as an integer (the schema says ``number``; models send ``5.0`` too)."""
    if value is None or isinstance(value, bool) or not isinstance(value, str | bytes | SupportsInt):
        return default
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):
        return default
