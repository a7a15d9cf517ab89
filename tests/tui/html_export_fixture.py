"""A realistic session file with two branches, for the HTML viewer tests.

Branch A (abandoned): the bug is fixed, then tests are added. Branch B (the file's active leaf)
starts from the same answer with a branch summary, an image, a model change, an extension
message, a compaction and a prompt that tries to break out of the page's ``<script>``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

SESSION_ID = "0193a0f0-aaaa-7bbb-8ccc-000000000001"
PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
INJECTION = "</script><script>window.__pwned = 1</script><img src=x onerror=window.__pwned=2>"
LONG_OUTPUT = "\n".join(f"line {n:03d} of the listing" for n in range(1, 121))


def _usage(inp: int, out: int, cost: float) -> dict[str, Any]:
    return {"input": inp, "output": out, "cacheRead": 100, "cacheWrite": 0, "totalTokens": inp + out + 100,
            "cost": {"input": cost / 2, "output": cost / 2, "cacheRead": 0.0, "cacheWrite": 0.0, "total": cost}}  # fmt: skip


def _assistant(content: list[dict[str, Any]], *, model: str = "fake-model", stop: str = "stop",
               ts: int = 0) -> dict[str, Any]:  # fmt: skip
    return {"role": "assistant", "content": content, "api": "openai-completions", "provider": "fake",
            "model": model, "usage": _usage(1200, 300, 0.0125), "stopReason": stop, "timestamp": ts}  # fmt: skip


def _user(content: Any, ts: int = 0) -> dict[str, Any]:
    return {"role": "user", "content": content, "timestamp": ts}


def _result(call_id: str, name: str, text: str, *, error: bool = False, details: Any = None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "toolResult", "toolCallId": call_id, "toolName": name,
                               "content": [{"type": "text", "text": text}], "isError": error, "timestamp": 0}  # fmt: skip
    if details is not None:
        message["details"] = details
    return message


ANSWER = """The bug was an off-by-one in `add`. Fixed:

```python
def add(a, b):
    return a + b
```

- checked the **callers**
- ran the *tests*

| file | change |
|------|--------|
| calc.py | fixed |

See [the docs](https://example.com/docs) and [bad](javascript:alert(1))."""


def session_entries() -> list[dict[str, Any]]:
    """The header and the entries, in file order."""
    rows: list[dict[str, Any]] = [{"type": "session", "version": 3, "id": SESSION_ID,
                                   "timestamp": "2026-01-02T03:04:05.000Z", "cwd": "/work/calc"}]  # fmt: skip
    clock = iter(range(10, 10_000))

    def add(entry_id: str, parent: str | None, kind: str, **fields: Any) -> None:
        stamp = f"2026-01-02T03:{next(clock) // 60:02d}:{next(clock) % 60:02d}.000Z"
        rows.append({"type": kind, "id": entry_id, "parentId": parent, "timestamp": stamp, **fields})

    system = {"role": "system", "content": "", "timestamp": 0,
              "sections": {"preamble": "You are a coding agent.", "cwd": "<cwd>\n/work/calc\n</cwd>"},
              "toolsAdded": [{"name": "read", "description": "Read a file", "parameters": {}}]}  # fmt: skip
    add("e00", None, "message", message=system)
    add("e01", "e00", "model_change", provider="fake", modelId="fake-model")
    add("e02", "e01", "thinking_level_change", thinkingLevel="medium")
    add("e03", "e02", "message", message=_user("Please fix the bug in `calc.py`"))
    add("e04", "e03", "message", message=_assistant([
        {"type": "thinking", "thinking": "The user wants a fix. I should **read** the file first."},
        {"type": "text", "text": "Let me look at the file."},
        {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "calc.py"}},
        {"type": "toolCall", "id": "c2", "name": "bash", "arguments": {"command": "ls -la && pytest -q"}},
    ], stop="toolUse"))  # fmt: skip
    add("e05", "e04", "message", message=_result("c1", "read", "def add(a, b):\n    return a + b + 1\n"))
    add("e06", "e05", "message", message=_result("c2", "bash", LONG_OUTPUT + "\nexit code 1", error=True))
    add("e07", "e06", "message", message=_assistant([
        {"type": "toolCall", "id": "c3", "name": "edit",
         "arguments": {"path": "calc.py", "edits": [{"oldText": "a + b + 1", "newText": "a + b"}]}},
    ], stop="toolUse"))  # fmt: skip
    add("e08", "e07", "message", message=_result("c3", "edit", "Successfully replaced text in calc.py.",
                                                 details={"diff": " 1 def add(a, b):\n-2     return a + b + 1\n+2     return a + b"}))  # fmt: skip
    add("e09", "e08", "message", message=_assistant([{"type": "text", "text": ANSWER}]))
    add("e10", "e09", "label", targetId="e09", label="fixed")
    # branch A: abandoned
    add("e11", "e10", "message", message=_user("Now add unit tests for the marmot module"))
    add(
        "e12", "e11", "message", message=_assistant([{"type": "text", "text": "Added marmot tests in `test_calc.py`."}])
    )
    # branch B: the active one, back from e10
    add("e13", "e10", "branch_summary", fromId="e12", summary="Tried adding **tests**; the user went another way.")
    add("e14", "e13", "message", message=_user([
        {"type": "text", "text": "Instead, document the fix. Here is a screenshot:"},
        {"type": "image", "data": PNG_1X1, "mimeType": "image/png"},
        {"type": "image", "data": "\"><script>", "mimeType": "image/png"},
    ]))  # fmt: skip
    add("e15", "e14", "model_change", provider="fake", modelId="bigger-model")
    add("e16", "e15", "message", message=_assistant([{"type": "text", "text": "Documented in `README.md`."}],
                                                    model="bigger-model"))  # fmt: skip
    add("e17", "e16", "custom_message", customType="reminder", content="Remember the changelog", display=True)
    add("e18", "e17", "compaction", summary="Fixed `add`, documented it.", firstKeptEntryId="e16", tokensBefore=48000)
    add("e19", "e18", "message", message=_user(INJECTION))
    add("e20", "e19", "message", message=_assistant([{"type": "text", "text": "That looks like a script tag."}],
                                                    model="bigger-model"))  # fmt: skip
    add("e21", "e20", "session_info", name="Fix the calc bug")
    return rows


def write_session(path: Path) -> Path:
    path.write_bytes(b"".join(orjson.dumps(row) + b"\n" for row in session_entries()))
    return path
