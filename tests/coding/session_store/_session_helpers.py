"""Message factories and file helpers shared by the session-store tests."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import orjson

_clock = itertools.count(1_700_000_000_000, 1000)


def usage(total: int = 0, **parts: int) -> dict[str, Any]:
    fields = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, **parts}
    return {
        **fields,
        "totalTokens": total,
        "cost": {"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0, "total": 0.0},
    }


def user(text: str, **extra: Any) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": next(_clock), **extra}


def assistant(
    text: str = "",
    *,
    calls: list[tuple[str, str, dict[str, Any]]] = (),  # type: ignore[assignment]
    provider: str = "anthropic",
    model: str = "claude-sonnet-4-5",
    stop: str | None = None,
    total: int = 100,
    **extra: Any,
) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if text:
        content.append({"type": "text", "text": text})
    for call_id, name, arguments in calls:
        content.append({"type": "toolCall", "id": call_id, "name": name, "arguments": arguments})
    return {
        "role": "assistant",
        "content": content,
        "api": "anthropic-messages",
        "provider": provider,
        "model": model,
        "usage": usage(total, input=total),
        "stopReason": stop or ("toolUse" if calls else "stop"),
        "timestamp": next(_clock),
        **extra,
    }


def tool_result(call_id: str, text: str, name: str = "bash", **extra: Any) -> dict[str, Any]:
    return {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": name,
        "content": [{"type": "text", "text": text}],
        "isError": False,
        "timestamp": next(_clock),
        **extra,
    }


def read_lines(path: Path) -> list[dict[str, Any]]:
    """Every record of a JSONL file, strictly (each line must parse)."""
    data = path.read_bytes()
    assert data.endswith(b"\n")
    return [orjson.loads(line) for line in data.split(b"\n")[:-1]]


def write_lines(path: Path, records: list[Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    return path


def roles(messages: list[Any]) -> list[str]:
    return [m["role"] for m in messages]
