"""The ``// @options: {...}`` first line of a script (``max_output_tokens``, ``timeout_ms``)."""

from __future__ import annotations

import json
from dataclasses import dataclass

PREFIX = "// @options:"
DEFAULT_MAX_OUTPUT_TOKENS = 10000


class OptionsError(ValueError):
    pass


@dataclass(frozen=True)
class ScriptSource:
    code: str
    max_output_tokens: int = DEFAULT_MAX_OUTPUT_TOKENS
    timeout_ms: int | None = None


def _positive_int(options: dict[str, object], key: str) -> int | None:
    value = options.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0 or int(value) != value:
        raise OptionsError(f"@options: {key} must be a positive integer")
    return int(value)


def parse_source(code: str) -> ScriptSource:
    lines = code.split("\n")
    for index, line in enumerate(lines):
        if line.strip().startswith(PREFIX) and index > 0:
            raise OptionsError("The // @options: line must be the first line of the script")
    first = lines[0].strip() if lines else ""
    if not first.startswith(PREFIX):
        return ScriptSource(code)
    try:
        options = json.loads(first[len(PREFIX) :])
    except ValueError as exc:
        raise OptionsError(f"@options: not a JSON object: {exc}") from None
    if not isinstance(options, dict):
        raise OptionsError("@options: not a JSON object")
    unknown = sorted(set(options) - {"max_output_tokens", "timeout_ms"})
    if unknown:
        raise OptionsError(f"@options: unknown option {', '.join(unknown)}")
    max_tokens = _positive_int(options, "max_output_tokens")
    return ScriptSource(
        "\n".join(lines[1:]),
        max_output_tokens=max_tokens if max_tokens is not None else DEFAULT_MAX_OUTPUT_TOKENS,
        timeout_ms=_positive_int(options, "timeout_ms"),
    )
