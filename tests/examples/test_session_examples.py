"""Session metadata: session-name and bookmark, in real sessions against the fake server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from _examples_support import UIClient, sdk_session

from pi_harness.testing.fake_llm import FakeLLMServer, ScriptedResponse, TextStep


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as running:
        yield running


async def test_session_name_sets_and_shows_the_name(server: FakeLLMServer, tmp_path: Path) -> None:
    client = UIClient()
    result = await sdk_session(server, tmp_path, "session_name", client=client)
    session = result.session

    await session.prompt("/session-name")
    await session.prompt("/session-name  Refactor the parser ")
    await session.prompt("/session-name")

    assert session.session_manager.get_session_name() == "Refactor the parser"
    assert [text for text, _ in client.notifications] == [
        "This session has no name yet",
        "This session is now called: Refactor the parser",
        "Session name: Refactor the parser",
    ]
    assert server.requests == []  # commands never reach the model
    await result.runtime.shutdown()


async def test_bookmark_labels_the_latest_answer_and_unbookmark_removes_it(
    server: FakeLLMServer, tmp_path: Path
) -> None:
    server.push(ScriptedResponse(steps=[TextStep("first answer")]), ScriptedResponse(steps=[TextStep("second")]))
    client = UIClient()
    result = await sdk_session(server, tmp_path, "bookmark", client=client)
    session, manager = result.session, result.session.session_manager

    await session.prompt("/bookmark")
    assert client.notifications[-1] == ("There is no answer to bookmark yet", "warning")
    await session.prompt("one")
    await session.prompt("two")
    await session.prompt("/bookmark before the refactor")

    answers = [e for e in manager.get_entries() if e["type"] == "message" and e["message"]["role"] == "assistant"]
    assert manager.get_label(answers[-1]["id"]) == "before the refactor"
    assert manager.get_label(answers[0]["id"]) is None
    assert client.notifications[-1] == ("Bookmark set: before the refactor", "info")

    await session.prompt("/unbookmark")
    assert manager.get_label(answers[-1]["id"]) is None
    assert client.notifications[-1] == ("Bookmark removed: before the refactor", "info")
    await session.prompt("/unbookmark")
    assert client.notifications[-1] == ("No bookmark to remove", "warning")
    await result.runtime.shutdown()


async def test_bookmark_without_a_label_uses_a_timestamp(server: FakeLLMServer, tmp_path: Path) -> None:
    server.push(ScriptedResponse(steps=[TextStep("answer")]))
    result = await sdk_session(server, tmp_path, "bookmark", client=UIClient())
    await result.session.prompt("hi")
    await result.session.prompt("/bookmark")
    manager = result.session.session_manager
    answer = next(e for e in manager.get_entries() if e["type"] == "message" and e["message"]["role"] == "assistant")
    label = manager.get_label(answer["id"]) or ""
    assert label.startswith("bookmark-") and label.removeprefix("bookmark-").isdigit()
    await result.runtime.shutdown()
