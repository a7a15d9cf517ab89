"""Message and session builders for the compaction tests."""

from __future__ import annotations

import itertools
from typing import Any

from pi_harness.coding.session_store import SessionManager

_clock = itertools.count(1_700_000_000_000, 1000)


def usage(total: int = 0, **parts: int) -> dict[str, Any]:
    fields = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, **parts}
    return {
        **fields,
        "totalTokens": total,
        "cost": {"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0, "total": 0.0},
    }


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": next(_clock)}


def assistant(
    text: str = "",
    *,
    calls: tuple[tuple[str, str, dict[str, Any]], ...] = (),
    thinking: str = "",
    provider: str = "faux",
    model: str = "faux-model",
    stop: str | None = None,
    total: int = 0,
    **extra: Any,
) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if thinking:
        content.append({"type": "thinking", "thinking": thinking})
    if text:
        content.append({"type": "text", "text": text})
    for call_id, name, arguments in calls:
        content.append({"type": "toolCall", "id": call_id, "name": name, "arguments": arguments})
    return {
        "role": "assistant",
        "content": content,
        "api": "faux",
        "provider": provider,
        "model": model,
        "usage": usage(total, input=total),
        "stopReason": stop or ("toolUse" if calls else "stop"),
        "timestamp": next(_clock),
        **extra,
    }


def tool_result(call_id: str, text: str, name: str = "bash") -> dict[str, Any]:
    return {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": name,
        "content": [{"type": "text", "text": text}],
        "isError": False,
        "timestamp": next(_clock),
    }


def words(n_tokens: int, tag: str = "w") -> str:
    """Text that estimates to exactly ``n_tokens`` tokens (4 characters each)."""
    unit = (tag * 4)[:4]
    return unit * n_tokens


def append_all(manager: SessionManager, messages: list[dict[str, Any]]) -> list[str]:
    return [manager.append_message(m) for m in messages]  # type: ignore[arg-type]
