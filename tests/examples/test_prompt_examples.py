"""System prompt and compaction: pirate, claude-rules, prompt-customizer, system-prompt-header and
trigger-compact, in real sessions against the fake server."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _examples_support import UIClient, load_example, sdk_session

from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as running:
        yield running


def system_prompt(request: Any) -> str:
    first = request.json["messages"][0]
    assert first["role"] in ("system", "developer")
    return str(first["content"])


def answers(server: FakeLLMServer, count: int) -> None:
    server.push(*[ScriptedResponse(steps=[TextStep(f"answer {i}")]) for i in range(count)])


async def test_pirate_toggles_the_instructions(server: FakeLLMServer, tmp_path: Path) -> None:
    answers(server, 3)
    client = UIClient()
    result = await sdk_session(server, tmp_path, "pirate", client=client)
    session = result.session

    await session.prompt("hello")
    await session.prompt("/pirate")
    await session.prompt("hello again")
    await session.prompt("/pirate")
    await session.prompt("and again")

    prompts = [system_prompt(request) for request in server.requests]
    assert ["Pirate mode is on" in prompt for prompt in prompts] == [False, True, False]
    assert prompts[1].startswith(prompts[0])  # appended to the normal prompt, nothing lost
    assert [text for text, _ in client.notifications] == ["Pirate mode on. Arrr!", "Pirate mode off"]
    await result.runtime.shutdown()


async def test_claude_rules_lists_the_rule_files(server: FakeLLMServer, tmp_path: Path) -> None:
    rules = tmp_path / ".claude" / "rules"
    (rules / "frontend").mkdir(parents=True)
    (rules / "testing.md").write_text("Always run pytest.\n")
    (rules / "frontend" / "components.md").write_text("Small components.\n")
    (rules / "notes.txt").write_text("not a rule\n")
    answers(server, 1)
    client = UIClient()
    result = await sdk_session(server, tmp_path, "claude_rules", client=client)

    await result.session.prompt("fix the tests")

    prompt = system_prompt(server.requests[0])
    assert "<project_rules>" in prompt
    assert "- .claude/rules/frontend/components.md\n- .claude/rules/testing.md\n" in prompt
    assert "notes.txt" not in prompt and "Always run pytest" not in prompt  # listed, not pasted
    assert client.notifications == [("2 rule file(s) found in .claude/rules/", "info")]
    await result.runtime.shutdown()


async def test_claude_rules_adds_nothing_without_rules(server: FakeLLMServer, tmp_path: Path) -> None:
    answers(server, 1)
    client = UIClient()
    result = await sdk_session(server, tmp_path, "claude_rules", client=client)
    await result.session.prompt("hi")
    assert "project_rules" not in system_prompt(server.requests[0])
    assert client.notifications == []
    await result.runtime.shutdown()


async def test_prompt_customizer_follows_the_active_tools(
    server: FakeLLMServer, tmp_path: Path, agent_dir: Path
) -> None:
    skill = agent_dir / "skills" / "deploy"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: deploy\ndescription: Ship it\n---\nSteps.\n")
    answers(server, 2)
    result = await sdk_session(server, tmp_path, "prompt_customizer")
    session = result.session

    await session.prompt("look around")
    session.set_active_tools(["read"])
    await session.prompt("again")

    full, reduced = (system_prompt(request) for request in server.requests)
    assert "<tool_guidance>" in full
    assert "Change existing files with `edit`" in full and "`bash` is there" in full
    assert "- Skills you can load: deploy." in full
    assert "Page through long files" in reduced and "`edit`" not in reduced.split("<tool_guidance>")[1]
    assert load_example("prompt_customizer").guidance([], []) == ""
    await result.runtime.shutdown()


async def test_system_prompt_header_shows_the_length(server: FakeLLMServer, tmp_path: Path) -> None:
    answers(server, 1)
    client = UIClient()
    result = await sdk_session(server, tmp_path, "system_prompt_header", client=client)
    await result.session.prompt("hi")
    length = len(system_prompt(server.requests[0]))
    assert client.status("system-prompt") == f"System prompt: {length} chars"
    await result.runtime.shutdown()
    assert client.status("system-prompt") is None


async def wait_for(condition: Any, what: str) -> None:
    """Wait for something a background task does (a compaction started without waiting)."""
    for _ in range(500):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


KEEP_LITTLE = {"compaction": {"keepRecentTokens": 1}}  # so a short conversation has something to compact


def compactions(session: Any) -> list[dict[str, Any]]:
    return [e for e in session.session_manager.get_entries() if e["type"] == "compaction"]


async def test_trigger_compact_command_compacts_with_the_instructions(server: FakeLLMServer, tmp_path: Path) -> None:
    server.push(
        ScriptedResponse(steps=[TextStep("first answer")]),
        ScriptedResponse(steps=[TextStep("second answer")]),
        ScriptedResponse(steps=[TextStep("## Goal\nsummary of the talk")]),
        ScriptedResponse(steps=[TextStep("## Goal\nsummary of the turn")]),  # the split turn's prefix
    )
    client = UIClient()
    result = await sdk_session(server, tmp_path, "trigger_compact", client=client, settings=KEEP_LITTLE)
    session = result.session
    await session.prompt("one")
    await session.prompt("two")

    await session.prompt("/trigger-compact keep the file names")
    await wait_for(lambda: compactions(session), "the compaction")

    assert "summary of the talk" in compactions(session)[0]["summary"]
    assert "keep the file names" in str(server.requests[2].json["messages"])
    await wait_for(lambda: ("Compaction finished", "info") in client.notifications, "the notification")
    assert client.notifications[0] == ("Compacting the conversation...", "info")
    await result.runtime.shutdown()


async def test_trigger_compact_compacts_when_the_context_crosses_the_threshold(
    server: FakeLLMServer, tmp_path: Path
) -> None:
    server.push(
        ScriptedResponse(steps=[TextStep("small")], usage={"input": 100, "output": 5}),
        ScriptedResponse(steps=[TextStep("large")], usage={"input": 5000, "output": 5}),
        ScriptedResponse(steps=[TextStep("## Goal\nsummary")]),
        ScriptedResponse(steps=[TextStep("## Goal\nsummary of the turn")]),
    )
    factory = load_example("trigger_compact").create_extension(threshold=1000)
    result = await sdk_session(server, tmp_path, extension_factories=[factory], settings=KEEP_LITTLE)
    session = result.session

    await session.prompt("one")
    assert compactions(session) == []
    await session.prompt("two")
    await wait_for(lambda: compactions(session), "the compaction")
    assert "condense" in str(server.requests[2].json["messages"][0])
    await result.runtime.shutdown()
