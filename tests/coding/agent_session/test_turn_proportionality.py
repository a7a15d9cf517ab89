"""A turn costs what it adds, not the whole conversation: over a run of tool turns, each message
is converted and encoded once, and no request compares its messages with the previous request's
(the session's projection and every pass after it hand out lists that say they only grew).
Counts, not seconds."""

from __future__ import annotations

import operator
from pathlib import Path
from types import SimpleNamespace

import pytest
from _agent_session_helpers import make_session

from pi_harness.ai import append_memo, body_encoding
from pi_harness.ai.providers import openai_completions_convert
from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep, ToolCallStep

TURNS = 12


async def test_each_turn_works_on_its_new_messages_only(
    server: FakeLLMServer, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "notes.txt").write_text("a line the model reads\n" * 5)
    calls = [ToolCallStep("read", {"path": "notes.txt"}, id=f"call_{i}") for i in range(TURNS)]
    server.push(*(ScriptedResponse(steps=[call]) for call in calls), ScriptedResponse(steps=[TextStep("done")]))

    compared = 0

    def counted_is(a: object, b: object) -> bool:
        nonlocal compared
        compared += 1
        return a is b

    monkeypatch.setattr(append_memo, "operator", SimpleNamespace(is_=counted_is))
    converted_results = 0
    convert_result = openai_completions_convert._tool_result

    def counted_result(*args: object) -> object:
        nonlocal converted_results
        converted_results += 1
        return convert_result(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(openai_completions_convert, "_tool_result", counted_result)
    encoder = body_encoding.BodyEncoder()
    monkeypatch.setattr(body_encoding, "_ENCODER", encoder)

    result = await make_session(server, project)
    await result.session.prompt("read the notes, again and again")

    requests = [request.body for request in server.requests]
    assert len(requests) == TURNS + 1
    sent = [len(body["messages"]) for body in requests if isinstance(body, dict) and isinstance(body["messages"], list)]
    # Each tool result converted once, though every later request carries it again.
    assert converted_results == TURNS
    # Each message and tool encoded once (the first request goes whole, the second item by item).
    last = requests[-1]
    tools = len(last["tools"]) if isinstance(last, dict) and isinstance(last.get("tools"), list) else 0
    assert encoder.items_encoded <= sent[-1] + sent[0] + tools
    # No pass compares the messages with the previous request's: the session's projection is
    # handed out as an issued list, and every pass knows from it that the list only grew. (The
    # few tools are compared: the same objects every time.)
    assert compared <= tools * len(requests)
    assert operator.is_ is not counted_is  # the shim stayed inside the memo module
