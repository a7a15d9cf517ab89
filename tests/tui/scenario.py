"""A realistic AgentSession event sequence, in the order the agent emits it, for transcript tests.

A prompt, a streamed answer with thinking, two parallel tool calls (``read`` and ``bash``, the
second failing), a final answer, then a second prompt whose response fails with an error.
"""

from __future__ import annotations

import copy
from typing import Any

USAGE = {
    "input": 1200,
    "output": 300,
    "cacheRead": 0,
    "cacheWrite": 0,
    "totalTokens": 1500,
    "cost": {"input": 0.0036, "output": 0.0045, "cacheRead": 0.0, "cacheWrite": 0.0, "total": 0.0081},
}


def user(text: str, ts: int = 1) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": ts}


def assistant(content: list[dict[str, Any]], stop: str = "stop", **extra: Any) -> dict[str, Any]:
    message = {
        "role": "assistant",
        "content": content,
        "api": "openai-completions",
        "provider": "fake",
        "model": "fake-model",
        "usage": copy.deepcopy(USAGE),
        "stopReason": stop,
        "timestamp": 2,
    }
    message.update(extra)
    return message


def tool_result(call_id: str, name: str, text: str, *, error: bool = False, details: Any = None) -> dict[str, Any]:
    message = {
        "role": "toolResult",
        "toolCallId": call_id,
        "toolName": name,
        "content": [{"type": "text", "text": text}],
        "isError": error,
        "timestamp": 3,
    }
    if details is not None:
        message["details"] = details
    return message


def stream(content_steps: list[list[dict[str, Any]]], final: dict[str, Any]) -> list[dict[str, Any]]:
    """message_start, one message_update per partial content, message_end."""
    events: list[dict[str, Any]] = [{"type": "message_start", "message": assistant([], stop="pending")}]
    for content in content_steps:
        partial = assistant(copy.deepcopy(content), stop="pending")
        events.append(
            {
                "type": "message_update",
                "message": partial,
                "assistantMessageEvent": {"type": "text_delta", "contentIndex": 0, "delta": "", "partial": partial},
            }
        )
    events.append({"type": "message_end", "message": final})
    return events


READ_OUTPUT = "\n".join(f"line {n} of the config" for n in range(1, 31))
READ_ARGS = {"path": "/work/project/config.py", "offset": 1, "limit": 30}
BASH_ARGS = {"command": "pytest -q tests/test_app.py"}
BASH_OUTPUT = "F.\n=== FAILURES ===\nassert 1 == 2\n1 failed, 1 passed in 0.12s\n\nCommand exited with code 1"


def first_turn() -> list[dict[str, Any]]:
    thinking = {"type": "thinking", "thinking": "The user wants the tests fixed. Read the config first."}
    text = "I'll look at the configuration and run the tests."
    calls = [
        {"type": "toolCall", "id": "call_1", "name": "read", "arguments": READ_ARGS},
        {"type": "toolCall", "id": "call_2", "name": "bash", "arguments": BASH_ARGS},
    ]
    steps = [
        [{"type": "thinking", "thinking": "The user wants"}],
        [thinking],
        [thinking, {"type": "text", "text": "I'll look at the"}],
        [thinking, {"type": "text", "text": text}],
        [
            thinking,
            {"type": "text", "text": text},
            {"type": "toolCall", "id": "call_1", "name": "read", "arguments": {"path": "/work/proj"}},
        ],
        [thinking, {"type": "text", "text": text}, *calls],
    ]
    final = assistant([thinking, {"type": "text", "text": text}, *calls], stop="toolUse")
    events: list[dict[str, Any]] = [
        {"type": "agent_start"},
        {"type": "turn_start"},
        {"type": "message_start", "message": user("Please fix the failing test")},
        {"type": "message_end", "message": user("Please fix the failing test")},
        *stream(steps, final),
        {"type": "tool_execution_start", "toolCallId": "call_1", "toolName": "read", "args": READ_ARGS},
        {"type": "tool_execution_start", "toolCallId": "call_2", "toolName": "bash", "args": BASH_ARGS},
        {
            "type": "tool_execution_update",
            "toolCallId": "call_2",
            "toolName": "bash",
            "args": BASH_ARGS,
            "partialResult": {"content": [{"type": "text", "text": "F."}]},
        },
        {
            "type": "tool_execution_end",
            "toolCallId": "call_2",
            "toolName": "bash",
            "result": {"content": [{"type": "text", "text": BASH_OUTPUT}]},
            "isError": True,
            "durationMs": 1250,
        },
        {
            "type": "tool_execution_end",
            "toolCallId": "call_1",
            "toolName": "read",
            "result": {"content": [{"type": "text", "text": READ_OUTPUT}]},
            "isError": False,
            "durationMs": 4,
        },
    ]
    for message in (tool_result("call_1", "read", READ_OUTPUT), tool_result("call_2", "bash", BASH_OUTPUT, error=True)):
        events.append({"type": "message_start", "message": message})
        events.append({"type": "message_end", "message": message})
    events.append({"type": "turn_end", "message": final, "toolResults": []})
    answer = "The test compares **1** with `2`. Change the expected value:\n\n```python\nassert compute() == 1\n```"
    events.append({"type": "turn_start"})
    events.extend(
        stream(
            [[{"type": "text", "text": answer[:20]}], [{"type": "text", "text": answer}]],
            assistant([{"type": "text", "text": answer}]),
        )
    )
    events.extend(
        [
            {"type": "turn_end"},
            {"type": "agent_end", "messages": [], "willRetry": False},
            {"type": "agent_settled", "aborted": False},
        ]
    )
    return events


def failing_turn() -> list[dict[str, Any]]:
    final = assistant([], stop="error", errorMessage="529 overloaded_error: Overloaded")
    return [
        {"type": "agent_start"},
        {"type": "message_start", "message": user("And now?", 10)},
        {"type": "message_end", "message": user("And now?", 10)},
        *stream([], final),
        {"type": "turn_end"},
        {"type": "agent_end", "messages": [], "willRetry": False},
        {"type": "agent_settled", "aborted": False},
    ]
